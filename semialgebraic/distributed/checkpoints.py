"""The guard shared by the checkpoint files of ``search`` (:mod:`.search`, :mod:`.tree`,
:mod:`.walk`): an existing file is taken only when it is a netfibers checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

from algebra.exceptions import InputError

__all__ = ["refuse_foreign"]


def refuse_foreign(path: Path) -> None:
    """Refuse an existing, non-empty *path* whose first line is not a checkpoint's header
    ``{"search": …}`` (a line cut short by a kill mid-write is taken: it starts with it).  Such
    a file was read as an empty checkpoint and overwritten (input audit, session 35: a user's
    notes replaced by checkpoint lines).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "notes.txt"
    ...     _ = p.write_text("my notes\\n")
    ...     try:
    ...         refuse_foreign(p)
    ...     except InputError as exc:
    ...         print(str(exc).split(": ", 1)[1][:44])
    not a netfibers checkpoint (its first line i
    """
    if path.exists() and not path.is_file():     # (a FIFO blocked the resume, /dev/zero grew
        raise InputError("a checkpoint must be a regular file", source=str(path))  # to 3.7 GB,
    if not path.exists() or path.stat().st_size == 0:          # a directory: exit 4; s48 S1)
        return
    with open(path, "rb") as fh:
        first = fh.readline(1 << 16)
    if not first.endswith(b"\n"):
        if first.startswith(b'{"search"'):
            return
    else:
        try:
            rec = json.loads(first)
        except (ValueError, RecursionError):             # (JSONDecodeError, UnicodeDecodeError)
            rec = None
        if isinstance(rec, dict) and "search" in rec:
            return
    raise InputError("not a netfibers checkpoint (its first line is not {\"search\": …}); "
                     "give another file, or delete this one to start afresh", source=str(path))
