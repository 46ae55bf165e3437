"""Data layer hardening (issue 7, section 3): parse cache keyed by content,
clear errors for offline downloads, damaged compressed files and an unwritable
data home."""
from __future__ import annotations

import dataclasses
import errno
import gzip
import hashlib
import io
import lzma
import os
import zipfile

import pytest

from olearn import datasets
from olearn.datasets import _fetch, _numeric, _registry, _text

from test_datasets import TINY_CSV, _Server, _leftovers, _tiny_registry  # noqa: F401


def test_parse_cache_follows_the_content(monkeypatch, tmp_path):
    """A repaired file kept serving the damaged parse (the cache was keyed by path)."""
    rel, _ = _tiny_registry(monkeypatch, TINY_CSV, None)
    path = tmp_path / rel
    path.parent.mkdir()
    path.write_bytes(gzip.compress(TINY_CSV.replace(b"2.5", b"2.6")))
    assert datasets.load("tiny-spambase", data_home=tmp_path, verify=False).X[1, 2] == 2.6
    path.write_bytes(gzip.compress(TINY_CSV))               # repaired, same size
    assert datasets.load("tiny-spambase", data_home=tmp_path).X[1, 2] == 2.5
    assert datasets.load("tiny-spambase", data_home=tmp_path, verify=False).X[1, 2] == 2.5


def test_offline_download_names_file_home_and_variable(monkeypatch, tmp_path):
    """The network failure message named only the URL."""
    _tiny_registry(monkeypatch, TINY_CSV, "http://127.0.0.1:9/spambase.data")
    monkeypatch.delenv("OLEARN_BASE_URL", raising=False)
    home = tmp_path / "home"
    with pytest.raises(datasets.DownloadError) as error:
        datasets.load("tiny-spambase", data_home=home)
    message = str(error.value)
    assert "http://127.0.0.1:9/spambase.data" in message
    assert str(home / "tiny-spambase" / "spambase.data.gz") in message
    assert str(home) in message and "OLEARN_DATA_HOME" in message
    assert "download=False" not in message or "offline" in message


@pytest.mark.parametrize("damage", ["truncated gzip", "not gzip"])
@pytest.mark.parametrize("verify", [True, False])
def test_damaged_compressed_file_raises_the_library_error(monkeypatch, tmp_path,
                                                          damage, verify):
    """A truncated gzip raised a bare EOFError, a non-gzip file BadGzipFile."""
    rel, _ = _tiny_registry(monkeypatch, TINY_CSV, None)
    path = tmp_path / rel
    path.parent.mkdir()
    data = gzip.compress(TINY_CSV)
    path.write_bytes(data[:len(data) // 2] if damage == "truncated gzip" else TINY_CSV)
    datasets.clear_verification_cache()
    with pytest.raises(datasets.DataFileError) as error:
        datasets.load("tiny-spambase", data_home=tmp_path, verify=verify)
    message = str(error.value)
    assert str(path) in message and "elete" in message     # names the file and the fix
    assert "OLEARN_DATA_HOME" in message


def test_unwritable_data_home_raises_the_library_error(monkeypatch, tmp_path):
    """A read-only data home raised a bare OSError from deep inside the download."""
    root = tmp_path / "served"
    root.mkdir()
    (root / "spambase.data").write_bytes(TINY_CSV)
    running = _Server(root)
    try:
        _tiny_registry(monkeypatch, TINY_CSV, running.url + "/spambase.data")

        def read_only(*args, **kwargs):
            raise OSError(errno.EROFS, "Read-only file system")

        monkeypatch.setattr(_fetch.tempfile, "NamedTemporaryFile", read_only)
        home = tmp_path / "home"
        with pytest.raises(datasets.DataFileError) as error:
            datasets.load("tiny-spambase", data_home=home)
        message = str(error.value)
        assert str(home / "tiny-spambase" / "spambase.data.gz") in message
        assert "Read-only" in message and "OLEARN_DATA_HOME" in message
        assert isinstance(error.value, OSError)
    finally:
        running.close()


def test_garbage_inside_a_valid_gzip_names_the_file(monkeypatch, tmp_path):
    """verify=False on a gzip of the wrong content raised pandas' ParserError
    (or a UnicodeDecodeError) that named no file."""
    rel, _ = _tiny_registry(monkeypatch, TINY_CSV, None)
    path = tmp_path / rel
    path.parent.mkdir()
    for content in (b'0.1,0,1.5,1\n0,0.2\n"0.3,0.3,0.5,1,7,8\n', b"\x00\xff junk\n" * 3):
        path.write_bytes(gzip.compress(content))
        datasets.clear_verification_cache()
        with pytest.raises(datasets.DataFileError) as error:
            datasets.load("tiny-spambase", data_home=tmp_path, verify=False)
        message = str(error.value)
        assert str(path) in message and "verify=True" in message and "elete" in message
        with pytest.raises(datasets.ChecksumError):          # what verify=True says
            datasets.load("tiny-spambase", data_home=tmp_path)


def test_truncated_zip_names_the_file(monkeypatch, tmp_path):
    """verify=False on a truncated zip raised a bare zipfile.BadZipFile."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for i, label in enumerate(["pos", "neg"] * 3):
            archive.writestr(f"movie_reviews/{label}/cv{i:03d}.txt", f"a {label} review {i}")
    content = buffer.getvalue()
    rel = "tiny-movies/movie_reviews.zip"
    spec = datasets.DataFile(rel, hashlib.sha256(content).hexdigest(), len(content),
                             source_url="https://example.org/movie_reviews.zip")
    entry = _registry.Entry("tiny-movies", "raw", (rel,), _text.load_movie_reviews,
                            "tiny test corpus", "https://example.org/", text=True)
    monkeypatch.setitem(_registry.FILES, rel, spec)
    monkeypatch.setitem(_registry.REGISTRY, "tiny-movies", entry)
    path = tmp_path / rel
    path.parent.mkdir()
    path.write_bytes(content)
    assert datasets.load("tiny-movies", data_home=tmp_path).X.shape[0] == 6
    path.write_bytes(content[:len(content) // 2])
    datasets.clear_verification_cache()
    with pytest.raises(datasets.DataFileError) as error:
        datasets.load("tiny-movies", data_home=tmp_path, verify=False)
    message = str(error.value)
    assert str(path) in message and "BadZipFile" in message and "verify=True" in message
    with pytest.raises(datasets.ChecksumError):
        datasets.load("tiny-movies", data_home=tmp_path)


def test_content_of_the_wrong_shape_names_the_files(monkeypatch, tmp_path):
    """Rows that parse but fail the loader's own checks (adult's unexpected
    values, a missing column) name the files too."""
    rel, _ = _tiny_registry(monkeypatch, TINY_CSV, None)

    def three_features(paths, subset, features=None):
        loaded = _numeric.load_spambase(paths, subset)
        if loaded.X.shape[1] != 3:
            raise ValueError(f"expected 3 feature columns, got {loaded.X.shape[1]}")
        return loaded

    entry = _registry.REGISTRY["tiny-spambase"]
    monkeypatch.setitem(_registry.REGISTRY, "tiny-spambase",
                        dataclasses.replace(entry, loader=three_features))
    path = tmp_path / rel
    path.parent.mkdir()
    path.write_bytes(gzip.compress(b"1,2\n3,4\n"))
    with pytest.raises(datasets.DataFileError) as error:
        datasets.load("tiny-spambase", data_home=tmp_path, verify=False)
    message = str(error.value)
    assert str(path) in message and "expected 3" in message and "verify=True" in message


# -- issue 26 item 4: a damaged file never loads as data (verify=False) --------
def _wrapped(rel: str, content: bytes) -> bytes:
    """``content`` in the container ``rel`` names: a valid gzip, xz or zip."""
    if rel.endswith(".gz"):
        return gzip.compress(content)
    if rel.endswith(".xz"):
        return lzma.compress(content)
    if rel.endswith(".zip"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("junk.txt", content)
        return buffer.getvalue()
    return content


DAMAGES = {"0 bytes": None, "binary garbage": b"\x00\xff junk garbage\nmore garbage\n",
           "text garbage": b"hello world\nfoo bar\n"}
# every file a loader parses (the .names files are documentation, never read)
PARSED_FILES = sorted({(entry.name, rel) for entry in _registry.REGISTRY.values()
                       if entry.kind == "raw" for rel in entry.files
                       if not rel.endswith(".names")})


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("name, rel", PARSED_FILES)
def test_a_damaged_file_of_any_format_raises_data_file_error(name, rel, damage, tmp_path,
                                                             data_home, require_data):
    """verify=False loaded a 0-byte german.numer.gz as 0 x 24, garbage inside a valid
    house-votes-84.data.gz as 2 x 0 with the garbage as labels, and a 0-byte or
    garbage .tar.xz raised a bare tarfile.ReadError; a 0-byte part of a split set
    (w7a.t.gz, adult.test.gz) silently loaded the other part as 'all'."""
    require_data(name)
    entry = datasets.info(name)
    for other in entry.files:
        (tmp_path / other).parent.mkdir(parents=True, exist_ok=True)
        if other != rel:
            os.symlink(data_home / other, tmp_path / other)
    content = DAMAGES[damage]
    (tmp_path / rel).write_bytes(b"" if content is None else _wrapped(rel, content))
    datasets.clear_verification_cache()
    subset = "all" if "all" in entry.subsets else None
    with pytest.raises(datasets.DataFileError) as error:
        datasets.load(name, subset=subset, data_home=tmp_path, download=False, verify=False)
    message = str(error.value)
    assert str(tmp_path / rel) in message and "verify=True" in message
