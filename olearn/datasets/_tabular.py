"""Loaders for the UCI tables with categorical attributes: Adult, Congressional Voting
Records (house-votes-84), Credit Approval (crx), Breast Cancer Wisconsin, Nursery.

Encodings (documented per loader):

* one-hot: one 0/1 column per attribute value (``attribute=value``); a missing value
  ('?') gives an all-zero block for that attribute;
* the *single-pass* tasks follow Carvalho & Cohen, "Notes on single-pass online learning"
  (CMU-LTI-06-002), section 4.1: rows with missing values are dropped and nominal
  attributes turned into binary ones, giving the sizes the report states
  (Adult 30162 x 104, Credit 653 x 46, WiscBreast 683 x 89, Congressional 435 x 16).
"""
from __future__ import annotations


import numpy as np
import scipy.sparse as sp

from ._fetch import cached_by_content
from ._base import Loaded, binary_labels
from ._numeric import _pick

MISSING = "?"

# ---------------------------------------------------------------------------- Adult
ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
)
# Attribute values in the order of UCI's adult.names (the order of the LIBSVM a-series).
ADULT_CATEGORIES = {
    "workclass": "Private Self-emp-not-inc Self-emp-inc Federal-gov Local-gov State-gov "
    "Without-pay Never-worked",
    "education": "Bachelors Some-college 11th HS-grad Prof-school Assoc-acdm Assoc-voc 9th "
    "7th-8th 12th Masters 1st-4th 10th Doctorate 5th-6th Preschool",
    "marital-status": "Married-civ-spouse Divorced Never-married Separated Widowed "
    "Married-spouse-absent Married-AF-spouse",
    "occupation": "Tech-support Craft-repair Other-service Sales Exec-managerial "
    "Prof-specialty Handlers-cleaners Machine-op-inspct Adm-clerical Farming-fishing "
    "Transport-moving Priv-house-serv Protective-serv Armed-Forces",
    "relationship": "Wife Own-child Husband Not-in-family Other-relative Unmarried",
    "race": "White Asian-Pac-Islander Amer-Indian-Eskimo Other Black",
    "sex": "Female Male",
    "native-country": "United-States Cambodia England Puerto-Rico Canada Germany "
    "Outlying-US(Guam-USVI-etc) India Japan Greece South China Cuba Iran Honduras "
    "Philippines Italy Poland Jamaica Vietnam Mexico Portugal Ireland France "
    "Dominican-Republic Laos Ecuador Taiwan Haiti Columbia Hungary Guatemala Nicaragua "
    "Scotland Thailand Yugoslavia El-Salvador Trinadad&Tobago Peru Hong Holand-Netherlands",
}
ADULT_CATEGORIES = {k: tuple(v.split()) for k, v in ADULT_CATEGORIES.items()}
# Bin edges of the continuous attributes in the LIBSVM a-series coding (Platt 1998):
# quintiles of adult.data, tied quantiles moved up to the next value, so that a value v
# falls in bin searchsorted(edges, v, side="right"); capital gain/loss: zero / non-zero.
# These reproduce a1a exactly (every a1a row is a row of our coding, see the tests).
ADULT_BIN_EDGES = {
    "age": (26, 33, 41, 50),
    "fnlwgt": (106648, 158662, 196338, 259873),
    "education-num": (9, 10, 11, 13),
    "capital-gain": (1,),
    "capital-loss": (1,),
    "hours-per-week": (35, 40, 41, 48),
}
ADULT_CONTINUOUS = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")


@cached_by_content
def _read_adult(path: str):
    import pandas as pd

    frame = pd.read_csv(
        path, header=None, names=ADULT_COLUMNS, skipinitialspace=True, comment="|",
        dtype=str, keep_default_na=False, skip_blank_lines=True,
    )
    frame["income"] = frame["income"].str.rstrip(".")  # adult.test writes '>50K.'
    return frame


def _adult_frame(paths, subset):
    import pandas as pd

    files = {"train": ["adult.data.gz"], "test": ["adult.test.gz"]}
    files["all"] = files["train"] + files["test"]
    frames = [_read_adult(str(_pick(paths, f))) for f in files[subset]]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].copy()


def _bin_names(column, edges):
    if len(edges) == 1:
        return [f"{column}=0", f"{column}>0"]
    bounds = [None, *edges, None]
    return [
        f"{column}<{hi}" if lo is None else f"{column}>={lo}" if hi is None else f"{lo}<={column}<{hi}"
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]


def binarize_adult(frame):
    """The 123-column 0/1 coding of the LIBSVM a-series (a1a ... a9a), as CSR.

    Columns, in order: age (5 bins), workclass (8), fnlwgt (5), education (16),
    education-num (5), marital-status (7), occupation (14), relationship (6), race (5),
    sex (2), capital-gain (2: zero / non-zero), capital-loss (2), hours-per-week (5),
    native-country (41). Continuous attributes are cut at :data:`ADULT_BIN_EDGES`
    (quintiles of adult.data); a missing value ('?') sets no column of its attribute.
    """
    blocks_rows, blocks_cols, names, offset = [], [], [], 0
    rows = np.arange(len(frame))
    for column in ADULT_COLUMNS[:-1]:
        values = frame[column].to_numpy()
        if column in ADULT_BIN_EDGES:
            edges = ADULT_BIN_EDGES[column]
            index = np.searchsorted(edges, values.astype(np.float64), side="right")
            present = np.ones(len(values), dtype=bool)
            labels = _bin_names(column, edges)
        else:
            categories = ADULT_CATEGORIES[column]
            lookup = {c: i for i, c in enumerate(categories)}
            unknown = set(values) - set(lookup) - {MISSING}
            if unknown:
                raise ValueError(f"adult: unexpected {column} values {sorted(unknown)}")
            index = np.array([lookup.get(v, -1) for v in values])
            present = index >= 0
            labels = [f"{column}={c}" for c in categories]
        blocks_rows.append(rows[present])
        blocks_cols.append(offset + index[present])
        names.extend(labels)
        offset += len(labels)
    r, c = np.concatenate(blocks_rows), np.concatenate(blocks_cols)
    X = sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(len(frame), offset), dtype=np.float64)
    X.sort_indices()
    return X, np.array(names)


def load_adult(paths, subset, features=None):
    """UCI Adult in the 123-feature binary coding of the LIBSVM a-series (CSR).

    y is the original income class, '<=50K' or '>50K' (the test file's trailing '.' removed).
    """
    frame = _adult_frame(paths, subset)
    X, names = binarize_adult(frame)
    return Loaded(X, frame["income"].to_numpy(dtype=object), names)


A7A_SIZE = 16100
A7A_SEED = 0


def load_adult_a7a(paths, subset, features=None):
    """An a7a-like sample: 16100 rows of adult.data (as LIBSVM's a7a), 123-feature coding.

    Rows are ``numpy.random.default_rng(0).choice(32561, 16100, replace=False)``, kept in
    file order; y = +1 for income '>50K', else -1. LIBSVM's own split is not published,
    so the rows differ from a7a's, the coding is the same.
    """
    frame = _adult_frame(paths, "train")
    rows = np.sort(np.random.default_rng(A7A_SEED).choice(len(frame), A7A_SIZE, replace=False))
    X, names = binarize_adult(frame)
    return Loaded(X[rows], binary_labels(frame["income"].to_numpy()[rows] == ">50K"), names)


def _one_hot(frame, nominal, continuous, order=None):
    """Dense matrix: continuous columns as numbers, nominal ones one-hot (observed values).

    Columns follow ``frame``'s column order; a nominal attribute's values are taken in
    ``order[column]`` when given, else sorted (numerically when they are numbers).
    """
    columns, names = [], []
    for column in frame.columns:
        values = frame[column].to_numpy()
        if column in continuous:
            columns.append(values.astype(np.float64)[:, None])
            names.append(str(column))
        elif column in nominal:
            observed = set(values) - {MISSING}
            if order and column in order:
                categories = [c for c in order[column] if c in observed]
            else:
                categories = sorted(observed, key=_natural_key)
            columns.append((values[:, None] == np.array(categories, dtype=object)[None, :]).astype(np.float64))
            names.extend(f"{column}={c}" for c in categories)
    return np.hstack(columns), np.array(names)


def _natural_key(value):
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)


def load_adult_single_pass(paths, subset, features=None):
    """Adult as in Carvalho & Cohen (single-pass online learning, section 4.1).

    Training file only, rows with a missing value dropped (30162 rows); the 8 nominal
    attributes one-hot over the values present (98 columns), the 6 continuous ones kept
    as numbers (not scaled), in file column order: 104 columns, dense.
    y = +1 for income '>50K', else -1.
    """
    frame = _adult_frame(paths, "train")
    complete = ~(frame == MISSING).any(axis=1).to_numpy()
    frame = frame[complete]
    features_frame = frame.drop(columns="income")
    nominal = [c for c in ADULT_COLUMNS[:-1] if c not in ADULT_CONTINUOUS]
    X, names = _one_hot(features_frame, nominal, ADULT_CONTINUOUS, ADULT_CATEGORIES)
    return Loaded(X, binary_labels(frame["income"].to_numpy() == ">50K"), names)


# --------------------------------------------------------------------- small UCI sets
@cached_by_content
def _read_csv(path: str):
    import pandas as pd

    return pd.read_csv(path, header=None, dtype=str, keep_default_na=False, skip_blank_lines=True)


VOTE_CODES = {"y": 1.0, "n": -1.0, MISSING: 0.0}


PARTIES = ("democrat", "republican")


def _house_votes(paths):
    frame = _read_csv(str(_pick(paths, "house-votes-84.data.gz")))
    if frame.shape[1] != 17:
        raise ValueError(f"expected 17 columns (party and 16 votes), got {frame.shape[1]}")
    unknown = sorted(set(frame.iloc[:, 0]) - set(PARTIES))
    if unknown:
        raise ValueError(f"expected parties {PARTIES}, got {unknown[:3]}")
    votes = frame.iloc[:, 1:].to_numpy()
    X = np.vectorize(VOTE_CODES.__getitem__, otypes=[np.float64])(votes)
    names = np.array([f"vote{j}" for j in range(1, 17)])
    return X, frame.iloc[:, 0].to_numpy(dtype=object), names


def load_house_votes(paths, subset, features=None):
    """Congressional Voting Records 1984: 16 votes coded y -> +1, n -> -1, ? -> 0 (dense).

    y is the party, 'democrat' or 'republican'.
    """
    X, party, names = _house_votes(paths)
    return Loaded(X, party, names)


def load_house_votes_single_pass(paths, subset, features=None):
    """Congressional (single-pass paper): the 16 votes as in ``house-votes-84`` (435 rows,
    none dropped: '?' is coded 0); y = +1 for republican, -1 for democrat."""
    X, party, names = _house_votes(paths)
    return Loaded(X, binary_labels(party == "republican"), names)


CRX_NOMINAL = ("A1", "A4", "A5", "A6", "A7", "A9", "A10", "A12", "A13")
CRX_CONTINUOUS = ("A2", "A3", "A8", "A11", "A14", "A15")


def _crx_frame(paths):
    frame = _read_csv(str(_pick(paths, "crx.data.gz"))).copy()
    frame.columns = [f"A{j}" for j in range(1, 17)]
    return frame


def _impute_median(frame, columns):
    frame = frame.copy()
    for column in columns:
        values = frame[column]
        median = np.median(values[values != MISSING].astype(np.float64))
        frame[column] = values.where(values != MISSING, repr(float(median)))
    return frame


def load_crx(paths, subset, features=None):
    """Credit Approval (crx), all 690 rows, dense.

    Continuous A2, A3, A8, A11, A14, A15 as numbers (a missing value replaced by the
    column median); nominal A1, A4-A7, A9, A10, A12, A13 one-hot over their observed
    values, sorted (a missing value gives an all-zero block): 46 columns.
    y is the class, '+' or '-'.
    """
    frame = _impute_median(_crx_frame(paths), CRX_CONTINUOUS)
    X, names = _one_hot(frame.drop(columns="A16"), CRX_NOMINAL, CRX_CONTINUOUS)
    return Loaded(X, frame["A16"].to_numpy(dtype=object), names)


def load_crx_single_pass(paths, subset, features=None):
    """Credit (single-pass paper): rows with a missing value dropped (653 rows), nominal
    attributes one-hot over the values present, continuous ones as numbers: 46 columns.
    y = +1 for class '+', -1 for '-'."""
    frame = _crx_frame(paths)
    frame = frame[~(frame == MISSING).any(axis=1).to_numpy()]
    X, names = _one_hot(frame.drop(columns="A16"), CRX_NOMINAL, CRX_CONTINUOUS)
    return Loaded(X, binary_labels(frame["A16"].to_numpy() == "+"), names)


BCW_ATTRIBUTES = (
    "clump_thickness", "uniformity_of_cell_size", "uniformity_of_cell_shape",
    "marginal_adhesion", "single_epithelial_cell_size", "bare_nuclei", "bland_chromatin",
    "normal_nucleoli", "mitoses",
)


def _bcw_frame(paths):
    frame = _read_csv(str(_pick(paths, "breast-cancer-wisconsin.data.gz"))).copy()
    frame.columns = ["id", *BCW_ATTRIBUTES, "class"]
    return frame.drop(columns="id")


def load_breast_cancer_wisconsin(paths, subset, features=None):
    """Breast Cancer Wisconsin (Original), all 699 rows: the sample id dropped, the 9
    attributes (integers 1-10) as numbers; the 16 missing Bare Nuclei values replaced by
    that column's median (1). Dense 699 x 9. y is the class, 2 (benign) or 4 (malignant)."""
    frame = _impute_median(_bcw_frame(paths), BCW_ATTRIBUTES)
    X = frame[list(BCW_ATTRIBUTES)].to_numpy().astype(np.float64)
    return Loaded(X, frame["class"].to_numpy().astype(np.int64), np.array(BCW_ATTRIBUTES))


def load_breast_cancer_wisconsin_single_pass(paths, subset, features=None):
    """WiscBreast (single-pass paper): rows with a missing value dropped (683 rows), each
    of the 9 integer attributes one-hot over its observed values: 89 columns, dense.
    y = +1 for malignant (class 4), -1 for benign (2)."""
    frame = _bcw_frame(paths)
    frame = frame[~(frame == MISSING).any(axis=1).to_numpy()]
    X, names = _one_hot(frame.drop(columns="class"), BCW_ATTRIBUTES, ())
    return Loaded(X, binary_labels(frame["class"].to_numpy() == "4"), names)


NURSERY_ATTRIBUTES = ("parents", "has_nurs", "form", "children", "housing", "finance", "social", "health")


def _nursery(paths):
    frame = _read_csv(str(_pick(paths, "nursery.data.gz"))).copy()
    frame.columns = [*NURSERY_ATTRIBUTES, "class"]
    # values in order of first appearance = the order of UCI's nursery.names
    order = {c: list(dict.fromkeys(frame[c])) for c in NURSERY_ATTRIBUTES}
    X, names = _one_hot(frame.drop(columns="class"), NURSERY_ATTRIBUTES, (), order)
    return X, frame["class"].to_numpy(dtype=object), names


def load_nursery(paths, subset, features=None):
    """Nursery: 8 nominal attributes one-hot (27 columns, dense), y = one of the 5 classes
    (not_recom, recommend, very_recom, priority, spec_prior)."""
    return Loaded(*_nursery(paths))


def load_nursery_priority(paths, subset, features=None):
    """Nursery (single-pass paper): "distinguish between 'priority' and the other classes":
    y = +1 for class priority, -1 otherwise; 12960 x 27 one-hot (the report's '89
    features' cannot be obtained from 8 attributes with 27 values in all)."""
    X, label, names = _nursery(paths)
    return Loaded(X, binary_labels(label == "priority"), names)
