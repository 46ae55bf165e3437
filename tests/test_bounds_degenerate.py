"""Every public function of olearn.bounds on degenerate runs (issue 36).

The kinds: an *empty* run (an unfitted run, or a fitted one given an empty
stream; a generator asked for no rows), a stream of *zero rows* only, a
competitor with *zero margin* (``gamma = 0``, or a ``u`` with ``y_t u.x_t <=
0`` on every round), and a run of *another learner* than the function's.
Each cell of :data:`CASES` says what the function does with that kind:

* ``Raises(...)``: a ``ValueError`` or ``TypeError`` whose message names the
  fix (a verb telling what to pass, fit or use) -- never NaN, inf or a crash
  inside numpy;
* ``Finite(...)``: a documented, mathematically correct answer (e.g. the
  RKHS of a Gaussian kernel, where a zero row is a point like any other), and
  every number it returns must be finite;
* ``Absent(...)``: the kind cannot be expressed, because the function has no
  such argument -- checked on its signature, so the cell fails when the
  argument appears.

The functions are enumerated from the package (``olearn.bounds.__all__``):
a new public function without a row here fails :func:`test_every_cell`.
"""
import inspect
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import olearn.bounds as bounds
from olearn import (ALMA, AROW, DUOL, NORMA, PA, SOP, BalancedWinnow, KernelPA,
                    KernelPerceptron, L1ConstrainedPA, L2ConstrainedPA,
                    ModifiedBalancedWinnow, ObjectiveRegularizedPA, Perceptron,
                    PositiveWinnow)

KINDS = ("empty", "zero_rows", "zero_margin", "wrong_learner")

#: a message names its fix: it tells the caller what to pass, fit or use
FIX = re.compile(r"\b(pass|fit|call|use|drop|rescale|binarise)\b", re.IGNORECASE)

PUBLIC = sorted(name for name in bounds.__all__ if inspect.isfunction(getattr(bounds, name)))


# -- the streams ------------------------------------------------------------------
T, D = 30, 4
_rng = np.random.default_rng(0)
X = _rng.normal(size=(T, D))
X /= np.linalg.norm(X, axis=1, keepdims=True)
W = np.array([1.0, -2.0, 0.5, 1.0])
Y = np.where(X @ W > 0, 1, -1)
U_BAD = -W                      # y_t u.x_t < 0 on every round
Z = np.zeros((T, D))            # every row zero
E, YE = X[:0], Y[:0]            # the empty stream

XB, YB, RELEVANT = bounds.disjunction_stream(40, 6, k=2, random_state=0)
XB = XB.tolil()
XB[:, 5] = 0.0                  # feature 5 is on in no row: a disjunction covering nothing
XB = XB.tocsr()
XB.eliminate_zeros()
ZB = np.zeros((40, 6))


def fit(learner, X_, y_):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # MBW's zeroed weights on zero rows
        return learner.fit(X_, y_)


# the regularized learners' stream: a drifting competitor with margin >= 1
XR, YR, UR = bounds.drifting_stream(T, D, mu=0.1, D=3.0, R=1.0, random_state=0)


# -- what a cell expects ------------------------------------------------------------
class Raises:
    def __init__(self, *calls):
        self.calls = calls


class Finite:
    def __init__(self, call, why):
        self.call, self.why = call, why


class Absent:
    def __init__(self, why, *missing):
        self.why, self.missing = why, missing


def run_bound(func, learner, X_, y_, competitor, wrong, Xw=None, yw=None, **kw):
    """The four cells of a bound ``func(run, X, y, competitor)``."""
    Xw, yw = (X_, y_) if Xw is None else (Xw, yw)
    return {
        "empty": Raises(lambda: func(learner, X_, y_, competitor, **kw),      # unfitted
                        lambda: func(fit(learner, X_, y_), X_[:0], y_[:0], competitor, **kw)),
        "zero_rows": Raises(lambda: func(fit(learner, Z if X_.shape == Z.shape else
                                              np.zeros(X_.shape), y_),
                                          np.zeros(X_.shape), y_, competitor, **kw)),
        "zero_margin": None,
        "wrong_learner": Raises(lambda: func(fit(wrong, Xw, yw), Xw, yw, competitor, **kw)),
    }


def cells(func, learner, X_, y_, good, bad, wrong, margin="raises", gamma=False,
          Xw=None, yw=None, **kw):
    out = run_bound(func, learner, X_, y_, good, wrong, Xw, yw, **kw)
    calls = [lambda: func(fit(learner, X_, y_), X_, y_, bad, **kw)]
    if gamma:
        calls.append(lambda: func(fit(learner, X_, y_), X_, y_, good, gamma=0.0, **kw))
    out["zero_margin"] = (Raises(*calls) if margin == "raises"
                          else Finite(calls[0], margin))
    return out


LEMMA = "the lemma holds for every u and is not a mistake bound: not vacuous"
RKHS = "a zero row is a point of the RKHS like any other (k(0, 0) = 1, Gaussian)"
KB = np.where(Y > 0, 1.0, -1.0) * 0.1      # a kernel competitor's coefficients


ALWAYS_ON = ("Winnow's always-on feature is a feature: a run on zero rows learns, and "
             "its bound is finite (tight on all-negative streams, test_bounds_winnow)")
UNCOVERED = ("A+ counts every positive row the disjunction misses: finite, valid, tight "
             "on all-negative streams (test_bounds_winnow)")


def _winnow_bound_cells():
    out = cells(bounds.winnow_bound, PositiveWinnow(), XB, YB, RELEVANT, [5], AROW(),
                margin=UNCOVERED)
    out["zero_rows"] = Finite(lambda: bounds.winnow_bound(fit(PositiveWinnow(), ZB, YB),
                                                          ZB, YB, RELEVANT), ALWAYS_ON)
    return out


def _balanced_cells():
    f = bounds.balanced_winnow_bound
    out = cells(f, BalancedWinnow(), XB, YB, RELEVANT, [5], ModifiedBalancedWinnow(),
                margin=UNCOVERED)
    out["zero_rows"] = Finite(lambda: f(fit(BalancedWinnow(), ZB, YB), ZB, YB, RELEVANT),
                              ALWAYS_ON)
    out["wrong_learner"].calls += (lambda: f(fit(PositiveWinnow(), XB, YB), XB, YB, RELEVANT),)
    return out


def _steps_cells():
    f = bounds.balanced_winnow_steps
    return {"empty": Raises(lambda: f(BalancedWinnow(), XB, YB),
                            lambda: f(fit(BalancedWinnow(), XB, YB), XB[:0], YB[:0])),
            "zero_rows": Finite(lambda: f(fit(BalancedWinnow(), ZB, YB), ZB, YB), ALWAYS_ON),
            "zero_margin": Absent("no competitor", "u", "relevant", "competitor", "gamma"),
            "wrong_learner": Raises(lambda: f(fit(ModifiedBalancedWinnow(), XB, YB), XB, YB),
                                    lambda: f(fit(Perceptron(), X, Y), X, Y))}


def _regularized_cells(func, learner, wrong):
    out = run_bound(func, learner, XR, YR, UR, wrong)
    out["zero_rows"] = Raises(lambda: func(fit(learner, Z, YR), Z, YR, UR))
    out["zero_margin"] = Raises(lambda: func(fit(learner, XR, YR), XR, YR, -UR))
    return out


def _trace_cells(func):
    out = _regularized_cells(func, L2ConstrainedPA(3.0), Perceptron())
    out["zero_margin"] = Finite(lambda: func(fit(L2ConstrainedPA(3.0), XR, YR), XR, YR, -UR),
                                "a trace of the proof's terms, not a bound")
    return out


def _kernel_cells():
    f = bounds.kernel_regret_lemma
    return {"empty": Raises(lambda: f(KernelPerceptron(), X, Y, KB),
                            lambda: f(fit(KernelPerceptron(), X, Y), E, YE, KB[:0])),
            "zero_rows": Finite(lambda: f(fit(KernelPerceptron(), Z, Y), Z, Y, KB), RKHS),
            "zero_margin": Finite(lambda: f(fit(KernelPerceptron(), X, Y), X, Y, -KB), LEMMA),
            "wrong_learner": Raises(lambda: f(fit(Perceptron(), X, Y), X, Y, KB))}


def _stream_cells(func, *args, learner=None, wrong=None, zero_rows="raises", **kw):
    """A function of the stream ``func(X, y, *args)`` (and an optional learner)."""
    out = {"empty": Raises(lambda: func(E, YE, *args, **kw)),
           "zero_rows": (Raises(lambda: func(Z, Y, *args, **kw)) if zero_rows == "raises"
                         else Finite(lambda: func(Z, Y, *args, **kw), zero_rows)),
           "zero_margin": Absent("no competitor", "u", "beta", "gamma", "relevant"),
           "wrong_learner": Absent("no learner", "run", "learner", "duol", "estimator")}
    if learner is not None:
        out["wrong_learner"] = Raises(lambda: func(X, Y, *args, **{learner: wrong}, **kw))
    return out


def _duol_updates_frame():
    return bounds.duol_updates(X, Y, DUOL(sigma=1.0))


CASES = {
    "perceptron_bound": cells(bounds.perceptron_bound, Perceptron(), X, Y, W, U_BAD, PA(),
                              gamma=True),
    "pa_bound": cells(bounds.pa_bound, PA(), X, Y, W, U_BAD, Perceptron()),
    "pa_mistake_bound": cells(bounds.pa_mistake_bound, PA(variant="PA-II"), X, Y, W, U_BAD,
                              Perceptron()),
    "alma_bound": cells(bounds.alma_bound, ALMA(), X, Y, W, U_BAD, Perceptron(), gamma=True),
    "norma_bound": cells(bounds.norma_bound, NORMA(), X, Y, W, U_BAD, PA(),
                         margin="a loss bound: the learner's loss is not bounded by T rho"),
    "norma_mistake_bound": cells(bounds.norma_mistake_bound, NORMA(), X, Y, W, U_BAD, PA()),
    "sop_bound": cells(bounds.sop_bound, SOP(), X, Y, W, U_BAD, AROW()),
    "arow_bound": {**cells(bounds.arow_bound, AROW(), X, Y, W, U_BAD, SOP()),
                   "zero_margin": Raises(
                       lambda: bounds.arow_bound(fit(AROW(), X, Y), X, Y, U_BAD))},
    "arow_regret_lemma": cells(bounds.arow_regret_lemma, AROW(), X, Y, W, U_BAD, SOP(),
                               margin=LEMMA),
    "regret_lemma": cells(bounds.regret_lemma, Perceptron(), X, Y, W, U_BAD, ALMA(),
                          margin=LEMMA, Xw=XB, yw=YB),
    "kernel_regret_lemma": _kernel_cells(),
    "winnow_bound": _winnow_bound_cells(),
    "balanced_winnow_bound": _balanced_cells(),
    "balanced_winnow_steps": _steps_cells(),
    "objective_regularized_bound": _regularized_cells(
        bounds.objective_regularized_bound, ObjectiveRegularizedPA(0.01, update_on="mistake"),
        L2ConstrainedPA(3.0)),
    "l2_constrained_bound": _regularized_cells(bounds.l2_constrained_bound,
                                               L2ConstrainedPA(3.0), L1ConstrainedPA(6.0)),
    "l1_constrained_bound": _regularized_cells(bounds.l1_constrained_bound,
                                               L1ConstrainedPA(6.0), L2ConstrainedPA(3.0)),
    "round_terms": _trace_cells(bounds.round_terms),
    "proof_step_slacks": _trace_cells(bounds.proof_step_slacks),
    "arow_lemma_trace": {**_stream_cells(bounds.arow_lemma_trace),
                         "zero_margin": Finite(lambda: bounds.arow_lemma_trace(X, Y, u=U_BAD),
                                               LEMMA)},
    "svm_competitor": _stream_cells(bounds.svm_competitor),
    "svm_dual_competitor": _stream_cells(bounds.svm_dual_competitor, 1.0, zero_rows=RKHS),
    "svm_bracket": _stream_cells(bounds.svm_bracket, 1.0, zero_rows=RKHS),
    "duol_updates": _stream_cells(bounds.duol_updates, learner="duol", wrong=PA(),
                                  zero_rows=RKHS),
    "theorem3": _stream_cells(bounds.theorem3, learner="duol", wrong=KernelPA(),
                              zero_rows=RKHS),
    "proposition1": _stream_cells(bounds.proposition1, learner="learner", wrong=AROW(),
                                  zero_rows=RKHS),
    "greedy_disjunction": {
        "empty": Raises(lambda: bounds.greedy_disjunction(XB[:0], YB[:0], PositiveWinnow())),
        "zero_rows": Raises(lambda: bounds.greedy_disjunction(ZB, YB, PositiveWinnow())),
        "zero_margin": Raises(lambda: bounds.greedy_disjunction(XB, -np.ones(40),
                                                                PositiveWinnow())),
        "wrong_learner": Raises(lambda: bounds.greedy_disjunction(XB, YB, Perceptron()))},
    "optimal_gamma": {
        "empty": Raises(lambda: bounds.optimal_gamma(np.zeros(0), 1.0)),
        "zero_rows": Raises(lambda: bounds.optimal_gamma(np.zeros(T), 0.0)),
        "zero_margin": Raises(lambda: bounds.optimal_gamma(-np.abs(X @ W), 1.0)),
        "wrong_learner": Absent("no learner", "run", "learner")},
    "assert_theorems_1_2": {
        "empty": Raises(lambda: bounds.assert_theorems_1_2(_duol_updates_frame().iloc[:0])),
        "zero_rows": Finite(lambda: bounds.assert_theorems_1_2(
            bounds.duol_updates(Z, Y, DUOL(sigma=1.0))), RKHS),
        "zero_margin": Absent("no competitor", "u", "beta"),
        "wrong_learner": Raises(lambda: bounds.assert_theorems_1_2(
            bounds.proposition1(X, Y, KernelPerceptron(sigma=1.0))))},
    "checks_frame": {
        "empty": Finite(lambda: bounds.checks_frame([]),
                        "no checks: an empty frame, nothing is claimed"),
        "zero_rows": Absent("takes BoundChecks, not a stream", "X"),
        "zero_margin": Absent("no competitor", "u"),
        "wrong_learner": Raises(lambda: bounds.checks_frame([fit(Perceptron(), X, Y)]))},
    "disjunction_stream": {
        "empty": Raises(lambda: bounds.disjunction_stream(0, 6)),
        "zero_rows": Absent("makes the stream (p > 0: rows are drawn, not given)", "X"),
        "zero_margin": Absent("no competitor", "u"),
        "wrong_learner": Absent("no learner", "run", "learner")},
    "drifting_stream": {
        "empty": Raises(lambda: bounds.drifting_stream(0, D, 0.1, 3.0, 1.0)),
        "zero_rows": Absent("makes the stream (every x has |u.x| >= 1)", "X"),
        "zero_margin": Raises(lambda: bounds.drifting_stream(T, D, 0.1, 3.0, 0.0),
                              lambda: bounds.drifting_stream(T, D, 0.1, 0.0, 1.0)),
        "wrong_learner": Raises(lambda: bounds.drifting_stream(T, D, 0.1, 3.0, 1.0,
                                                               learner=Perceptron()))},
    "mistakes_against_d": {
        "empty": Raises(lambda: bounds.mistakes_against_d(dims=(20,), n_rows=0)),
        "zero_rows": Absent("makes the stream", "X"),
        "zero_margin": Absent("no competitor", "u"),
        "wrong_learner": Absent("no learner", "run", "learner")},
}


DOUBLE_ONLY = ["thm2_bound", "b", "gamma_b_hat", "dgamma_b", "wab", "f_b", "s_b"]


def _numbers(result):
    """Every number in a function's result (BoundCheck, frame, tuple, array)."""
    if isinstance(result, bounds.BoundCheck):
        values = [result.observed, result.bound]
        values += [v for v in result.terms.values()
                   if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)]
        return np.array(values, dtype=float)
    if isinstance(result, pd.Series):
        return result.to_numpy(dtype=float)
    if isinstance(result, pd.DataFrame):
        # duol_updates' columns of a double update are NaN on the single ones (not
        # applicable: its frame's convention on every stream)
        result = result.drop(columns=DOUBLE_ONLY, errors="ignore")
        return result.select_dtypes("number").to_numpy(dtype=float).ravel()
    if isinstance(result, tuple):
        return np.concatenate([np.atleast_1d(np.asarray(r, dtype=float)) for r in result])
    return np.asarray(result, dtype=float).ravel()


def test_every_public_function_has_a_row():
    """A new public function (or a new kind) without a row fails here."""
    assert sorted(CASES) == PUBLIC
    for name, row in CASES.items():
        assert sorted(row) == sorted(KINDS), name


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", PUBLIC)
def test_every_cell(name, kind):
    assert name in CASES, f"olearn.bounds.{name} has no row in CASES: cover it"
    case = CASES[name][kind]
    if isinstance(case, Absent):
        params = inspect.signature(getattr(bounds, name)).parameters
        present = [p for p in case.missing if p in params]
        assert present == [], (f"{name} now takes {present}: the '{kind}' case can be "
                               f"expressed ({case.why} no longer holds); write it")
        return
    if isinstance(case, Finite):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)    # no 0/0 on the way
            result = case.call()
        numbers = _numbers(result)
        assert np.all(np.isfinite(numbers)), (name, kind, case.why, numbers)
        return
    assert case.calls
    for call in case.calls:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises((ValueError, TypeError)) as info:
                call()
        message = str(info.value)
        assert not isinstance(info.value, (FloatingPointError, np.linalg.LinAlgError))
        assert FIX.search(message), f"{name}/{kind}: the message names no fix: {message}"
        if kind == "wrong_learner":
            assert isinstance(info.value, TypeError) or "not an instance" in message, message
        if kind == "zero_margin" and "margin" in message:
            assert "vacuous" in message or ">= 1" in message or "> 0" in message, message


def test_gamma_zero_is_refused():
    """The Balanced Winnow bound takes a competitor without margin, not gamma = 0."""
    run = fit(BalancedWinnow(), XB, YB)
    with pytest.raises(ValueError, match="pass gamma > 0"):
        bounds.balanced_winnow_bound(run, XB, YB, RELEVANT, gamma=0.0)


def test_a_well_formed_run_passes_the_same_checks():
    """The degenerate cells raise because of the degenerate part: the same calls on
    the ordinary stream give finite bounds (a check that refused everything would
    pass the test above)."""
    checks = [
        bounds.perceptron_bound(fit(Perceptron(), X, Y), X, Y, W),
        bounds.pa_bound(fit(PA(), X, Y), X, Y, W),
        bounds.alma_bound(fit(ALMA(), X, Y), X, Y, W),
        bounds.norma_mistake_bound(fit(NORMA(), X, Y), X, Y, W),
        bounds.sop_bound(fit(SOP(), X, Y), X, Y, W),
        bounds.arow_bound(fit(AROW(), X, Y), X, Y, W),
        bounds.winnow_bound(fit(PositiveWinnow(), XB, YB), XB, YB, RELEVANT),
        bounds.balanced_winnow_bound(fit(BalancedWinnow(), XB, YB), XB, YB, RELEVANT),
        bounds.l2_constrained_bound(fit(L2ConstrainedPA(3.0), XR, YR), XR, YR, UR),
    ]
    frame = bounds.checks_frame(checks)
    assert np.all(np.isfinite(frame[["observed", "bound"]].to_numpy()))
    assert frame["holds"].all()
    assert bounds.optimal_gamma(np.abs(X @ W), 1.0) > 0
    assert len(bounds.greedy_disjunction(XB, YB, PositiveWinnow())) >= 1


def test_arow_bound_takes_u_zero_as_the_count_check():
    """u = 0 gives bound = M exactly (book/arow/bound's accounting check), finite."""
    run = AROW().fit(X, Y)
    check = bounds.arow_bound(run, X, Y, np.zeros(D))
    assert np.isfinite(check.bound) and check.bound == pytest.approx(check.observed)
