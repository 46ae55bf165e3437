"""The experiment cache: one small ``.npz`` per finished task, under its key.

``<root>/<key[:2]>/<key>.npz`` holds the task's record, its mistakes as packed
bits and the description its key hashes (:func:`olearn.experiments.keys.task_key`).
Entries are written durably and atomically: a temporary file in the same
folder, flushed to disk (``fsync``), renamed over the entry, the folder synced.
A crash or a full disk therefore leaves either the old entry or the new one; an
entry that is nonetheless unusable -- empty (0 bytes), damaged, a directory,
stored for another key -- is recomputed and rewritten, and :func:`run` says so
in one warning.  A folder that cannot hold entries at all raises
:class:`CacheFolderError` before any task is computed.
"""
import json
import os
import tempfile
import uuid
import zipfile
from pathlib import Path

import numpy as np


def default_cache_dir():
    """``$OLEARN_CACHE_DIR``, else ``$XDG_CACHE_HOME/olearn/experiments``
    (``~/.cache/olearn/experiments``)."""
    if os.environ.get("OLEARN_CACHE_DIR"):
        return Path(os.environ["OLEARN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "olearn" / "experiments"


class CacheFolderError(OSError):
    """The experiment cache folder cannot be created or written to."""


def _what_is_wrong(path, error):
    if path.is_dir():
        return "a directory, not a file"
    try:
        if path.stat().st_size == 0:
            return "an empty file (0 bytes: what a crash or a full disk leaves)"
    except OSError:
        pass
    if isinstance(error, (ValueError, KeyError, EOFError, zipfile.BadZipFile)):
        return f"damaged, not an entry this version wrote ({type(error).__name__})"
    return f"unreadable ({type(error).__name__}: {error})"


def _fsync_folder(folder):
    """Make a rename in ``folder`` durable (best effort: not every OS can)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


class TaskCache:
    """Finished tasks as ``<root>/<key[:2]>/<key>.npz`` (record + packed mistakes).

    ``unreadable`` and ``unwritable`` list ``(path, what is wrong)`` for the
    entries that could not be read (and were recomputed) or written.
    """

    def __init__(self, root):
        self.root = Path(root)
        self.unreadable = []
        self.unwritable = []

    def path(self, key):
        return self.root / key[:2] / f"{key}.npz"

    def check_writable(self):
        """Raise :class:`CacheFolderError` unless the folder exists or can be
        made, and a file can be created in it."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.root, prefix=".write-check-"):
                pass
        except OSError as error:
            raise CacheFolderError(
                f"the experiment cache folder {self.root} cannot be used "
                f"({type(error).__name__}: {error}); nothing was computed. Pass "
                f"cache_dir= a writable folder (or set OLEARN_CACHE_DIR), or "
                f"cache=False to run without the cache.") from error

    def load(self, key, description):
        """``(record, packed mistakes)``, or None if absent, unusable (noted in
        ``unreadable``), or stored for another description than the one ``key``
        hashes (an entry copied over another key's file)."""
        path = self.path(key)
        try:
            with np.load(path, allow_pickle=False) as stored:
                if str(stored["key"]) != description:
                    self.unreadable.append((path, "stored for another key"))
                    return None
                return json.loads(str(stored["record"])), stored["mistakes"]
        except FileNotFoundError:
            return None
        except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as error:
            self.unreadable.append((path, _what_is_wrong(path, error)))
            return None

    def save(self, key, record, packed, description=""):
        """Write durably and atomically (a temporary file, fsync, a rename).

        An empty directory at the entry's path is removed first.  Returns True,
        or False when the entry could not be written (noted in ``unwritable``;
        the computed result is unaffected).
        """
        path = self.path(key)
        tmp = path.with_name(f".{key}.{uuid.uuid4().hex}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_dir():
                path.rmdir()                 # OSError if it holds anything
            with open(tmp, "wb") as handle:
                np.savez(handle, record=np.array(json.dumps(record)),
                         mistakes=packed, key=np.array(description))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError as error:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            self.unwritable.append((path, f"{type(error).__name__}: {error}"))
            return False
        _fsync_folder(path.parent)
        return True

    def problems(self):
        """One line per kind of trouble met, for the runner's warning ('' if none)."""
        lines = []
        if self.unreadable:
            path, what = self.unreadable[0]
            lines.append(f"{len(self.unreadable)} entr{'y' if len(self.unreadable) == 1 else 'ies'} "
                         f"of the experiment cache could not be used and "
                         f"{'was' if len(self.unreadable) == 1 else 'were'} recomputed "
                         f"(e.g. {path}: {what}).")
        if self.unwritable:
            path, what = self.unwritable[0]
            lines.append(f"{len(self.unwritable)} computed task(s) could not be stored "
                         f"in the experiment cache (e.g. {path}: {what}); the results are "
                         f"complete, a rerun computes them again.")
        return " ".join(lines)
