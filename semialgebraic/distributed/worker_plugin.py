"""The Dask worker plugin of :mod:`.cluster` (imported only when a cluster is used: it needs
``distributed``): every worker process, also one that joins or restarts later, runs
:func:`.cluster.limit_threads` when it starts."""

from __future__ import annotations

from distributed import WorkerPlugin

from .cluster import limit_threads

__all__ = ["SingleThreaded"]


class SingleThreaded(WorkerPlugin):
    """One BLAS/OpenMP, FLINT and HiGHS thread in the worker process."""

    name = "netfibers-single-threaded"

    def setup(self, worker=None):
        limit_threads()
