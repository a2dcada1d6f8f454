"""Runs that outgrow one process: batch jobs over many models and searches split into cells,
on Dask (``dask.distributed``) when it is installed, serially otherwise (issue 19).

* :mod:`.manifest` — the items of a batch (a directory, a glob, a CSV or JSON Lines file);
* :mod:`.jobs` — one pure function per item (the task a worker runs): dedup, equiv, dim,
  identify, absorb, conserved, diff;
* :mod:`.batch` — :func:`run_batch`: JSON Lines output appended per item, resume, summary;
* :mod:`.cluster` — the executor: serial, an embedded ``LocalCluster`` or ``--scheduler``;
* :mod:`.tree` — :func:`tree_diff` (the open nodes of one branch-and-bound tree as tasks, the
  serial ``bab_bound`` certificate);
* :mod:`.search` — :func:`distributed_diff` (branch and bound per cell, ``bab_cover``
  certificate) and the region walk per cell (:func:`.search.cell_regions`);
* :mod:`.walk` — :func:`distributed_regions`: the distributed breadth-first region walk (the
  client holds the visited patterns, tasks walk batches of regions), or the cells.

Dask is imported only when a cluster is started (``pip install 'netfibers[distributed]'``).
"""

from .batch import run_batch
from .search import distributed_diff, split_box
from .tree import tree_diff
from .walk import distributed_regions

__all__ = ["run_batch", "distributed_diff", "distributed_regions", "split_box", "tree_diff"]
