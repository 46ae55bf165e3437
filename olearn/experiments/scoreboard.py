"""The reproduction scoreboard: the rule table, the row builder and the rendering.

The claims themselves live in one module per paper (:mod:`olearn.experiments.board`:
``carvalho2006``, ``shen2009``, ``crammer2009``, ``tan2016``, ``zhao2009``); each row is
computed from the stored full runs in ``book/results/`` and judged by one rule of
:data:`RULES`, which the row names in its ``rule`` column. The book's page
``book/scoreboard.ipynb`` calls :func:`scoreboard`, states the rules from :data:`RULES`
(:func:`rules_table`) and shows the board.

**One rule per kind of claim** (:data:`RULES`). A claim is judged case by case (a data set,
a noise level, a stream): each case *holds*, *fails*, or is a *tie* (inside the rule's
tolerance, or inside the noise where per-fold or per-trial numbers are stored: the 95%
interval of the difference contains zero: :func:`paired_interval`, the board's one noise
test, :data:`NOISE_RULE`: on the folds of a cross-validation, whose interval is meant to cover
a new draw of the data, corrected for the training rows the folds share, :func:`cv_interval`;
over independent trials from a fixed pool and over permutations, whose interval covers another
draw or order of the same pool, the plain paired t-interval; a paper's published mean +-
spread by :func:`unpaired_interval` with the same choice for its units). A quantifier then turns the cases into a verdict (:func:`all_cases`,
:func:`most_cases`, :func:`almost_all_cases`): "reproduces", "in part", "does not" or
"inconclusive", with the meanings of :data:`VERDICT_MEANINGS` (the quantifier asks for a
share of the cases; "inconclusive": the holding cases miss the share but the ties decide it;
under "most" and "almost all" a "does not" may have holding cases and an "inconclusive"
failing ones; tests/test_scoreboard.py checks the functions against these meanings).
"Comparable" is within :data:`POINTS` percentage point(s) everywhere, and "A
beats B" means by more than that (or, with intervals, beyond the noise); times are ties within
:data:`TIME_TOLERANCE` (relative), and times below :data:`TIME_RESOLUTION` seconds are not
compared at all.

**The paper's own outcome beside ours.** Where the paper gives numbers for the data sets we
run, the same rule is applied to them (``paper_verdict``); the board's verdict is ours, and a
row whose failure matches the paper's own outcome on these sets says so
(:func:`outcome_note`). Columns: ``id`` (stable: ``paper:section:short-name``), ``paper``
(BibTeX key; the tables a reader sees name the paper by :data:`PAPER_NAMES`), ``section``,
``where``, ``kind``, ``claim`` (quoted with its qualifiers), ``paper_says``, ``ours``,
``paper_key`` and ``ours_key`` (one key number each), ``rule`` (a key of :data:`RULES`),
``verdict`` (:data:`VERDICTS`), ``paper_verdict``, ``why``, ``page``, ``cause``
(:data:`CAUSES`, for every "does not" and "in part") and ``alternative`` (the verdict under
another reading).

Rows for data we do not have (``kind == "no data"``) are placeholders, not experimental
claims: :func:`counts` keeps them apart. Every table and figure a paper has a caption for is
named in some row's ``where`` (:func:`captions`, :func:`cited`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

VERDICTS = ("reproduces", "in part", "does not", "inconclusive", "cannot be tested here")
COLUMNS = ("id", "paper", "section", "where", "kind", "claim", "paper_says", "ours", "paper_key",
           "ours_key", "rule", "verdict", "paper_verdict", "why", "page", "cause", "alternative")
#: the causes of a "does not" or "in part" (the ``cause`` column starts with one of them)
CAUSES = ("real non-reproduction", "stand-in data", "protocol difference",
          "implementation-dependent", "suspected defect", "the theorem is false")
#: the kinds of rows that are not experiments (counted apart by :func:`counts`): formal rows
#: and the placeholders for data we do not have
NON_EXPERIMENTAL = ("definition", "theorem", "setting", "no data")
FORMAL = ("definition", "theorem", "setting")
#: "comparable" accuracy, error or F1: within this many percentage points; "A beats B": by
#: more than this (the one tolerance of every point comparison on the board)
POINTS = 1.0
COMPARABLE_POINTS = POINTS            # the former name
#: two times closer than this relative difference are a tie (timings of compiled code on a
#: shared machine vary by this much between repeated runs)
TIME_TOLERANCE = 0.25
#: times below this many seconds are timer noise on a shared machine: not compared
TIME_RESOLUTION = 0.01
#: "comparable" time (DUOL "efficiency comparable to PA"): within this factor
COMPARABLE_TIME = 2.0
#: the tolerance of a *trend* of mean ranks (a tenth of a rank: over 119 tasks, about twelve
#: tasks moving one place); the ranking rule ("A has the best rank") uses none (equal mean
#: ranks are a tie), and a row where a gap below it decides says so in its alternative
RANK_TOLERANCE = 0.1
#: "almost all": all cases but at most this share of them (and at least one)
ALMOST_ALL_SHARE = 0.1
PAPERS = ("carvalho2006single", "shen2009regularized", "crammer2009arow", "tan2016sparse",
          "zhao2009duol")
#: How the tables a reader sees name each paper: author-year, the authors as in the book's
#: ``references.bib`` (up to three named, "et al." from four; tests/test_scoreboard.py checks
#: the names against it). The board keeps the BibTeX keys for filters and links.
PAPER_NAMES = {"carvalho2006single": "Carvalho and Cohen (2006)",
               "shen2009regularized": "Shen and Dietterich (2009)",
               "crammer2009arow": "Crammer, Kulesza and Dredze (2009)",
               "tan2016sparse": "Tan et al. (2016)",
               "zhao2009duol": "Zhao, Hoi and Jin (2009)"}
#: the short paper names of the row identifiers (``id``: ``short:section:name``)
ID_PREFIX = {"carvalho2006single": "carvalho2006", "shen2009regularized": "shen2009",
             "crammer2009arow": "crammer2009", "tan2016sparse": "tan2016",
             "zhao2009duol": "zhao2009"}
_CLAIMS_WORDS = {"yes": "reproduces", "partly": "in part", "no": "does not"}
#: The board's one noise rule, one interval per kind of unit (:func:`paired_interval`; shown
#: on the scoreboard page). The two intervals differ by what they are meant to cover: the
#: folds of one cross-validation partition one sample, so given that sample their only
#: randomness is the split and the spread between folds is the data's own variation; their
#: interval is meant to cover a new draw of a data set of that size (the corrected one,
#: heuristically). Independent trials drawn from a fixed pool and permutations of one stream
#: are independent draws given the pool or file: their interval covers another draw or order
#: of the same pool (the plain one), even where two trials share rows (they are judged given
#: the pool). A published mean +- spread is judged the same way by the kind of its units
#: (:func:`unpaired_interval`).
NOISE_RULE = ("a case is inside the noise (a tie) when the 95% interval of the mean paired "
              "difference contains zero (Student t, n - 1 degrees of freedom). Over independent "
              "trials drawn from a fixed pool and over permutations of one stream (or of one "
              "training file with a fixed test file) the units are independent given the pool "
              "or file, and the plain paired t-interval covers another split of the same pool "
              "(another draw, another order), not a new sample of the data, even where two "
              "trials' streams share rows. The k folds of one cross-validation are not "
              "independent given the sample (one partition, overlapping training sets), so the "
              "plain interval has no exact reading even for another split: the board reads "
              "them as covering a "
              "new draw of the data and widens the variance s^2/k to s^2 (1/k + "
              "n_test/n_train), n_test/n_train = 1/(k - 1) (1/4 for 5 folds): Nadeau and "
              "Bengio's correction as Bouckaert and Frank use it for k-fold cross-validation, "
              "a heuristic. A paper's published mean +- spread gets the same "
              "interval for the same kind of units, unpaired (the two variances added)")
HOLDS, TIE, FAILS = 1, 0, -1
#: the rounding guard of every comparison with a tolerance (points, or the half-width of an
#: interval): a difference that misses the tolerance by less than this is at the tolerance
#: (stored F1 of 7.2 and 8.2 differ by -1.0000000000000018, exactly one point, a tie). Far
#: below any difference the board reports (0.01 point), far above the rounding of the stored
#: numbers (about 1e-14 for numbers up to 100).
ROUNDING = 1e-9


# -- the cases: each holds, fails or is a tie (inside the tolerance or the noise) ------------
def beats(a, b=None, *, half=None, higher=True, tol=POINTS):
    """One case of "A beats B": ``a`` and ``b`` in points (accuracy, error, F1; ``higher``
    when more is better), or with ``half`` given, ``a`` the mean paired difference A - B and
    ``half`` its 95% half-width (stored per-fold / per-trial numbers). Holds when A is better by
    more than ``tol`` points (or the interval lies on A's side), fails when B is, a tie
    otherwise."""
    diff = a if b is None else a - b
    diff = diff if higher else -diff
    margin = tol if half is None else half
    if not np.isfinite(diff):
        raise ValueError("a case needs finite numbers")
    return HOLDS if diff > margin + ROUNDING else FAILS if diff < -margin - ROUNDING else TIE


def paired_interval(diffs, test_to_train=0.0):
    """The board's one noise test: the mean of the paired differences ``diffs`` (per fold,
    per trial, per permutation) and the half-width of its 95% interval (Student t, n - 1
    degrees of freedom). A case inside the noise is a tie (:func:`beats` with ``half``).

    Which units get which interval (:func:`olearn.experiments.runner.corrected_resampled_t`
    computes both):

    * the folds of one cross-validation (Carvalho and Cohen's 5 folds: :func:`cv_interval`):
      given the sample, the k fold differences are not independent (one partition, and any
      two training sets share most of their rows), so the plain interval has no exact reading
      even for another split of it. The board reads the folds as covering a new draw of a data set of that
      size, with a correction: ``test_to_train`` is then the ratio of test to
      training rows (``1 / (k - 1)`` for k-fold CV, 1/4 for 5 folds), and the
      variance ``s^2 / n`` becomes ``s^2 (1 / n + test_to_train)``: Nadeau and Bengio's
      correction (2003, derived for random train/test splits), as Bouckaert and Frank (2004)
      use it for (repeated) k-fold cross-validation. It is a heuristic: it assumes the
      correlation between two units is ``n_test / n``.
    * independent trials (a new synthetic data set, a new stream drawn from a pool) and
      permutations of one stream or one training file tested on a fixed test part
      (``test_to_train = 0``, the plain paired t-interval): each unit is an independent
      draw given the fixed pool or file, so the differences are independent given those
      data; the interval covers another draw or order of the same pool, not a new sample
      of the data. Two trials drawn without replacement from one pool may share many rows
      (Shen and Dietterich's trials share most of a stream); given the pool that sharing
      is part of the draw, not a correlation the interval must correct.

    Zero spread (all differences equal) gives a half-width of 0."""
    from .runner import corrected_resampled_t

    d = np.asarray(diffs, dtype=float)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        raise ValueError("the noise test needs at least two paired differences")
    mean, half, _ = corrected_resampled_t(d, test_to_train=test_to_train)
    return float(mean), float(half) if np.isfinite(half) else 0.0


def cv_test_to_train(n_folds):
    """Test rows over training rows of ``n_folds``-fold cross-validation: ``1 / (n_folds -
    1)`` (1/4 for 5 folds), the ``test_to_train`` of :func:`paired_interval` on its folds."""
    n_folds = int(n_folds)
    if n_folds < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, got {n_folds}")
    return 1.0 / (n_folds - 1)


def cv_interval(diffs):
    """:func:`paired_interval` for the paired differences of the ``len(diffs)`` folds of one
    cross-validation (one difference per fold): the corrected interval, ``test_to_train``
    read from the number of folds (:func:`cv_test_to_train`)."""
    d = np.asarray(diffs, dtype=float)
    return paired_interval(d, test_to_train=cv_test_to_train(len(d)))


def unpaired_interval(mean_a, std_a, mean_b, std_b, n, test_to_train=0.0):
    """The same test where only the means and standard deviations over ``n`` runs are
    published (the paper's own tables, no pairs): the difference ``mean_a - mean_b`` and the
    half-width of its 95% interval (Student t, ``n - 1`` degrees of freedom, the two
    variances added: no pairing assumed). The units follow :data:`NOISE_RULE` as in
    :func:`paired_interval`: where the ``n`` runs are the folds of one cross-validation,
    ``test_to_train`` is ``1 / (k - 1)`` (:func:`cv_test_to_train`) and the variance
    ``(std_a^2 + std_b^2) / n`` becomes ``(std_a^2 + std_b^2) (1 / n + test_to_train)``;
    over independent runs or orders it is 0 (the plain interval)."""
    from scipy import stats

    if test_to_train < 0:
        raise ValueError(f"test_to_train must be >= 0, got {test_to_train}")
    var = (std_a ** 2 + std_b ** 2) * (1.0 / n + test_to_train)
    return float(mean_a - mean_b), float(stats.t.ppf(0.975, n - 1) * np.sqrt(var))


def comparable(a, b, *, or_better=False, higher=True, tol=POINTS):
    """One case of "A is comparable to B" (within ``tol`` points); ``or_better``: "comparable
    or better" (A at most ``tol`` points worse). No ties: the tolerance is the claim."""
    diff = (a - b) if higher else (b - a)
    ok = diff >= -tol - ROUNDING if or_better else abs(diff) <= tol + ROUNDING
    return HOLDS if ok else FAILS


def faster(t_a, t_b, *, factor=1.0):
    """One case of "A is faster than B" (``factor`` > 1: "``factor`` times faster", e.g. 100
    for "two orders of magnitude"): holds when t_a <= (1 - :data:`TIME_TOLERANCE`) t_b /
    factor, fails when t_a (1 - :data:`TIME_TOLERANCE`) > t_b / factor, a tie in between, and
    when both times are below :data:`TIME_RESOLUTION` seconds (timer noise on a shared
    machine)."""
    if t_a < TIME_RESOLUTION and t_b < TIME_RESOLUTION:
        return TIE
    target = t_b / factor
    if t_a <= target * (1 - TIME_TOLERANCE):
        return HOLDS
    return FAILS if t_a * (1 - TIME_TOLERANCE) > target else TIE


def trend(values, *, increasing=True, tol=POINTS, half=None):
    """One case of "X rises (falls, grows) with Y": ``values`` in the order of Y. Holds when
    the last value is beyond the first by more than ``tol`` the claimed way and no value falls
    back below an earlier one by more than ``tol`` (monotone up to the tolerance); fails when
    the last is beyond the first by more than ``tol`` the other way; a tie otherwise (no trend
    beyond the tolerance, or one that reverses).

    With ``half`` given (per-trial numbers stored), ``values`` are the two means of paired
    per-trial values, first and last, and ``half`` the 95% half-width of their paired change
    (:func:`paired_interval` of last minus first): the noise rule takes the tolerance's place,
    as in :func:`beats` (the change's interval on the claimed side of zero holds, on the other
    side fails, containing zero a tie)."""
    v = np.asarray(values, dtype=float) * (1 if increasing else -1)
    if not np.isfinite(v).all() or len(v) < 2:
        raise ValueError("a trend needs at least two finite values")
    if half is not None:
        if len(v) != 2 or not np.isfinite(half) or half < 0:
            raise ValueError("a trend judged by the noise rule needs the two means (first, "
                             "last) and the finite half-width of their paired change")
        tol = float(half)
    change = v[-1] - v[0]
    drawdown = float(np.max(np.maximum.accumulate(v) - v))
    if change > tol + ROUNDING and drawdown <= tol + ROUNDING:
        return HOLDS
    return FAILS if change < -tol - ROUNDING else TIE


def threshold(value, limit, *, above=True):
    """One case of a claim that a quantity is above (below) a stated limit ("more than half",
    "less than 10 minutes", "more than twice the error"): the limit is the claim's own; no
    tie."""
    return HOLDS if (value > limit if above else value < limit) else FAILS


def ranked_best(values, name, *, lower=True, tol=0.0):
    """One case of "A ranks best": A alone at the best value holds, tied for it (within
    ``tol``) a tie, behind it fails (mean ranks: lower is better)."""
    best = _best(values, lower, tol)
    return HOLDS if best == [name] else TIE if name in best else FAILS


# -- the quantifiers: the cases to a verdict --------------------------------------------------
class Judged(str):
    """A verdict that carries its cases (``held``, ``tied``, ``failed``), its ``key`` ("3 of
    5 sets") and, when the same rule was applied to the paper's own numbers of our sets
    (:func:`beside`), ``paper`` (that verdict) and ``paper_key``."""

    def __new__(cls, verdict, held=0, tied=0, failed=0, unit="cases", other=None, reading=""):
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; use one of {VERDICTS}")
        out = super().__new__(cls, verdict)
        out.held, out.tied, out.failed, out.unit = held, tied, failed, unit
        out.other, out.reading = other, reading
        out.paper = out.paper_key = None
        return out

    @property
    def total(self):
        return self.held + self.tied + self.failed

    @property
    def key(self):
        if not self.total:
            return ""
        return f"{self.held} of {self.total} {self.unit}" + (f" ({self.tied} tied)" if self.tied else "")


#: What each verdict means (shown on the scoreboard page; tests/test_scoreboard.py checks
#: :func:`all_cases`, :func:`most_cases` and :func:`almost_all_cases` against these sentences
#: on every count of held, tied and failed cases up to 12). The *share* a claim asks for:
#: every case ("all"), more than half ("most"), all but at most ALMOST_ALL_SHARE of them and
#: at least one ("almost all").
VERDICT_MEANINGS = {
    "reproduces": "the holding cases reach the share the claim's words ask for (every case; "
                  "more than half for 'most'; all but at most "
                  f"{ALMOST_ALL_SHARE:.0%}, at least one, for 'almost all')",
    "inconclusive": "the holding cases miss the share, but the holding and tied cases together "
                    "reach it: the ties decide (under 'most' and 'almost all' some cases may "
                    "fail beyond the tolerance or the noise; the noise: the 95% interval of the "
                    "noise rule, corrected over cross-validation folds)",
    "in part": "the share is missed even if every tie held, and some cases hold: at least one "
               "for 'every case', exactly half for 'most', more than half for 'almost all'",
    "does not": "the share is missed even if every tie held, and fewer cases hold than 'in "
                "part' needs: none for 'every case', fewer than half for 'most', at most half "
                "for 'almost all' (so under 'most' and 'almost all' some cases may hold)",
    "cannot be tested here": "a placeholder for data we do not have (kind 'no data'), or a "
                             "table that is not a measurement (rule 'not measured'); neither "
                             "is counted as an experimental claim",
}


def verdicts_table():
    """The meanings of the verdicts (:data:`VERDICT_MEANINGS`) as the book shows them."""
    return pd.DataFrame(list(VERDICT_MEANINGS.items()), columns=["verdict", "meaning"])


def _cases(outcomes):
    outcomes = [int(o) for o in outcomes]
    if not outcomes:
        raise ValueError("a claim needs at least one case to be tested")
    if not set(outcomes) <= {HOLDS, TIE, FAILS}:
        raise ValueError("a case is HOLDS (1), TIE (0) or FAILS (-1)")
    return outcomes.count(HOLDS), outcomes.count(TIE), outcomes.count(FAILS)


def all_cases(outcomes, unit="cases"):
    """A claim made for every case: "reproduces" when every case holds; "inconclusive" when
    none fails but some are ties; "in part" when some hold and some fail; "does not" when
    none holds and some fail."""
    h, t, f = _cases(outcomes)
    n = h + t + f
    v = ("reproduces" if h == n else "inconclusive" if f == 0 else "in part" if h else
         "does not")
    return Judged(v, h, t, f, unit)


def most_cases(outcomes, unit="cases"):
    """A claim that holds "typically", "in most cases", "for most": more than half of the
    cases hold; "inconclusive" when the ties could make (or unmake) the majority; "in part" at
    exactly half; "does not" otherwise."""
    h, t, f = _cases(outcomes)
    n = h + t + f
    v = ("reproduces" if 2 * h > n else "inconclusive" if t and 2 * (h + t) > n else
         "in part" if 2 * h == n else "does not")
    return Judged(v, h, t, f, unit)


def almost_all_cases(outcomes, unit="cases"):
    """A claim that holds "in almost all" cases: all but at most :data:`ALMOST_ALL_SHARE` of
    them (and at least one) hold; "inconclusive" when the ties decide it; "in part" when more
    than half hold; "does not" otherwise."""
    h, t, f = _cases(outcomes)
    n = h + t + f
    spare = max(1, int(ALMOST_ALL_SHARE * n))
    v = ("reproduces" if h >= n - spare else "inconclusive" if f <= spare else
         "in part" if 2 * h > n else "does not")
    return Judged(v, h, t, f, unit)


def as_case(v):
    """A condition as one case: a case of a rule (:data:`HOLDS`, :data:`TIE`, :data:`FAILS`)
    as it is, so that a tie stays a tie; a bool holds or fails; a verdict: "reproduces" holds,
    "inconclusive" is a tie, any other fails."""
    if isinstance(v, (bool, np.bool_)):
        return HOLDS if v else FAILS
    if isinstance(v, (int, np.integer)) and not isinstance(v, str):
        if int(v) not in (HOLDS, TIE, FAILS):
            raise ValueError("a case is HOLDS (1), TIE (0) or FAILS (-1)")
        return int(v)
    return HOLDS if v == "reproduces" else TIE if v == "inconclusive" else FAILS


def conditions(*verdicts, unit="conditions"):
    """A claim made of several conditions, each a case (:func:`as_case`: a case of its own
    rule, a verdict of it, or a bool): all must hold (:func:`all_cases`); a tied case or an
    inconclusive condition is a tie."""
    return all_cases([as_case(v) for v in verdicts], unit)


@dataclass(frozen=True)
class Rule:
    """One kind of claim: the words it reads, its case function, its quantifier and its one
    tolerance (stated for the reader by :func:`rules_table`)."""
    words: str
    case: Callable | None
    quantifier: Callable | None
    tolerance: str
    statement: str


#: The rule table: every row of the board names one of these (its ``rule`` column).
RULES = {
    "beats": Rule("'A beats (outperforms, is better than) B'", beats, all_cases,
                  f"{POINTS:g} point; or the 95% interval where per-fold/per-trial numbers "
                  "are stored (over the folds of a cross-validation corrected for their shared "
                  "training rows: the noise rule)",
                  "each case holds when A is better by more than the tolerance (the interval "
                  "above zero), fails when B is, else a tie; the claim holds on every case"),
    "comparable": Rule("'comparable', 'similar', 'about as', 'competitive', 'comparable or "
                       "better'", comparable, all_cases,
                       f"{POINTS:g} point (times: a factor {COMPARABLE_TIME:g})",
                       "each case holds when the two are within the tolerance (for 'or "
                       "better': A at most the tolerance worse); the claim holds on every case"),
    "most": Rule("'typically', 'in most cases', 'for most', 'several'", None, most_cases,
                 "that of the case's own comparison",
                 "more than half of the cases hold ('several': at least two); exactly half: in "
                 "part; ties that could decide the majority: inconclusive"),
    "almost all": Rule("'almost all', 'almost every'", None, almost_all_cases,
                       "that of the case's own comparison",
                       f"all cases but at most {ALMOST_ALL_SHARE:.0%} of them (at least one) hold; "
                       "more than half: in part; ties that decide it: inconclusive"),
    "trend": Rule("'X rises (falls, grows) with Y'", trend, all_cases,
                  f"{POINTS:g} point (mean ranks: {RANK_TOLERANCE:g} rank; shares of tasks: one "
                  "task); or the 95% interval of the paired change from the first to the last "
                  "value where per-trial numbers are stored (the noise rule)",
                  "each case holds when the last value is beyond the first the claimed way by "
                  "more than the tolerance and no value falls back by more than it; fails when "
                  "the last is beyond the first the other way; else a tie"),
    "ranking": Rule("'A has the best rank', 'A ranks above B'", ranked_best, all_cases,
                    "none: equal mean ranks are a tie",
                    "each case (a group of sets, a noise level) holds when A alone is best, is "
                    "a tie when A shares the best value, fails otherwise"),
    "timing": Rule("'faster', 'slower', 'orders of magnitude'", faster, all_cases,
                   f"{TIME_TOLERANCE:.0%} relative; times below {TIME_RESOLUTION:g} s are not "
                   "compared (a tie)",
                   "each case holds when A's time is below B's (divided by the claimed factor) "
                   "by more than the tolerance, fails when above by more, else a tie"),
    "threshold": Rule("a stated limit: 'more than half', 'less than 10 minutes', 'extremely "
                      "bad' (more than twice)", threshold, all_cases, "none: the claim's limit",
                      "each case holds when the quantity is beyond the limit the claim states "
                      "(the row gives it), fails otherwise"),
    "conditions": Rule("a claim made of several statements", None, conditions,
                       "that of each statement's own rule",
                       "every statement must hold; each is judged by its own rule above"),
    "asserted": Rule("a theorem, a definition (an algorithm stated by the paper), a setting",
                     None, None, "none",
                     "reproduces when its page (or the named tests) asserts it on every "
                     "checked run: a failing check stops the build; a counterexample asserted "
                     "on the page: does not"),
    "no data": Rule("a claim about data we do not have", None, None, "none",
                    "a placeholder: cannot be tested here, not counted as an experiment"),
    "not measured": Rule("a table that classifies the algorithms' design (yes/no properties)",
                         None, None, "none",
                         "not a measurement: cannot be tested here, counted with the "
                         "definitions, not as an experiment"),
}


def rules_table():
    """The rule table as the book shows it: one row per rule."""
    return pd.DataFrame([(name, r.words, r.statement, r.tolerance) for name, r in RULES.items()],
                        columns=["rule", "claim words", "how a claim is judged", "tolerance"])


class _Verdict(Judged):
    """A verdict that remembers the one a stricter reading gives (``other``); :func:`_row`
    shows it in the ``alternative`` column."""

    def __new__(cls, verdict, other, reading):
        held = getattr(verdict, "held", 0), getattr(verdict, "tied", 0), getattr(verdict, "failed", 0)
        out = Judged.__new__(cls, str(verdict), *held, unit=getattr(verdict, "unit", "cases"),
                             other=other, reading=reading)
        return out


def beside(ours, paper):
    """Our verdict with the same rule's verdict on the paper's own numbers of our data sets
    attached (shown beside ours, never instead of it)."""
    out = ours if isinstance(ours, Judged) else Judged(str(ours))
    out = Judged.__new__(type(out) if type(out) is Judged else Judged, str(out), out.held,
                         out.tied, out.failed, out.unit, getattr(ours, "other", None),
                         getattr(ours, "reading", ""))
    out.paper = str(paper)
    out.paper_key = getattr(paper, "key", "")
    return out


_judge = beside                        # the former name (it used to replace our verdict)


def outcome_note(verdict, paper_verdict):
    """What the reader is told about the paper's own outcome on our data sets."""
    if not paper_verdict:
        return ""
    if verdict == paper_verdict:
        return ("matches the paper's own outcome on these sets" if verdict != "reproduces"
                else "the paper's own numbers on these sets give the same")
    return f"the paper's own numbers on these sets: {paper_verdict}"


#: the ids of the rows, by paper module (filled by :func:`_row` callers through ``id=``)
_ID_PATTERN = re.compile(r"^(carvalho2006|shen2009|crammer2009|tan2016|zhao2009):"
                         r"[0-9a-z.]+(?:-[0-9a-z.]+)*:[a-z0-9]+(?:-[a-z0-9]+)*$")


def _row(paper, where, kind, claim, paper_says, ours, verdict, why, page, cause="",
         alternative="", *, id="", rule="", paper_verdict=None, paper_key=None, ours_key=None):
    """One row of the board (:data:`COLUMNS`). ``verdict`` may be a :class:`Judged` (its key
    and the paper's own verdict are filled in from it)."""
    other = getattr(verdict, "other", None)
    if other is not None and other != str(verdict) and not alternative:
        alternative = f"{verdict.reading}: {other}"
    if paper_verdict is None:
        paper_verdict = getattr(verdict, "paper", None) or ""
    if paper_key is None:
        paper_key = getattr(verdict, "paper_key", None) or ""
    if ours_key is None:
        ours_key = getattr(verdict, "key", "") or ""
    verdict = str(verdict)
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; use one of {VERDICTS}")
    if paper_verdict and paper_verdict not in VERDICTS:
        raise ValueError(f"unknown paper verdict {paper_verdict!r}")
    if rule and rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; use one of {tuple(RULES)}")
    if cause and not cause.startswith(CAUSES):
        raise ValueError(f"cause {cause!r} must start with one of {CAUSES}")
    section = id.split(":")[1] if id.count(":") == 2 else ""
    return dict(zip(COLUMNS, (id, paper, section, where, kind, claim, paper_says, ours, paper_key,
                              ours_key, rule, verdict, paper_verdict, why, page, cause,
                              alternative)))


def _best(values, lower=True, tol=0.0):
    """The names tied for the best of ``values`` (a Series; lowest when ``lower``), within
    ``tol``: ties are explicit, not decided by the order of the columns."""
    best = values.min() if lower else values.max()
    close = (values - best).abs() <= tol + ROUNDING
    return sorted(values.index[close])


def _best_verdict(values, name, lower=True, tol=0.0):
    """"reproduces" when ``name`` alone is best, "in part" when tied for best, else "does not"
    (one case of the ranking rule, as a verdict)."""
    best = _best(values, lower, tol)
    return "reproduces" if best == [name] else ("in part" if name in best else "does not")


def _combined(*verdicts):
    """The verdict of a claim made of several conditions (:func:`conditions`)."""
    return conditions(*verdicts)


def _time_order(a, b):
    """-1 when time ``a`` is below ``b`` beyond :data:`TIME_TOLERANCE`, 1 when above, 0 (a
    tie) otherwise (:func:`faster`)."""
    return {HOLDS: -1, FAILS: 1, TIE: 0}[faster(a, b)]


def _by_count(held, total, unit="cases"):
    """The verdict of a claim made for ``total`` cases that holds on ``held`` of them, the
    others failing (:func:`all_cases`)."""
    if total == 0:
        raise ValueError("a claim needs at least one case to be tested")
    return all_cases([HOLDS] * held + [FAILS] * (total - held), unit)


def _either_reading(held_a, held_b, total):
    """The verdict of a claim run under two readings of an unstated setting."""
    a, b = _by_count(held_a, total), _by_count(held_b, total)
    if a == b:
        return a
    return Judged("in part" if "reproduces" in (a, b) or "in part" in (a, b) else "does not")


def _majority(held, total, unit="cases"):
    """:func:`most_cases` on ``held`` of ``total`` cases, the others failing."""
    if total == 0:
        raise ValueError("a claim needs at least one case to be tested")
    return most_cases([HOLDS] * held + [FAILS] * (total - held), unit)


def _almost_all(held, total, unit="cases"):
    """:func:`almost_all_cases` on ``held`` of ``total`` cases, the others failing."""
    if total == 0:
        raise ValueError("a claim needs at least one case to be tested")
    return almost_all_cases([HOLDS] * held + [FAILS] * (total - held), unit)


def _untestable(paper, where, kind, claim, paper_says, why, page, *, id=""):
    """A placeholder for data we do not have: kind "no data", not counted as an experiment."""
    return _row(paper, where, "no data", claim, paper_says, "—", "cannot be tested here", why,
                page, id=id, rule="no data", ours_key="—", paper_key="—")


def _definition(paper, where, claim, page, how, *, id=""):
    """An algorithm (or selection rule) the paper states as a table or figure: it reproduces
    when its page checks olearn against the definition by hand (:data:`THEOREM_CHECKS`)."""
    return _row(paper, where, "definition", claim, "stated in the paper", how, "reproduces",
                "asserted on the page; a failing check stops the build", page, id=id,
                rule="asserted", paper_key="stated", ours_key="asserted")


def _tested_definition(paper, where, claim, page, how, tests, *, id=""):
    """An algorithm the paper states, checked against olearn by the named tests (``file::
    function`` under ``tests/``): it reproduces because a failing test fails the suite;
    :func:`theorem_pages_assert` checks that every named test exists."""
    return _row(paper, where, "definition", claim, "stated in the paper", how, "reproduces",
                "asserted by " + ", ".join(tests) + " (a failing test fails the suite)", page,
                id=id, rule="asserted", paper_key="stated", ours_key="asserted by tests")


def _theorem(paper, where, claim, page, how, *, id=""):
    return _row(paper, where, "theorem", claim, "proved in the paper", how, "reproduces",
                "asserted on every checked run; a failing check stops the build", page, id=id,
                rule="asserted", paper_key="proved", ours_key="asserted")


_TIMING = ("implementation-dependent: olearn's compiled learners against the paper's Matlab; "
           "the order of millisecond timings is not the paper's claim about its algorithms")

#: the modules of the papers' claims (:mod:`olearn.experiments.board`)
BOARD_MODULES = {"carvalho2006single": "carvalho2006", "shen2009regularized": "shen2009",
                 "crammer2009arow": "crammer2009", "tan2016sparse": "tan2016",
                 "zhao2009duol": "zhao2009"}
#: the public names that moved from this module to the paper modules (still importable here)
_MOVED = {
    "carvalho2006": ("carvalho_claims", "CARVALHO_TABLE3", "efs_lowest_features",
                     "flipped_folds", "positive_class_sensitivity"),
    "shen2009": ("shen_claims", "stored_l1_seconds", "SHEN_RULES", "SHEN_FIGURE", "SHEN_APART"),
    "crammer2009": ("crammer_claims", "arow_lemma1_row", "LEMMA1_ROWS", "LEMMA1_R",
                    "LEMMA1_TOL"),
    "tan2016": ("tan_claims", "SECOND_ORDER", "_sbcw_ahead"),
    "zhao2009": ("zhao_claims", "SINGLE_UPDATE"),
}


def _module(name):
    import importlib

    return importlib.import_module(f"olearn.experiments.board.{name}")


def __getattr__(name):
    for module, names in _MOVED.items():
        if name in names:
            return getattr(_module(module), name)
    if name == "CAUSE_NOTES":
        return {k: v for m in BOARD_MODULES.values() for k, v in _module(m).CAUSE_NOTES.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _add_causes(rows, notes):
    """The cause of each failing row from ``notes`` (row id -> cause)."""
    for row in rows:
        if row["verdict"] in ("does not", "in part") and not row["cause"]:
            row["cause"] = notes.get(row["id"], "")
    return rows


def _section_key(section):
    """The order of a row's section: numbered sections in order, the abstract first, tables,
    figures, algorithms and theorems (no section of their own) last."""
    numbers = re.findall(r"\d+", section)
    if section.startswith("abstract"):
        return (0,)
    if section[:1].isdigit():
        return (1, *map(int, numbers))
    return (2, section)


def order(board):
    """The board ordered by paper (:data:`PAPERS`) and the paper's sections (the ``section``
    part of the id), the order of the paper module within a section."""
    pos = {p: i for i, p in enumerate(PAPERS)}
    key = [(pos[p], _section_key(s), i) for i, (p, s) in enumerate(zip(board["paper"], board["section"]))]
    index = sorted(range(len(board)), key=lambda i: key[i])
    return board.iloc[index].reset_index(drop=True)


def scoreboard(results, l1_seconds=None, run_missing=False):
    """Every claim of the five papers with its verdict (one row per claim; :data:`COLUMNS`),
    ordered by paper and section (:func:`order`).

    ``run_missing=True`` also runs the claims that no stored run covers (Carvalho and
    Cohen's section 5.2, about a minute; the book's page does), instead of a row that names
    the page that runs them."""
    rows = (_module("carvalho2006").carvalho_claims(results, run_missing=run_missing)
            + _module("shen2009").shen_claims(results, l1_seconds)
            + _module("crammer2009").crammer_claims(results)
            + _module("tan2016").tan_claims(results)
            + _module("zhao2009").zhao_claims(results))
    rows = _add_causes(rows, __getattr__("CAUSE_NOTES"))
    for row in rows:                # a key number for every row: the first clause otherwise
        for k, text in (("paper_key", row["paper_says"]), ("ours_key", row["ours"])):
            row[k] = row[k] or _short(text)
    return order(pd.DataFrame(rows, columns=list(COLUMNS)))


def _short(text, width=60):
    """The first clause of ``text`` (up to ``width`` characters): a row's fallback key."""
    first = re.split(r"[;(]", str(text), maxsplit=1)[0].strip().rstrip(":,")
    return first if len(first) <= width else first[:width - 3].rstrip() + "..."


def counts(board, experimental=None):
    """Claims per paper and verdict, with a total column. ``experimental=True`` counts the
    experimental claims only (tables, figures, prose), ``False`` the definitions, theorems,
    settings and the placeholders for data we do not have (:data:`NON_EXPERIMENTAL`), ``None``
    every row."""
    if experimental is not None:
        board = board[board["kind"].isin(NON_EXPERIMENTAL) != experimental]
    table = (board.groupby(["paper", "verdict"]).size().unstack(fill_value=0)
             .reindex(index=list(PAPERS), columns=list(VERDICTS), fill_value=0))
    table.insert(0, "claims", table.sum(axis=1))
    return table


def agreement(board):
    """Experimental claims per paper: how many have the paper's own outcome on our data sets
    (``paper_verdict``), how many of those match ours, and of the matches how many are not
    "reproduces" (the rule fails on the paper's own numbers too)."""
    exp = board[~board["kind"].isin(NON_EXPERIMENTAL)]
    judged = exp[exp["paper_verdict"] != ""]
    same = judged[judged["paper_verdict"] == judged["verdict"]]
    out = pd.DataFrame({
        "with the paper's own outcome": judged.groupby("paper").size(),
        "same verdict": same.groupby("paper").size(),
        "same, not 'reproduces'": same[same["verdict"] != "reproduces"].groupby("paper").size(),
    }).reindex(list(PAPERS)).fillna(0).astype(int)
    return out


def kinds(board):
    """Claims per paper and kind of claim (the ``kind`` column)."""
    return (board.groupby(["paper", "kind"]).size().unstack(fill_value=0)
            .reindex(index=list(PAPERS), fill_value=0))


def paper_name(key):
    """The author-year name of paper ``key`` (:data:`PAPER_NAMES`)."""
    try:
        return PAPER_NAMES[key]
    except KeyError:
        raise KeyError(f"no display name for paper {key!r}; add it to "
                       "olearn.experiments.scoreboard.PAPER_NAMES") from None


def for_reader(table):
    """A copy of ``table`` (the board, :func:`counts` or :func:`kinds`) that names the papers
    by :func:`paper_name` instead of their BibTeX keys, in the index and the ``paper`` column."""
    table = table.copy()
    if table.index.name == "paper":
        table.index = table.index.map(paper_name)
    if "paper" in table.columns:
        table["paper"] = table["paper"].map(paper_name)
    return table


#: the columns of the board's HTML tables and their widths (they fit a 688-px column)
HTML_COLUMNS = (("where", "14%"), ("claim", "40%"), ("paper", "13%"), ("ours", "13%"),
                ("verdict", "20%"))


def _details(row):
    from html import escape

    items = [("id", row["id"]), ("rule", f"{row['rule']}: {row['why']}"),
             ("the paper", row["paper_says"]), ("ours", row["ours"])]
    note = outcome_note(row["verdict"], row["paper_verdict"])
    if note:
        items.append(("the paper's own numbers", note))
    if row["cause"]:
        items.append(("cause", row["cause"]))
    if row["alternative"]:
        items.append(("other readings", row["alternative"]))
    body = "".join(f'<dt>{k}</dt><dd style="margin-left:1em">{escape(str(v))}</dd>'
                   for k, v in items)
    page = f'<a href="{row["page"]}.html">{escape(row["page"])}</a>'
    return (f"<details><summary>numbers, rule and page</summary><dl>{body}"
            f'<dt>page</dt><dd style="margin-left:1em">{page}</dd></dl></details>')


def at_a_glance(board):
    """The board as a reader cites it: id, claim, the paper's and our key number, the verdict,
    the paper's own outcome on our data sets (same rule) and the rule."""
    out = board[["id", "claim", "paper_key", "ours_key", "verdict", "paper_verdict", "rule"]].copy()
    out.columns = ["id", "claim", "paper", "ours", "verdict", "paper's own outcome here", "rule"]
    return out


def claims_html(board):
    """The board as HTML for the book: one section per paper headed by its name, in the
    paper's section order; five narrow columns (where, the claim with its id, the paper's key
    number, ours, the verdict with the paper's own outcome on our sets and the cause category)
    in a fixed layout whose text wraps, and per row a dropdown with the rule, the paper's
    numbers, ours, the full cause, the other readings and the link to the page (no BibTeX key
    is shown)."""
    from html import escape

    parts = []
    cols = "".join(f'<col style="width:{w}">' for _, w in HTML_COLUMNS)
    head = "".join(f"<th>{c}</th>" for c, _ in HTML_COLUMNS)
    for paper, part in board.groupby("paper", sort=False):
        rows = []
        for _, row in part.iterrows():
            category = next((c for c in CAUSES if row["cause"].startswith(c)), "")
            verdict = row["verdict"] + (" *" if row["alternative"] else "")
            note = outcome_note(row["verdict"], row["paper_verdict"])
            extra = "".join(f"<br><small>{escape(x)}</small>" for x in (note, category) if x)
            rows.append(f"<tr><td>{escape(row['where'])}</td><td>{escape(row['claim'])}"
                        f"<br><small><code>{escape(row['id'])}</code></small>{_details(row)}</td>"
                        f"<td>{escape(str(row['paper_key']))}</td>"
                        f"<td>{escape(str(row['ours_key']))}</td>"
                        f"<td>{escape(verdict)}{extra}</td></tr>")
        parts.append(f"<h3>{paper_name(paper)}</h3>"
                     '<table class="table scoreboard" style="table-layout:fixed;width:100%;'
                     'word-wrap:break-word;overflow-wrap:anywhere">'
                     f"<colgroup>{cols}</colgroup><thead><tr>{head}</tr></thead>"
                     f"<tbody>{''.join(rows)}</tbody></table>")
    return "\n".join(parts)


def check(board, book):
    """Assert the board is well formed: known verdicts, every paper present, every page a
    notebook of the book listed in its table of contents."""
    book = Path(book)
    toc = (book / "_toc.yml").read_text()
    assert set(board["verdict"]) <= set(VERDICTS)
    assert set(board["paper"]) == set(PAPERS)
    for page in board["page"].unique():
        assert (book / f"{page}.ipynb").exists(), page
        assert f"file: {page}" in toc, page
    assert not board[["claim", "verdict", "page"]].isna().any().any()
    failing = board[board["verdict"].isin(["does not", "in part"])]
    missing = failing[~failing["cause"].str.startswith(CAUSES)]
    assert missing.empty, f"no cause for: {missing['claim'].tolist()}"
    bad = board[~board["id"].str.match(_ID_PATTERN)]
    assert bad.empty, f"rows without a stable id (paper:section:short-name): {bad['claim'].tolist()}"
    assert not board["id"].duplicated().any(), board.loc[board["id"].duplicated(), "id"].tolist()
    assert board["id"].str.split(":").str[0].map(
        {v: k for k, v in ID_PREFIX.items()}).eq(board["paper"]).all()
    norule = board[~board["rule"].isin(list(RULES))]
    assert norule.empty, f"rows without a rule of RULES: {norule['id'].tolist()}"
    assert (board.loc[board["kind"] == "no data", "verdict"] == "cannot be tested here").all()
    assert set(board["paper_verdict"]) <= set(VERDICTS) | {""}
    return True


#: What each theorem row's page must run for its verdict to stand: a code cell with an
#: ``assert`` that uses this name (the bound checker, or SBCW's recorded duality gaps).
THEOREM_CHECKS = {
    "regularized/theory": ("from olearn.bounds", "invariant"),
    "arow/bound": "arow_bound",
    "sparse_cw/sbcw": "model.theta_",
    "duol/theory": ("assert_theorems_1_2", "theorem3_corrected"),
    "single_pass/voting": "assert np.allclose(voted.coef_",
    "single_pass/winnow": "np.allclose(mbw.u_",
    "single_pass/efs": "get_support",
    "arow/derivation": "mu_sketch",
    "regularized/derivation": "cvxpy",
    "duol/derivation": "dual_coef_",
    "scoreboard": "arow_representer",
}


#: the plain-text copy of each paper in ``/work/shared/papers`` (see its README)
PAPER_FILES = {"carvalho2006single": "single-pass-online-learning.txt",
               "shen2009regularized": "regularized-online-learning.txt",
               "crammer2009arow": "arow.txt", "tan2016sparse": "sparse-confidence-weighted.txt",
               "zhao2009duol": "duol.txt"}


def captions(text):
    """The tables and figures a paper's text has captions for: {("Table", 4), ("Figure", 1)...}."""
    import re

    return {(kind, int(n)) for kind, n in
            re.findall(r"(?m)^\s*(Table|Figure)\s+(\d+)\s*[:.]", text)}


def cited(where):
    """The tables and figures a ``where`` cell names, ranges and lists expanded:
    "Tables 1-3, 5-6, Figure 2(a)" -> {("Table", 1), ("Table", 2), ..., ("Figure", 2)}."""
    import re

    out = set()
    for kind, numbers in re.findall(r"(Table|Figure)s?\s+((?:\d+(?:\([a-z-]+\))?"
                                    r"(?:\s*-\s*\d+)?(?:,\s*(?=\d))?)+)", where):
        for part in re.findall(r"\d+(?:\([a-z-]+\))?(?:\s*-\s*\d+)?", numbers):
            bounds = [int(b) for b in re.findall(r"(?<![(a-z])\d+", part)]
            out |= {(kind, n) for n in range(bounds[0], bounds[-1] + 1)}
    return out


def theorem_pages_assert(board, book):
    """Every theorem row's page has a code cell that asserts with its checker
    (:data:`THEOREM_CHECKS`): the check the verdict relies on is on the page; a definition
    row checked by tests (:func:`_tested_definition`) names tests that exist."""
    import json

    import re

    checked = board["kind"].isin(["theorem", "definition"]) & (board["verdict"] == "reproduces")
    tested = board["why"].str.startswith("asserted by tests/")
    root = Path(__file__).resolve().parents[2]      # the repository: tests/ beside olearn/
    for why in board.loc[checked & tested, "why"]:
        for path, name in re.findall(r"(tests/[\w/]+\.py)::(\w+)", why):
            source = (root / path).read_text()
            assert f"def {name}(" in source, f"{path} has no test {name}"
    for page in board.loc[checked & ~tested, "page"].unique():
        nb = json.loads((Path(book) / f"{page}.ipynb").read_text())
        cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
        markers = THEOREM_CHECKS[page]
        for marker in (markers,) if isinstance(markers, str) else markers:
            assert any(marker in c for c in cells), f"{page} no longer uses {marker}"
        assert any("assert" in c for c in cells), f"{page} asserts nothing"
    return True



if __name__ == "__main__":
    # issue 28 item 9, the Reuters task: F1 of four learners with money-fx positive (the
    # stored run) and with the rest positive, beside the report's Table 4 (about a minute)
    import sys
    import warnings

    from . import single_pass as sp

    keys = tuple(sys.argv[1:]) or ("Reuters",)
    names = ("MBW", "BW", "PA", "v-MBW")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        flipped = flipped_folds(keys, learners=names)
    stored = sp.f1_table(pd.read_csv(Path("book/results/single_pass/cv_folds.csv")))
    for key in keys:
        print(pd.DataFrame({"stored positive class": stored.loc[key, list(names)],
                            "other class": sp.f1_table(flipped).loc[key, list(names)],
                            "paper": sp.PAPER_TABLE4.loc[key, list(names)]}).round(1)
              .rename_axis(key).to_string())


# -- the chapters' outcome sentences ---------------------------------------------------------
#: the reproduction chapters whose "**Outcome:** ..." sentence must agree with the board, and
#: the rows each one summarises: the experimental rows whose ``page`` is the chapter, or the
#: rows whose id starts with one of the listed prefixes
CHAPTERS = {
    "single_pass/tables": None, "single_pass/voting": None, "single_pass/curves": None,
    "single_pass/efs": None, "regularized/claims": None,
    "regularized/experiment": ("shen2009:4:regularized-beat-pa", "shen2009:4:gap-largest-early",
                               "shen2009:4:l2-beats-objective", "shen2009:4:beat-norma",
                               "shen2009:4:l2-competitive-with-l1", "shen2009:4:l2-beats-l1-on-20ng",
                               "shen2009:4:second-half-tuning-similar", "shen2009:4:norma-gap-grows"),
    "arow/reproduction": None, "sparse_cw/table2": None, "sparse_cw/figure1": None,
    "duol/reproduction": None,
}
#: the words of an outcome sentence, from the verdicts of its rows (:func:`chapter_outcome`)
OUTCOMES = ("reproduced", "reproduced in part", "not reproduced", "inconclusive")
_OUTCOME_RE = re.compile(r"\*\*Outcome:\*\*\s+(reproduced in part|reproduced|not reproduced|"
                         r"inconclusive)\b")


def chapter_rows(board, page):
    """The experimental rows a chapter's outcome sentence summarises (:data:`CHAPTERS`)."""
    exp = board[~board["kind"].isin(NON_EXPERIMENTAL)]
    ids = CHAPTERS.get(page)
    if ids is None:
        return exp[exp["page"] == page]
    return exp[exp["id"].isin(ids)]


def chapter_outcome(verdicts):
    """The outcome word of a set of verdicts: "reproduced" when every row reproduces; "not
    reproduced" when none reproduces even in part and some do not; "inconclusive" when all
    the rest are inconclusive; "reproduced in part" otherwise."""
    v = [x for x in verdicts if x != "cannot be tested here"]
    if not v:
        raise ValueError("no testable row for this chapter")
    if all(x == "reproduces" for x in v):
        return "reproduced"
    if not {"reproduces", "in part"} & set(v):
        return "not reproduced" if "does not" in v else "inconclusive"
    return "reproduced in part"


def chapter_paragraph(book, page):
    """The chapter's outcome paragraph: from "**Outcome:**" to the end of its paragraph (one
    line, whitespace collapsed)."""
    import json

    nb = json.loads((Path(book) / f"{page}.ipynb").read_text())
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and "**Outcome:**" in text:
            para = re.split(r"\n\s*\n", text[text.index("**Outcome:**"):], maxsplit=1)[0]
            return " ".join(para.split())
    raise AssertionError(f"{page} has no '**Outcome:** ...' sentence")


def chapter_sentence(book, page):
    """The outcome word the chapter states in its "**Outcome:** ..." sentence (the first)."""
    found = _OUTCOME_RE.search(chapter_paragraph(book, page))
    if not found:
        raise AssertionError(f"{page} has no '**Outcome:** ...' sentence")
    return found.group(1)


#: how an outcome paragraph counts its rows (:func:`chapter_tally`)
_TALLY_WORDS = (("reproduces", "reproduce", "reproduces"), ("in part", "in part", "in part"),
                ("does not", "do not", "does not"), ("inconclusive", "inconclusive", "inconclusive"))


def chapter_tally(verdicts):
    """The count an outcome paragraph must state, from its rows' verdicts: "board rows: 3
    reproduce, 1 in part, 1 does not, 2 inconclusive" (verdicts with no row left out)."""
    v = list(verdicts)
    parts = [f"{v.count(key)} {one if v.count(key) == 1 else many}"
             for key, many, one in _TALLY_WORDS if v.count(key)]
    return "board rows: " + ", ".join(parts)


def _unquoted(text):
    """``text`` without its quotations (the papers' words may say "most")."""
    return re.sub(r"'[^']*'|\"[^\"]*\"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019", " ", text)


def chapter_problems(board, book, page):
    """What is wrong with a chapter's outcome paragraph against its board rows: the outcome
    word (:func:`chapter_outcome`), the tally of its rows (:func:`chapter_tally`), every
    "does not" and "in part" row named by its short id (the part after the second colon), and
    no count in words ("most", "majority": the tally gives the counts)."""
    rows = chapter_rows(board, page)
    para = chapter_paragraph(book, page)
    out = []
    want, said = chapter_outcome(rows["verdict"]), chapter_sentence(book, page)
    if want != said:
        out.append(f"says {said!r}, its rows give {want!r}")
    # a row this board did not run (run_missing=False: "cannot be tested here" though it is
    # not a placeholder) may take any verdict in the tally the chapter states
    import itertools

    unrun = int(((rows["verdict"] == "cannot be tested here") & (rows["kind"] != "no data")).sum())
    known = [v for v in rows["verdict"] if v != "cannot be tested here"]
    tallies = {chapter_tally(known + list(extra)) for extra in
               itertools.product([k for k, _, _ in _TALLY_WORDS], repeat=unrun)}
    if not any(t in para for t in tallies):
        out.append(f"does not state {sorted(tallies)[0]!r}")
    failing = rows[rows["verdict"].isin(["does not", "in part"])]
    missing = [i for i in failing["id"] if i.split(":")[2] not in para]
    if missing:
        out.append(f"does not name its 'does not'/'in part' rows {missing}")
    words = re.findall(r"\b(most|majority)\b", _unquoted(para), flags=re.I)
    if words:
        out.append(f"counts in words ({', '.join(words)}): give the tally's numbers")
    return out


def check_chapters(board, book):
    """Assert every chapter of :data:`CHAPTERS` states what its board rows give
    (:func:`chapter_problems`)."""
    wrong = {page: p for page in CHAPTERS if (p := chapter_problems(board, book, page))}
    assert not wrong, f"chapters whose outcome paragraph disagrees with the board: {wrong}"
    return True
