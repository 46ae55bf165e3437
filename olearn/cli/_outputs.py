"""Output files of ``olearn train``: checked before learning, written whole or not at all.

An output path is refused before any file is read when its folder is missing
or not a folder, when it names a folder, or when it is one of the input files
or the other output (``--save-model train.svm`` would overwrite the data).
A file is written to a temporary file in the same folder, flushed to disk
(``fsync``) and renamed over the path (``os.replace``, atomic on POSIX): a
crash, a full disk or a SIGTERM while writing leaves the previous file at the
path as it was (and at worst a ``.olearn-*.tmp`` file beside it, removed
when the interruption lets Python run its cleanup).

A path that is a symbolic link is followed, by the check and by the write
alike (:func:`output_target`): the file the link points to is checked and
replaced, atomically, by a temporary file in *its* folder; the link stays.
"""
import os
import tempfile
from pathlib import Path


class OutputPathError(Exception):
    """An output path that cannot be written; the message names the fix."""


def output_target(path):
    """The file an output path writes: the end of its chain of symbolic links
    (``path`` itself when it is not a link)."""
    path = Path(path)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _same_file(a, b):
    a, b = Path(a), Path(b)
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return a.resolve() == b.resolve()


def check_outputs(outputs, inputs):
    """Refuse output paths that cannot be written or would destroy a file.

    ``outputs``: ``{option: path}`` (``None`` paths skipped); ``inputs``: the
    input paths.  Raises :class:`OutputPathError`."""
    given = [(option, output_target(path)) for option, path in outputs.items() if path]
    for option, path in given:
        folder = path.parent
        if path.is_dir():
            raise OutputPathError(f"{option} {path}: is a folder; name a file in it, "
                                  f"e.g. {path / 'model.pkl'}")
        if not folder.exists():
            raise OutputPathError(f"{option} {path}: the folder {folder} does not exist; "
                                  "create it first or name a file in an existing folder")
        if not folder.is_dir():
            raise OutputPathError(f"{option} {path}: {folder} is not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputPathError(f"{option} {path}: cannot write in the folder {folder}")
        for source in inputs:
            if source and _same_file(path, source):
                raise OutputPathError(f"{option} {path} is an input file; writing it would "
                                      "destroy the data: name another file")
    for k, (option, path) in enumerate(given):
        for other_option, other in given[k + 1:]:
            if _same_file(path, other):
                raise OutputPathError(f"{option} and {other_option} name the same file "
                                      f"{path}: give them different paths")


def _fsync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - a platform without folder descriptors
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def write_atomically(path, write):
    """Call ``write(f)`` on a temporary binary file beside ``path``, fsync it,
    then rename it to ``path``; on any error (or KeyboardInterrupt/SystemExit,
    as a SIGTERM becomes in :func:`olearn.cli.main`) the temporary file is
    removed and ``path`` keeps its previous contents."""
    path = output_target(path)     # a link's target, as check_outputs checked it
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".olearn-{path.name}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private (0600): give it the mode a new file gets
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(path.parent)
