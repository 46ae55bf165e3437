"""Data home, checksums and downloads.

Every stored file is described by a :class:`DataFile`: its path inside the data home
(``<name>/<file>``, the layout of the project's shared data folder), the sha256 of its
*uncompressed content* and where it comes from.

Checksum convention
    ``.gz`` and ``.xz`` files (including ``.tar.xz`` archives) are hashed after
    decompression, so the hash is a fact about the public file, not about one
    compressor's output: ``spambase.data.gz`` has the sha256 of UCI's ``spambase.data``.
    Other files (``.zip`` archives, ``.names`` text) are hashed byte for byte.

Verification is cached per process by ``(path, size, mtime)``, so hashing the 50 MB
20 Newsgroups tar stream happens once per process, not once per load.
"""
from __future__ import annotations

import bz2
import functools
import gzip
import hashlib
import lzma
import os
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

ENV_DATA_HOME = "OLEARN_DATA_HOME"
ENV_BASE_URL = "OLEARN_BASE_URL"
DOWNLOAD_TIMEOUT_S = 60.0
_CHUNK = 1 << 20


class ChecksumError(ValueError):
    """A data file's content does not have the registered sha256."""


class DownloadError(OSError):
    """A data file could not be downloaded (network error, HTTP error status)."""


class DataNotFoundError(FileNotFoundError):
    """A data file is missing and cannot (or may not) be downloaded."""


class DataFileError(OSError):
    """A data file cannot be read (damaged or wrongly compressed) or written
    (unwritable data home); the message names the file and the fix."""


#: what reading a damaged compressed file raises (truncated gzip: EOFError;
#: not gzip: gzip.BadGzipFile, an OSError; xz/bz2/zlib errors; a tar stream
#: that is empty, truncated or not tar: tarfile.ReadError)
READ_ERRORS = (EOFError, OSError, lzma.LZMAError, zlib.error, tarfile.TarError)
#: what parsing a damaged or foreign content raises (pandas' ParserError and
#: UnicodeDecodeError are ValueErrors; a truncated zip: BadZipFile; a missing
#: archive member or column: KeyError, IndexError)
PARSE_ERRORS = (ValueError, zipfile.BadZipFile, KeyError, IndexError)


def _was_verified(path: Path) -> bool:
    try:
        stat = path.stat()
    except OSError:
        return False
    return (str(path.resolve()), stat.st_size, stat.st_mtime_ns) in _verified


def damaged_file_error(path: Path, exc: BaseException) -> DataFileError:
    """The library's error for a data file that cannot be decompressed, read
    or parsed: names the file, what failed and the fix."""
    kind = _compression(path.name)
    what = f"a complete {kind} file" if kind else "readable"
    if isinstance(exc, PARSE_ERRORS) and not isinstance(exc, READ_ERRORS):
        what = "in the expected format"
    checked = (
        "It passed its checksum in this process, so the registry or the parser is "
        "at fault: please report it." if _was_verified(path) else
        "It was not checked (verify=False, or a file not registered): load with "
        "verify=True to compare it with its registered sha256.")
    return DataFileError(
        f"cannot read data file {path}: it is damaged or not {what} "
        f"({type(exc).__name__}: {exc}). {checked} Delete it -- load() then "
        f"downloads it again where a source is known -- or replace it with a good "
        f"copy (the data home is {path.parent.parent}; set {ENV_DATA_HOME} or "
        f"data_home= to a folder holding good files)."
    )


def content_key(path: str | os.PathLike) -> tuple:
    """Identity of a file's current content for the parse caches: resolved path,
    size, inode, modification and change times (a rewritten or replaced file
    gets a new key; ``ctime`` cannot be set back by ``touch``), plus the sha256
    when it was verified in this process."""
    path = Path(path)
    stat = path.stat()
    resolved = str(path.resolve())
    return (resolved, stat.st_size, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns,
            _verified.get((resolved, stat.st_size, stat.st_mtime_ns)))


class EmptyContentError(ValueError):
    """A data file that decompressed and parsed but holds no record (a 0-byte
    ``.gz`` decompresses to nothing; a zip without the expected members)."""


def n_records(parsed) -> int:
    """Records in what a reader returned: rows of a table, or of the first item
    (matrix or texts) of a tuple."""
    first = parsed[0] if isinstance(parsed, tuple) else parsed
    shape = getattr(first, "shape", None)
    return int(shape[0]) if shape is not None else len(first)


def cached_by_content(reader):
    """Cache ``reader(path, *args)`` by :func:`content_key` of ``path`` (one entry
    per path: a changed file replaces its old parse).

    A file that cannot be read or parsed, or that parses to no record at all
    (every registered file holds records), raises :class:`DataFileError`
    naming it (:func:`damaged_file_error`)."""
    entries: dict = {}

    @functools.wraps(reader)
    def read(path, *args):
        key = (content_key(path), args)
        found = entries.get(key[0][0], {}).get(key)
        if found is None:
            try:
                found = reader(path, *args)
                if n_records(found) == 0:
                    raise EmptyContentError("it holds no record")
            except READ_ERRORS + PARSE_ERRORS as exc:
                if isinstance(exc, (FileNotFoundError, PermissionError)):
                    raise
                raise damaged_file_error(Path(path), exc) from exc
            entries[key[0][0]] = {key: found}
        return found

    read.cache_clear = entries.clear
    return read


@dataclass(frozen=True)
class DataFile:
    """One stored file of a data set.

    path
        location inside the data home, ``"<name>/<file>"``.
    sha256
        sha256 of the uncompressed content (see the module docstring).
    size
        byte length of the uncompressed content.
    source_url
        the original public file this one comes from.
    download_url
        a public file whose (decompressed) content is exactly ours, or None
        when our file was converted from the original and so cannot be
        downloaded and checked automatically.
    conversion
        for converted files: how to rebuild ours from ``source_url``
        (names a function of :mod:`olearn.datasets`).
    """

    path: str
    sha256: str
    size: int
    source_url: str
    download_url: str | None = None
    conversion: str | None = None


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder holding the data files, laid out as ``<data_home>/<name>/<file>``.

    Order of precedence: the ``data_home`` argument, the ``OLEARN_DATA_HOME``
    environment variable, then ``$XDG_CACHE_HOME/olearn`` (default ``~/.cache/olearn``).
    The folder is not created here; downloads create what they need.
    """
    if data_home is None:
        data_home = os.environ.get(ENV_DATA_HOME) or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache"), "olearn"
        )
    return Path(os.path.expanduser(os.fspath(data_home)))


def _compression(name: str) -> str | None:
    """The compression a file name's suffix names: "gz", "xz", "bz2" or None."""
    for suffix in ("gz", "xz", "bz2"):
        if name.endswith("." + suffix):
            return suffix
    return None


_DECOMPRESS = {"gz": gzip.decompress, "xz": lzma.decompress, "bz2": bz2.decompress}


def _open_content(path: Path):
    """Open ``path`` for reading its uncompressed content (binary)."""
    name = path.name
    if name.endswith(".gz"):
        return gzip.open(path, "rb")
    if name.endswith(".xz"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def content_sha256(path: str | os.PathLike) -> str:
    """sha256 (hex) of the uncompressed content of ``path`` (raw bytes for .zip and others)."""
    digest = hashlib.sha256()
    with _open_content(Path(path)) as stream:
        for chunk in iter(lambda: stream.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


# (resolved path, size, mtime_ns) -> sha256 already checked in this process
_verified: dict[tuple[str, int, int], str] = {}


def verify_file(path: str | os.PathLike, expected_sha256: str) -> None:
    """Raise :class:`ChecksumError` unless the content of ``path`` has ``expected_sha256``.

    A file that passed once is not hashed again in this process while its size and
    modification time are unchanged.
    """
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if _verified.get(key) == expected_sha256:
        return
    try:
        got = content_sha256(path)
    except READ_ERRORS as exc:
        raise damaged_file_error(path, exc) from exc
    if got != expected_sha256:
        raise ChecksumError(
            f"checksum mismatch for {path}: expected sha256 {expected_sha256} of the "
            f"uncompressed content, got {got}. The file is damaged or is a different "
            "version: delete it (it is downloaded again where possible) or pass "
            "verify=False to use it anyway."
        )
    _verified[key] = expected_sha256


def clear_verification_cache() -> None:
    """Forget which files were verified in this process (mainly for tests)."""
    _verified.clear()


def _compress_for(path: Path, content: bytes) -> bytes:
    """Compress ``content`` as ``path``'s suffix says (gzip -9 without name/time, xz)."""
    kind = _compression(path.name)
    if kind == "gz":
        return gzip.compress(content, compresslevel=9, mtime=0)
    if kind == "xz":
        return lzma.compress(content, preset=6)
    return content


def _http_get(url: str, timeout: float) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "olearn-datasets"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"could not download {url}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DownloadError(f"could not download {url}: {reason}") from exc


def download_file(
    spec: DataFile,
    data_home: str | os.PathLike,
    *,
    base_url: str | None = None,
    timeout: float = DOWNLOAD_TIMEOUT_S,
) -> Path:
    """Download ``spec`` into ``data_home``, check its sha256 and store it atomically.

    The file is fetched from ``<base_url>/<spec.path>`` when ``base_url`` is given (a
    data home served over HTTP, e.g. a copy of the project's shared data folder),
    otherwise from ``spec.download_url``. A ``.gz``/``.xz``/``.bz2`` payload is
    decompressed, the content is checked against ``spec.sha256`` and then written
    compressed as the stored name says (a payload that already has that compression is
    kept byte for byte), through a temporary file in the target
    folder and ``os.replace``: either the complete checked file appears or nothing.

    Raises :class:`DataNotFoundError` when there is nowhere to download from,
    :class:`DownloadError` on network/HTTP errors and :class:`ChecksumError` when the
    content differs (nothing is written then).
    """
    target = get_data_home(data_home) / spec.path
    if base_url:
        url = base_url.rstrip("/") + "/" + spec.path
    elif spec.download_url:
        url = spec.download_url
    else:
        raise DataNotFoundError(missing_file_message(spec, target))
    try:
        payload = _http_get(url, timeout)
    except DownloadError as exc:
        raise DownloadError(
            f"{exc}. The data file {target} is missing from the data home "
            f"{get_data_home(data_home)} and could not be fetched (offline?). Copy "
            f"'{spec.path}' there, set {ENV_DATA_HOME} (or data_home=) to a folder "
            f"holding it, or {ENV_BASE_URL} to a URL serving one."
        ) from exc
    compression = _compression(url.split("?")[0])
    try:
        content = _DECOMPRESS[compression](payload) if compression else payload
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise DownloadError(f"could not decompress the file downloaded from {url}: {exc}") from exc
    got = hashlib.sha256(content).hexdigest()
    if got != spec.sha256:
        raise ChecksumError(
            f"checksum mismatch for {spec.path} downloaded from {url}: expected sha256 "
            f"{spec.sha256} of the uncompressed content, got {got}; nothing was written."
        )
    # keep the payload as it is when it already has the stored compression
    stored = payload if compression == _compression(target.name) else _compress_for(target, content)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle = tempfile.NamedTemporaryFile(
            dir=target.parent, prefix="." + target.name + ".", suffix=".part", delete=False
        )
    except OSError as exc:
        raise unwritable_error(target, data_home, exc) from exc
    try:
        with handle:
            handle.write(stored)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)  # temporary files are created private (0600)
        os.replace(handle.name, target)
    except BaseException as exc:
        try:
            os.unlink(handle.name)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, DataFileError):
            raise unwritable_error(target, data_home, exc) from exc
        raise
    stat = target.stat()
    _verified[(str(target.resolve()), stat.st_size, stat.st_mtime_ns)] = spec.sha256
    return target


def unwritable_error(target: Path, data_home, exc: OSError) -> DataFileError:
    """The library's error for a download that cannot be stored."""
    return DataFileError(
        f"cannot write data file {target}: the data home {get_data_home(data_home)} is "
        f"not writable here ({type(exc).__name__}: {exc}). Set {ENV_DATA_HOME} (or "
        f"data_home=) to a writable folder, or put '{target.name}' there yourself."
    )


def missing_file_message(spec: DataFile, target: Path) -> str:
    """Explain where a missing file comes from and how to get it."""
    lines = [f"data file {target} is missing."]
    if spec.download_url:
        lines.append(
            f"It is downloaded automatically from {spec.download_url} when download=True."
        )
    else:
        lines.append(
            f"It cannot be downloaded automatically: olearn's copy was converted from the "
            f"original {spec.source_url}. Get the original and run {spec.conversion}."
        )
    lines.append(
        f"Alternatively set {ENV_DATA_HOME} to a folder holding '{spec.path}' (for example "
        f"the project's shared datasets folder) or {ENV_BASE_URL} to a URL serving such a folder."
    )
    return " ".join(lines)


def ensure_file(
    spec: DataFile,
    data_home: str | os.PathLike | None = None,
    *,
    download: bool = True,
    verify: bool = True,
    base_url: str | None = None,
) -> Path:
    """Path of ``spec`` in the data home: checked if present, else downloaded (if allowed)."""
    home = get_data_home(data_home)
    target = home / spec.path
    if target.is_file():
        if verify:
            verify_file(target, spec.sha256)
        return target
    base_url = base_url or os.environ.get(ENV_BASE_URL) or None
    if not download or not (base_url or spec.download_url):
        raise DataNotFoundError(missing_file_message(spec, target))
    return download_file(spec, home, base_url=base_url)
