"""Text corpora as bag-of-words CSR matrices: 20 Newsgroups, Reuters-21578, movie reviews.

Documents are decoded as Latin-1 (every byte is a character, nothing fails). Features
(``features=`` of :func:`olearn.datasets.load`), fitted on the documents of the task:

``"binary"`` (default)
    0/1 word presence, as in "Online large-margin learning with regularization" (section 4:
    "removed the header of each text document and converted the remainder into a 0/1
    vector without stemming or a stoplist") and in AROW (binary bag of words):
    ``CountVectorizer(binary=True, lowercase=True, token_pattern=r"(?u)\\b\\w\\w+\\b",
    stop_words=None)`` - no stemming, no stop list, tokens of two or more word characters.
``"counts"``
    the same tokens, counted.
``"tfidf"``
    ``TfidfVectorizer`` with the same tokens (smooth idf, l2-normalised rows), the
    high-dimensional text stand-ins for the sparse confidence-weighted paper.

Parsed corpora are cached per process, keyed by the file's content identity (path,
size, inode, times: a repaired file is parsed again; see
:func:`olearn.datasets._fetch.cached_by_content`).
"""
from __future__ import annotations

import html
import re
import tarfile
import zipfile

import numpy as np

from ._fetch import cached_by_content
from ._base import Loaded, binary_labels
from ._numeric import _pick

FEATURES = ("binary", "counts", "tfidf")
TOKEN_PATTERN = r"(?u)\b\w\w+\b"


def vectorize(texts, features: str | None = "binary"):
    """Bag-of-words CSR matrix (float64) and vocabulary of ``texts`` (see module docstring)."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    features = features or "binary"
    if features not in FEATURES:
        raise ValueError(f"features must be one of {FEATURES}, got {features!r}")
    options = dict(lowercase=True, token_pattern=TOKEN_PATTERN, stop_words=None, dtype=np.float64)
    if features == "tfidf":
        vectorizer = TfidfVectorizer(**options)
    else:
        vectorizer = CountVectorizer(binary=features == "binary", **options)
    X = vectorizer.fit_transform(texts).tocsr()
    X.sort_indices()
    return X, vectorizer.get_feature_names_out()


def _subset_mask(split: np.ndarray, subset: str) -> np.ndarray:
    return np.ones(len(split), dtype=bool) if subset == "all" else split == subset


# ------------------------------------------------------------------- 20 Newsgroups
def strip_header(message: str) -> str:
    """The message without its header: everything up to the first blank line is dropped."""
    _, blank, body = message.partition("\n\n")
    return body if blank else message


@cached_by_content
def read_20newsgroups(path: str):
    """(texts without headers, newsgroup per text, "train"/"test" per text), tar order."""
    texts, groups, split = [], [], []
    with tarfile.open(path, "r:xz") as tar:
        for member in tar:
            if not member.isfile():
                continue
            top, group, _ = member.name.split("/", 2)
            message = tar.extractfile(member).read().decode("latin-1").replace("\r\n", "\n")
            texts.append(strip_header(message))
            groups.append(group)
            split.append("train" if top.endswith("train") else "test")
    return tuple(texts), np.array(groups, dtype=object), np.array(split)


def _newsgroups(paths, subset):
    texts, groups, split = read_20newsgroups(str(_pick(paths, "20news-bydate.tar.xz")))
    mask = _subset_mask(split, subset)
    return [t for t, m in zip(texts, mask) if m], groups[mask]


def load_20newsgroups(paths, subset, features=None):
    """All messages of the chosen part, 20 classes: y = newsgroup name."""
    texts, groups = _newsgroups(paths, subset)
    X, vocabulary = vectorize(texts, features)
    return Loaded(X, groups.copy(), vocabulary)


def newsgroups_binary_loader(positive: tuple, negative: tuple | None, sample: int | None = None):
    """Messages of the ``positive`` groups (+1) against those of ``negative`` (-1; None: all
    other groups); optionally a fixed random sample of ``sample`` messages
    (``numpy.random.default_rng(0)``, kept in corpus order). Vocabulary fitted on them."""

    def load(paths, subset, features=None):
        texts, groups = _newsgroups(paths, subset)
        keep = np.isin(groups, positive) | (np.isin(groups, negative) if negative else True)
        rows = np.flatnonzero(keep)
        if sample is not None:
            rows = np.sort(np.random.default_rng(0).choice(rows, sample, replace=False))
        X, vocabulary = vectorize([texts[i] for i in rows], features)
        return Loaded(X, binary_labels(np.isin(groups[rows], positive)), vocabulary, groups[rows])

    return load


# ------------------------------------------------------------------ Reuters-21578
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')
_TAG = re.compile(r"<[^>]+>")
_TOPIC = re.compile(r"<D>(.*?)</D>")


def _element(name: str, text: str) -> str:
    """Content of the first <name ...>...</name> element of ``text`` ("" if absent)."""
    start = text.find("<" + name)
    while start >= 0 and text[start + len(name) + 1: start + len(name) + 2] not in (">", " "):
        start = text.find("<" + name, start + 1)
    if start < 0:
        return ""
    start = text.index(">", start) + 1
    end = text.find(f"</{name}>", start)
    return text[start:end] if end >= 0 else text[start:]


def reuters_text(document: str) -> str:
    """TITLE and BODY of a <REUTERS> element (entities decoded); documents without a BODY
    (TEXT TYPE="BRIEF" or "UNPROC") give the whole <TEXT> with its tags removed."""
    text = _element("TEXT", document)
    body = _element("BODY", text)
    plain = f"{_element('TITLE', text)}\n{body}" if body else _TAG.sub(" ", text)
    plain = plain.replace("&#3;", " ")
    return html.unescape(plain) if "&" in plain else plain


@cached_by_content
def read_reuters21578(path: str):
    """(texts, topics tuple per text, LEWISSPLIT per text, NEWID per text), NEWID order."""
    records = []
    with tarfile.open(path, "r:xz") as tar:
        for member in tar:
            if not member.isfile() or not member.name.endswith(".sgm"):
                continue
            sgml = tar.extractfile(member).read().decode("latin-1")
            for chunk in sgml.split("</REUTERS>"):
                start = chunk.find("<REUTERS ")
                if start < 0:
                    continue
                head_end = chunk.index(">", start)
                attributes = dict(_ATTRIBUTE.findall(chunk, start, head_end))
                document = chunk[head_end + 1:]
                topics = tuple(_TOPIC.findall(_element("TOPICS", document)))
                records.append((int(attributes["NEWID"]), reuters_text(document), topics,
                                attributes["LEWISSPLIT"]))
    records.sort()
    newid, texts, topics, split = zip(*records)
    topics_array = np.empty(len(topics), dtype=object)
    topics_array[:] = topics
    return tuple(texts), topics_array, np.array(split), np.array(newid)


_LEWIS = {"train": "TRAIN", "test": "TEST"}


def _reuters(paths, subset):
    texts, topics, split, _ = read_reuters21578(str(_pick(paths, "reuters21578-sgm.tar.xz")))
    mask = np.ones(len(texts), dtype=bool) if subset == "all" else split == _LEWIS[subset]
    return [t for t, m in zip(texts, mask) if m], topics[mask]


def load_reuters21578(paths, subset, features=None):
    """All 21578 stories (or LEWISSPLIT TRAIN / TEST): y = tuple of TOPICS categories
    (multi-label, possibly empty), object array."""
    texts, topics = _reuters(paths, subset)
    X, vocabulary = vectorize(texts, features)
    return Loaded(X, topics.copy(), vocabulary)


def reuters_topic_loader(topic: str):
    """Stories with at least one TOPICS category; y = +1 when ``topic`` is among them."""

    def load(paths, subset, features=None):
        texts, topics = _reuters(paths, subset)
        rows = [i for i, t in enumerate(topics) if t]
        X, vocabulary = vectorize([texts[i] for i in rows], features)
        y = binary_labels([topic in topics[i] for i in rows])
        return Loaded(X, y, vocabulary)

    return load


# ----------------------------------------------------------------- movie reviews
@cached_by_content
def read_movie_reviews(path: str):
    """(texts, 'pos'/'neg' per text), in zip order (neg cv000-cv999, then pos)."""
    texts, labels = [], []
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            parts = name.split("/")
            if len(parts) == 3 and parts[1] in ("pos", "neg") and parts[2].endswith(".txt"):
                texts.append(archive.read(name).decode("latin-1"))
                labels.append(parts[1])
    return tuple(texts), np.array(labels, dtype=object)


def load_movie_reviews(paths, subset, features=None):
    """Pang & Lee polarity v2.0: 1000 positive, 1000 negative reviews; y = 'pos' / 'neg'."""
    texts, labels = read_movie_reviews(str(_pick(paths, "movie_reviews.zip")))
    X, vocabulary = vectorize(list(texts), features)
    return Loaded(X, labels.copy(), vocabulary)
