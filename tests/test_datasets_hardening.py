"""Data layer hardening (issue 7, section 3): parse cache keyed by content,
clear errors for offline downloads, damaged compressed files and an unwritable
data home."""
from __future__ import annotations

import errno
import gzip
import os

import pytest

from olearn import datasets
from olearn.datasets import _fetch

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
