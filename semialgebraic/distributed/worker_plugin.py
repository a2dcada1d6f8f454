"""The Dask worker plugin of :mod:`.cluster` (imported only when a cluster is used: it needs
``distributed``): every worker process, also one that joins or restarts later, runs
:func:`.cluster.limit_threads` when it starts."""

from __future__ import annotations

from distributed import WorkerPlugin

from .cluster import limit_threads

__all__ = ["SingleThreaded", "IgnoreCtrlC"]


class SingleThreaded(WorkerPlugin):
    """One BLAS/OpenMP, FLINT and HiGHS thread in the worker process."""

    name = "netfibers-single-threaded"

    def setup(self, worker=None):
        limit_threads()


class IgnoreCtrlC(WorkerPlugin):
    """SIGINT ignored in the worker process (embedded clusters only): a Ctrl-C in the terminal
    reaches the whole foreground process group, and each worker printed its KeyboardInterrupt
    traceback (about 60 lines) before the partial report; the command's own process alone
    answers Ctrl-C, and it closes the cluster.  A worker of an existing cluster
    (``--scheduler``) is the user's and keeps its handler."""

    name = "netfibers-ignore-ctrl-c"

    def setup(self, worker=None):
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():   # (Dask's nanny: the
            signal.signal(signal.SIGINT, signal.SIG_IGN)             # worker's loop runs there)
