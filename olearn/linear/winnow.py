"""Winnow learners of Carvalho and Cohen (2006, section 2.2, Tables 2-3).

Positive Winnow (Littlestone 1988), Balanced Winnow and the Modified Balanced
Winnow (MBW) the report introduces.  Every feature value must be >= 0.

Preprocessing (section 2.2), in training and at test time
    The example is *augmented* with an always-on feature of value 1 and
    *normalised* so that the augmented example sums to 1:
    ``x~_j = x_j / (1 + sum_k x_k)``.  At test time the features that are not
    present in the model are dropped before normalising.  olearn's definition
    of "present in the model": **a feature that had a nonzero value in at least
    one training row** since the last reset (``fit`` resets, ``partial_fit``
    adds); ``seen_`` holds that mask.  During training every feature of the
    incoming row is present (the row adds it).

Score and mistake condition (with ``u``, ``v`` the positive and negative models)
    - PW: ``score = <x~, u> - theta``;
    - BW: ``score = <x~, u> - <x~, v> - theta``, mistake iff the prediction
      ``score > 0`` disagrees with ``y``;
    - MBW: the BW score, "mistake" iff ``y * score <= M`` (thick separator).

Update on a mistake, for every feature j present in ``x_t`` (and the always-on feature); nothing else is touched
    - PW: ``u_j *= alpha`` if ``y > 0``, ``u_j *= beta`` if ``y < 0``;
    - BW: as PW for ``u``, and ``v_j *= beta`` if ``y > 0``, ``v_j *= alpha``
      if ``y < 0``;
    - MBW: the BW factors times ``(1 + x~_j)`` (with ``alpha``) and
      ``(1 - x~_j)`` (with ``beta``).

    Initial weights: ``u = theta0`` (PW), ``u = theta0+``, ``v = theta0-`` (BW,
    MBW), in every dimension.

Exact multiplicative state
    A weight is stored as ``m * 2**(CHUNK * e)`` with a float mantissa ``m`` kept
    in ``[2**-CHUNK, 2**CHUNK)`` and an integer exponent ``e``; ``m`` is stored
    negated when ``e != 0``, so the fast paths read one array (the weights
    themselves are positive).  Products never
    overflow or underflow, however many updates a weight receives (a test runs
    10**6 of them against a 60-digit decimal reference).  While no weight of
    the row exceeds ``2**CHUNK`` the score is a plain dot product (smaller
    weights scaled down, to 0 below double range: they are then below rounding
    next to ``theta``); otherwise it is computed scaled by the largest exponent
    in the row, so its sign and the MBW margin test are exact to rounding.  A
    weight can become exactly 0 only through MBW's ``(1 - x~_j)`` factor with
    ``x~_j = 1``, i.e. an all-zero row, whose always-on feature then has
    ``x~ = 1``; the paper's rule then zeroes that weight for good (olearn
    follows the rule and warns).

Voting (:class:`olearn.Averaged` with a Winnow learner) is kept per
coordinate, lazily: a weight's contribution to the vote (its value times the
credits since it last changed) is added only when it changes, to a sum kept
as mantissa and exponent like the weights, so the average also never
overflows; O(nnz) per round, no log or exp.

Where the code is
    this module: the estimators (parameters, input checks, the model's
    views); :mod:`olearn.linear._winnow_pass`: the update rule of each
    learner, one short function each as the paper states it
    (``positive_winnow_factor``, ``balanced_winnow_factors``,
    ``mbw_factors``; the score ``normalised_score``, the conditions
    ``is_mistake`` and ``is_update``, the vote ``add_pending_vote``), the
    steps of a round over a row's nonzeros and the compiled pass that
    sequences them; :mod:`olearn.linear._winnow_exact`: the exact state
    (mantissa and exponent, the exact initial weight, products, the vote);
    :mod:`olearn._intrinsics`: the LLVM-level operations of the fast pass
    (prefetch, two-lane division and update).
"""
import warnings

import numpy as np
import scipy.sparse as sp

from ..base import (NonFiniteModelError, OnlineClassifier, check_is_fitted,
                    check_positive, compiled_rows, validate_rows)
from ._winnow_exact import (BW, CHUNK, CREDITS, MAX_ALPHA, MBW, MIN_BETA, N_ZEROED, PW,
                            _column, _constant, _to_log, vote_average)
from ._winnow_pass import winnow_decision, winnow_pass
# the representation's names, importable from here as before the split
from ._winnow_exact import (HI, LN_CHUNK, LO, ZERO_BELOW, _chunks,  # noqa: F401
                            _multiply, _scaled, exact_weight)
from ._winnow_pass import winnow_score  # noqa: F401


class NegativeValueError(ValueError):
    """A negative feature value in the row a training pass refused (``row`` of the pass's rows)."""

    def __init__(self, row, col, value):
        super().__init__(f"negative value {value!r} at row {row}, column {col}")
        self.row, self.col, self.value = row, col, value


def negative_value_error(estimator, row, col, value):
    """The ``ValueError`` naming the column, value and row of a negative value."""
    names = getattr(estimator, "feature_names_in_", None)
    label = f"column {col}" + (f" ({names[col]!r})" if names is not None else "")
    return ValueError(
        f"Negative values in data passed to {type(estimator).__name__}: "
        f"{label} has the value {float(value)!r} at row {row}. Winnow learners need "
        f"x >= 0 (Carvalho and Cohen 2006, section 2.2); rescale or one-hot "
        f"that feature first.")


def check_non_negative(estimator, X):
    """Raise ``ValueError`` naming the first column with a negative value."""
    values = X.data if sp.issparse(X) else X
    if values.size == 0 or values.min() >= 0.0:
        return
    if sp.issparse(X):
        k = int(np.argmax(X.data < 0))
        row = int(np.searchsorted(X.indptr, k, side="right") - 1)
        col = int(X.indices[k])
        value = X.data[k]
    else:
        row, col = (int(i) for i in np.argwhere(X < 0)[0])
        value = X[row, col]
    raise negative_value_error(estimator, row, col, value)


def finite_scores(estimator, scores):
    """``scores``, or :class:`NonFiniteModelError` naming the first row whose
    exact score is beyond float64's range (an infinity would be no score)."""
    bad = np.flatnonzero(np.isinf(scores))
    if bad.size:
        row = int(bad[0])
        raise NonFiniteModelError(
            f"{type(estimator).__name__}: the score of row {row} ({bad.size} of "
            f"{scores.shape[0]} rows) is beyond float64's range "
            f"({'+' if scores[row] > 0 else '-'}inf) after "
            f"{getattr(estimator, 'n_rounds_', 0)} rounds of learning: the weights "
            f"(exact, held as mantissa and exponent) grew past 1e308 times the "
            f"features. predict gives the exact signs; for scores, use a "
            f"promotion factor alpha nearer 1, a threshold theta nearer 1, or "
            f"fewer rounds.")
    return scores


class WinnowClassifier(OnlineClassifier):
    """Base of the Winnow learners (see :mod:`olearn.linear.winnow`)."""

    _kind = PW
    _averaging = False
    _vote_correct = False
    _checks_row_norms = False   # rows are normalised by their L1 norm: any scale learns
    #: the training pass refuses a row with a NaN, infinite or negative value
    #: before learning from it (one test of the row's sum of values)
    _values_checked_in_pass = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    # -- parameters ---------------------------------------------------------
    def _initial(self):
        """``(theta0 of u, theta0 of v or None)``."""
        raise NotImplementedError

    def _check_params(self):
        a, b = self.alpha, self.beta
        check_positive("alpha", a)
        check_positive("beta", b)
        if not 1.0 < a < MAX_ALPHA:
            raise ValueError(
                f"alpha (promotion) must be in (1, 2**1023) = (1, {MAX_ALPHA:.4g}), "
                f"got {a!r}: the factors alpha and MBW's alpha (1 + x~_j) <= "
                f"2 alpha must be finite floats.")
        if not MIN_BETA <= b < 1.0:
            raise ValueError(
                f"beta (demotion) must be in [2**-969, 1) = [{MIN_BETA:.4g}, 1), "
                f"got {b!r}: the factors beta and MBW's beta (1 - x~_j) >= "
                f"beta 2**-53 must be normal floats (exact to rounding).")
        check_positive("theta", self.theta)
        for name, value in zip(self._frozen_params, self._initial()):
            check_positive(name, value)
        if self._kind == MBW:
            check_positive("margin", self.margin, allow_zero=True)

    # -- estimator hooks ----------------------------------------------------
    def _guarded_run(self, X, y_pm, fresh=False, rows=None):
        # x >= 0 is checked by the training pass itself, which reads every
        # value anyway (a separate scan cost as much as the base's input
        # checks); the base undoes the pass before the error reaches here
        try:
            super()._guarded_run(X, y_pm, fresh=fresh, rows=rows)
        except NegativeValueError as error:
            row = error.row if rows is None else int(rows[error.row])
            refused = negative_value_error(self, row, error.col, error.value)
            refused.refused_input = True
            raise refused from None

    def _check_refused_row(self, X, row):
        """:class:`NegativeValueError` for the first negative value of row
        ``row`` (the pass refused that row, every row before it passed;
        :func:`check_values`' NaN/inf error, anywhere in ``X``, comes first)."""
        if sp.issparse(X):
            lo, hi = X.indptr[row], X.indptr[row + 1]
            values, cols = X.data[lo:hi], X.indices[lo:hi]
        else:
            values = X[row]
            cols = np.arange(values.shape[0])
        negative = np.flatnonzero(values < 0.0)
        if negative.size:
            k = negative[0]
            raise NegativeValueError(row, int(cols[k]), float(values[k]))

    def _init_state(self, n_features):
        d = n_features + 1  # the last coordinate is the always-on feature
        # the model as mantissas and exponents, one row per feature and a
        # column per model (u; u and v side by side for BW and MBW)
        initial = [w for w in self._initial() if w is not None]
        self._m = np.empty((d, len(initial)))
        self._e = np.empty((d, len(initial)), dtype=np.int64)
        for col, theta0 in enumerate(initial):
            self._m[:, col], self._e[:, col] = _constant(d, theta0)
        self._seen = np.zeros(n_features, dtype=np.uint8)
        self._istate = np.zeros(2, dtype=np.int64)
        self._columns = np.arange(n_features, dtype=np.int64)
        # the vote sums A (mantissa, exponent), laid out as the model, and
        # (a last column of _acc) when each feature's pending vote was last added
        nv = d if self._averaging else 0
        self._acc = np.zeros((nv, len(initial) + 1))
        self._acce = np.zeros((nv, len(initial)), dtype=np.int64)

    def _learn(self, X, y, mistakes, margins):
        zeroed = self._istate[N_ZEROED]
        n = winnow_pass(X, y, self._kind, self._columns, self._m, self._e,
                        self._seen, self._istate, float(self.alpha),
                        float(self.beta), float(self.theta),
                        float(getattr(self, "margin", 0.0)), self._acc,
                        self._acce, self._vote_correct, mistakes,
                        margins)
        if self._istate[N_ZEROED] > zeroed:
            warnings.warn(
                f"{type(self).__name__}: an update with x~_j = 1 (an all-zero "
                f"row, whose always-on feature then carries the whole "
                f"normalised mass) made the factor (1 - x~_j) zero: that weight "
                f"is 0 from now on, as the paper's rule gives.", RuntimeWarning)
        return n

    def _model_arrays(self):
        return (self._m,)

    def _scores(self, X, m, e, rows=None, seen=None):
        """Test-time scores of ``X`` under the model ``(m, e)``; ``rows`` (a
        CSR triple) and ``seen`` replace ``X``'s and the mask when ``(m, e)``
        holds only some features (:meth:`_averaged_decision`)."""
        check_non_negative(self, X)
        out = np.empty(X.shape[0])
        winnow_decision(compiled_rows(X) if rows is None else rows, X.shape[0],
                        self._columns, m, e,
                        self._seen if seen is None else seen, float(self.theta), out)
        return out

    def _decision(self, X):
        return self._scores(X, self._m, self._e)

    def decision_function(self, X):
        """Score of each row; > 0 means ``classes_[1]``.

        The scores are exact (the weights are held as mantissa and exponent)
        as long as float64 holds them: a score beyond float64's range raises
        :class:`~olearn.base.NonFiniteModelError` (``predict`` still gives the
        exact sign)."""
        return finite_scores(self, super().decision_function(X))

    def predict(self, X):
        """Class label of each row: ``classes_[1]`` iff the exact score is > 0
        (also when the score itself is beyond float64's range)."""
        check_is_fitted(self, "classes_")
        scores = self._decision(validate_rows(self, X))
        return self.classes_[(scores > 0).astype(int)]

    # -- the model ----------------------------------------------------------
    #: views of the model's columns: mantissas and exponents of u and v
    #: (v's empty for PW)
    _u = property(lambda self: _column(self._m, 0))
    _ue = property(lambda self: _column(self._e, 0))
    _v = property(lambda self: _column(self._m, 1))
    _ve = property(lambda self: _column(self._e, 1))

    @property
    def seen_(self):
        """Boolean mask of the features present in the model (seen in training)."""
        return self._seen.astype(bool)

    @property
    def log_u_(self):
        """``log u``: the positive model (PW: the only one); last entry = always-on feature."""
        return _to_log(self._u, self._ue)

    @property
    def log_v_(self):
        """``log v``: the negative model (BW, MBW); last entry = always-on feature."""
        if self._v.shape[0] == 0:
            raise AttributeError("Positive Winnow has no negative model v.")
        return _to_log(self._v, self._ve)

    @property
    def u_(self):
        """The positive model as floats (inf/0 where a weight leaves float range)."""
        with np.errstate(over="ignore"):
            return np.ldexp(np.abs(self._u), CHUNK * self._ue)

    @property
    def v_(self):
        """The negative model as floats (inf/0 where a weight leaves float range)."""
        if self._v.shape[0] == 0:
            raise AttributeError("Positive Winnow has no negative model v.")
        with np.errstate(over="ignore"):
            return np.ldexp(np.abs(self._v), CHUNK * self._ve)

    # -- voting (used by olearn.Averaged) --------------------------------------
    def _average_state(self):
        """Mantissas and exponents of the voted model ``(1/Z) sum_i c_i (u_i, v_i)``.

        ``Z`` is the number of credited rounds (every round with
        ``weights="rounds"``, the rounds without update with ``"correct"``);
        before any credit the current model is returned.
        """
        credits = int(self._istate[CREDITS])
        if credits == 0:
            return self._m, self._e
        return vote_average(self._acc, self._acce, self._m, self._e, credits)

    def _average_arrays(self):
        """``(u, ue, v, ve)`` of the voted model (``v``, ``ve`` empty for PW)."""
        m, e = self._average_state()
        return _column(m, 0), _column(e, 0), _column(m, 1), _column(e, 1)

    def _averaged_decision(self, X):
        """The vote's scores.  CSR rows in O(nnz(X)): the vote of the features
        in ``X`` and of the always-on one only (:func:`vote_average` is per
        feature: bit for bit the full vote's), scored with ``X``'s columns
        renumbered onto them; dense rows, O(d) each anyway, on the full vote."""
        credits = int(self._istate[CREDITS])
        if not sp.issparse(X) or credits == 0:
            return self._scores(X, *self._average_state())
        cols = np.unique(X.indices)
        keep = np.append(cols, self._m.shape[0] - 1)   # the always-on feature last
        m, e = vote_average(self._acc[keep], self._acce[keep], self._m[keep],
                            self._e[keep], credits)
        local = (X.data, np.searchsorted(cols, X.indices).astype(X.indices.dtype),
                 X.indptr)
        return self._scores(X, m, e, rows=local, seen=self._seen[cols])


class PositiveWinnow(WinnowClassifier):
    """Positive Winnow (Littlestone 1988) as in Carvalho and Cohen (2006, section 2.2.1).

    ``score = <x~, u> - theta`` on the augmented, normalised row ``x~``; on a
    mistake every present feature's weight is multiplied by ``alpha``
    (``y = +1``) or ``beta`` (``y = -1``).  See :mod:`olearn.linear.winnow` for the
    preprocessing, the test-time rule and the exact state.

    Parameters
    ----------
    alpha : float in (1, 2**1023), default=1.5
        Promotion factor.
    beta : float in [2**-969, 1), default=0.5
        Demotion factor (the ranges: see :mod:`olearn.linear.winnow`).
    theta : float > 0, default=1.0
        Threshold theta_th.
    theta0 : float > 0, default=1.0
        Initial weight (frozen once fitted).
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import PositiveWinnow
    >>> X = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0],   # x >= 0
    ...      [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = PositiveWinnow(alpha=1.5, beta=0.5).fit(X, y)   # one pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (3, 3)
    >>> clf.predict([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()
    [1, -1]
    """

    _kind = PW
    _frozen_params = ("theta0",)

    def __init__(self, alpha=1.5, beta=0.5, theta=1.0, theta0=1.0, *,
                 n_epochs=1, shuffle=False, random_state=None, record="full"):
        self.alpha = alpha
        self.beta = beta
        self.theta = theta
        self.theta0 = theta0
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _initial(self):
        return self.theta0, None


class BalancedWinnow(WinnowClassifier):
    """Balanced Winnow as in Carvalho and Cohen (2006, section 2.2.2).

    ``score = <x~, u> - <x~, v> - theta``; on a mistake, for every present
    feature, ``u_j *= alpha, v_j *= beta`` (``y = +1``) or ``u_j *= beta,
    v_j *= alpha`` (``y = -1``); ``u = theta0_pos``, ``v = theta0_neg``
    initially.

    Parameters
    ----------
    alpha, beta, theta, theta0_pos, theta0_neg : float
        Defaults 1.5, 0.5, 1.0, 2.0, 1.0 (Table 3); the initial weights
        ``theta0_pos``, ``theta0_neg`` are frozen once fitted.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import BalancedWinnow
    >>> X = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0],   # x >= 0
    ...      [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = BalancedWinnow(alpha=1.5, beta=0.5).fit(X, y)   # one pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 4)
    >>> clf.predict([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()
    [1, -1]
    """

    _kind = BW
    _frozen_params = ("theta0_pos", "theta0_neg")

    def __init__(self, alpha=1.5, beta=0.5, theta=1.0, theta0_pos=2.0,
                 theta0_neg=1.0, *, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        self.alpha = alpha
        self.beta = beta
        self.theta = theta
        self.theta0_pos = theta0_pos
        self.theta0_neg = theta0_neg
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.record = record

    def _initial(self):
        return self.theta0_pos, self.theta0_neg


class ModifiedBalancedWinnow(BalancedWinnow):
    """Modified Balanced Winnow (MBW), Carvalho and Cohen (2006, section 2.2.3, Table 2).

    The Balanced Winnow score; an update whenever ``y * score <= margin``
    (the thick separator, ``M``), with the factors ``alpha (1 + x~_j)`` and
    ``beta (1 - x~_j)`` in place of ``alpha`` and ``beta``.

    Parameters
    ----------
    alpha, beta, theta, theta0_pos, theta0_neg : float
        As in :class:`BalancedWinnow` (Table 3 defaults).
    margin : float >= 0, default=1.0
        The thick separator M.
    n_epochs, shuffle, random_state, record
        As in :class:`olearn.Perceptron`.

    Examples
    --------
    >>> from olearn import ModifiedBalancedWinnow
    >>> X = [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0],   # x >= 0
    ...      [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    >>> y = [1, -1, 1, -1, 1, -1]
    >>> clf = ModifiedBalancedWinnow(alpha=1.5, beta=0.5, margin=1.0).fit(X, y)   # one pass, in order
    >>> int(clf.n_mistakes_), int(clf.n_updates_)
    (4, 4)
    >>> clf.predict([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).tolist()
    [1, -1]
    """

    _kind = MBW

    def __init__(self, alpha=1.5, beta=0.5, theta=1.0, theta0_pos=2.0,
                 theta0_neg=1.0, margin=1.0, *, n_epochs=1, shuffle=False,
                 random_state=None, record="full"):
        super().__init__(alpha=alpha, beta=beta, theta=theta,
                         theta0_pos=theta0_pos, theta0_neg=theta0_neg,
                         n_epochs=n_epochs, shuffle=shuffle,
                         random_state=random_state, record=record)
        self.margin = margin
