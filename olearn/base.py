"""The estimator base shared by every olearn learner.

``OnlineClassifier`` turns a compiled one-pass loop into a scikit-learn
classifier.  It owns everything that is not the algorithm: input validation
(the structure of ``X`` and ``y`` before any compiled code runs; the values
before it too, or, for learners with ``_values_checked_in_pass``, by the
pass on each row before using it), the mapping of any two class labels to
-1/+1, epochs and shuffling for ``fit``, and the online record

``mistakes_``
    bool per round seen: the prediction made *before* the update was wrong
    (the prediction is the positive class iff the score is > 0, as ``predict``);
``margins_``
    ``y_t f_t(x_t)`` per round, in the -1/+1 coding, before the update;
``n_mistakes_``, ``n_updates_``, ``n_rounds_``
    counts of mistakes, of rounds that changed the model, of rounds seen.

Every learner takes ``record="full"`` (the default: the per-round arrays
above grow by 9 bytes per round) or ``record="counts"``: only the three
counts are kept, so memory stays constant on an endless stream;
``mistakes_`` and ``margins_`` (and any other per-round record of a learner)
are then absent and reading them raises an ``AttributeError`` that says so.
``record`` cannot change between ``partial_fit`` calls.

A subclass provides the algorithm through three hooks:

``_init_state(n_features)``
    allocate the model (weight vector, mean and covariance, support set...);
``_learn(X, y, mistakes, margins) -> n_updates``
    one pass over the rows in order, ``X`` either a C-contiguous float64 array
    or the CSR triple ``(data, indices, indptr)``, ``y`` float64 in {-1, +1};
    it fills ``mistakes`` and ``margins`` (views of the record) and returns
    the number of rounds on which the model changed;
``_decision(X)``
    scores of validated rows (dense array or CSR matrix); CSR rows are scored
    from the stored model in O(nnz(X)) (the kernels of :mod:`olearn._rows`),
    never by building a d-vector first: one row at d = 10^7 must not cost a
    pass over the features (``tests/test_linear_scoring.py``).

and optionally

``_check_params()``
    validate the hyper-parameters with a clear message; called on *every*
    ``fit`` and ``partial_fit`` call (so ``set_params`` between
    ``partial_fit`` calls is validated too);
``_frozen_params``
    class attribute, names of hyper-parameters the fitted state cannot
    follow (ALMA's ``p``): changing one between ``partial_fit`` calls raises
    :class:`FrozenParameterError` (``fit`` starts afresh and accepts any);
``_model_arrays()``
    the arrays holding the model (all of it: weights, mean and covariance,
    coefficients); after every pass the base checks them for NaN/inf;
``_snapshot()`` / ``_restore(snapshot)``
    copy and put back the fitted state (default: a deep copy of every
    attribute but the hyper-parameters and the growing record); override
    for speed if a learner can copy less;
``_rounds_per_update(n_rows)``
    how many rows the learner updates on together (1; a batch for BCW/SBCW).

Numeric range, one rule for every estimator (raise, never warn: a model that
learned nothing must not be returned):

* at ``fit``/``partial_fit``, a nonzero row whose squared norm is not a
  normal float64 -- it underflows below 2.2e-308 (features around 1e-160 or
  smaller) or overflows to inf (around 1e154 or larger) -- raises
  :class:`FeatureRangeError` (a ``ValueError``) naming the row and the fix
  (rescale, e.g. ``MaxAbsScaler``), and the call learns nothing.  The check
  rides on the finiteness pass (the extreme exponents of the values; the
  rows are only summed when those leave the safe band), about 0.1% of a
  Perceptron pass.  The linear learners and the diagonal second-order
  pass (``_values_checked_in_pass``) skip that scan -- a second read of
  every value, about 10% of a Perceptron fit -- and test each row before
  using it, from a sum their pass computes anyway (``||x_t||^2``:
  :func:`olearn.linear.core.refused_row`; ``x_t' Sigma x_t`` and bounds on
  the variances: :func:`olearn.second_order._passes.diag_pass`); at a refused
  row the call is undone, ``fit`` and a first ``partial_fit`` included
  (the estimator is left exactly as before the call), and the error is the
  one the scan raises.  Learners that see rows only normalised by their L1 norm
  (the Winnows: ``_checks_row_norms = False``) learn any scale and are
  exempt.
* during a pass, a model that turns NaN/inf (or a learner's own overflow
  check, a ``FloatingPointError``) raises :class:`NonFiniteModelError`
  naming the failing round (``error.round``, counted over every round seen,
  and ``error.row``, the row of that call's ``X``); the model, the record and
  the counts are left as after the round before, so the learner still
  predicts from its last finite state and ``partial_fit`` may go on.  The
  state is snapshot before each pass (nothing is copied for the first pass
  of ``fit`` or ``partial_fit``, which restarts from ``_init_state``); on
  failure the rows are replayed by bisection from checkpoints, O(n) rows.
  Any other error in a pass rewinds the whole call.
* when scoring, rows are not range-checked (a tiny or huge row still gets a
  score of the right sign); a NaN score -- the row's products with the
  model overflowed to inf - inf -- raises :class:`FeatureRangeError` instead
  of predicting ``classes_[0]``.

Scoring sums duplicate CSR entries as ``fit`` does (``canonical``).
``shuffle`` must be a bool and ``random_state`` a valid numpy seed; both are
checked on every ``fit`` and ``partial_fit`` call, naming the parameter.
"""
import contextlib
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._checks import (_EXPONENT, FeatureRangeError, _count_nonfinite,
                      assert_finite, check_binary_labels, check_csr,
                      check_values, distinct_labels, plain_input)
from ._rewind import _PER_ROUND, NonFiniteModelError, RewindOnFailure  # noqa: F401


class NonNumericInputError(TypeError, ValueError):
    """X holds objects that are not numbers (a ValueError, and the TypeError
    scikit-learn's conventions expect)."""


class FrozenParameterError(ValueError):
    """A hyper-parameter the fitted state cannot follow changed between
    ``partial_fit`` calls."""


RECORDS = ("full", "counts")


def check_positive(name, value, allow_zero=False):
    """Raise a plain ``ValueError`` unless ``value`` is a finite real > 0 (>= 0)."""
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
          and np.isfinite(value) and (value >= 0 if allow_zero else value > 0))
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, "
                         f"got {value!r}.")


def validate_rows(estimator, X):
    """Rows to score: float64, dense or CSR, as many features as at fit."""
    if not skip_validate_data(estimator, X, None, reset=False):
        try:
            X = validate_data(estimator, X, accept_sparse="csr",
                              dtype=np.float64, reset=False,
                              ensure_all_finite=False)
        except TypeError as error:
            raise NonNumericInputError(str(error)) from error
    check_csr(X)
    assert_finite(X)
    return canonical(X)


def skip_validate_data(estimator, X, y, reset):
    """True when ``X`` and ``y`` are already in the form scikit-learn's
    ``validate_data`` returns (:func:`olearn._checks.plain_input`); its
    bookkeeping is then done here: with ``reset`` the number of features is
    set and the feature names of an earlier dataframe fit are dropped, without
    it the number of features must match and no feature names may be fitted
    (else scikit-learn's path raises or warns as usual)."""
    if not plain_input(X, y):
        return False
    if reset:
        estimator.n_features_in_ = X.shape[1]
        estimator.__dict__.pop("feature_names_in_", None)
        return True
    return (getattr(estimator, "n_features_in_", None) == X.shape[1]
            and not hasattr(estimator, "feature_names_in_"))


def _every_value_read(X):
    """Whether a pass over the rows of ``X`` reads every stored value (so it
    can check them): dense, or CSR in canonical form with no unused tail."""
    return not sp.issparse(X) or (X.has_canonical_format
                                  and X.indptr[-1] == X.data.shape[0])


#: the largest nonzero count and width whose CSR indices fit in 32 bits
_INT32_MAX = np.iinfo(np.int32).max
#: the most stored entries whose 64-bit indices :func:`narrow_index_width` copies to
#: 32 bits (64 MB of new indices); a larger matrix keeps its own and gets the loops
#: of 64-bit indices, compiled once (and cached) rather than copied on every call
NARROW_AT_MOST = 1 << 24


def canonical(X):
    """A CSR ``X`` with sorted indices and duplicate entries summed (a copy if
    needed), as scipy and every compiled loop read it, and with 32-bit
    ``indices`` and ``indptr`` whenever they fit (:func:`narrow_index_width`);
    dense ``X`` unchanged.  Call it after :func:`olearn._checks.check_csr`."""
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return narrow_index_width(X)


def narrow_index_width(X):
    """``X`` with 32-bit ``indices`` and ``indptr`` (sharing ``data``) when it
    holds 64-bit ones that fit: fewer than 2**31 stored entries and columns.

    scipy itself picks 32-bit indices for such a matrix; 64-bit ones come from
    a caller who built them (scikit-learn's estimator checks do) or from a
    reader.  numba compiles every loop apart for each index width, so one
    width halves the CSR loops compiled (and their cache) at the cost of one
    copy of the indices for that input; above :data:`NARROW_AT_MOST` entries
    the copy would cost memory a large input may not have, and ``X`` is kept.
    Only after :func:`check_csr`: the indices are then known to lie in
    ``[0, n_cols)``, so the cast is exact."""
    if not sp.issparse(X) or (X.indices.dtype == np.int32
                              and X.indptr.dtype == np.int32):
        return X
    if X.indices.shape[0] > min(NARROW_AT_MOST, _INT32_MAX) or X.shape[1] > _INT32_MAX:
        return X
    canonical_format = X.has_canonical_format
    narrowed = type(X)(X.shape, dtype=X.dtype)   # empty; filled without scipy's copies
    narrowed.data = X.data
    narrowed.indices = X.indices.astype(np.int32)
    narrowed.indptr = X.indptr.astype(np.int32)
    narrowed.has_canonical_format = canonical_format
    return narrowed


def check_run_options(estimator):
    """Refuse a ``shuffle`` that is not a bool and a ``random_state`` numpy
    cannot seed from, naming the parameter (estimators without them pass)."""
    shuffle = getattr(estimator, "shuffle", False)
    if not isinstance(shuffle, (bool, np.bool_)):
        raise ValueError(f"shuffle must be True or False, got {shuffle!r}.")
    random_state = getattr(estimator, "random_state", None)
    try:
        check_random_state(random_state)
    except (ValueError, TypeError) as error:
        raise ValueError(
            f"random_state must be None, an int in [0, 2**32 - 1] or a "
            f"numpy.random.RandomState, got {random_state!r} ({error})."
        ) from error


def checked_scores(estimator, scores):
    """Scores as a float64 vector; a NaN score (the row's products with the
    model overflowed to inf - inf) raises instead of predicting ``classes_[0]``."""
    scores = np.asarray(scores, dtype=np.float64).ravel()
    if scores.size and np.isnan(scores).any():
        row = int(np.flatnonzero(np.isnan(scores))[0])
        raise FeatureRangeError(
            f"{type(estimator).__name__}: the score of row {row} is NaN (its "
            f"products with the model overflow float64). Rescale the features, "
            f"e.g. with sklearn.preprocessing.MaxAbsScaler or StandardScaler, "
            f"as at fit.")
    return scores


def compiled_rows(X):
    """The form compiled loops take: a dense C array or a CSR triple.

    A dense ``X`` goes in as a read-only view (no copy): numba compiles a loop
    apart for a writable and for a read-only array (scikit-learn's checks pass
    read-only memory maps), so one type for both halves the loops compiled for
    dense rows, and the type checks that no loop writes into ``X``.  A
    Fortran-ordered ``X`` (scored by ``predict``) is copied to C order, for
    the same reason."""
    if sp.issparse(X):
        return (X.data, X.indices, X.indptr)
    X = np.ascontiguousarray(X)   # a Fortran-ordered X would be a third type (a copy)
    if X.flags.writeable:
        X = X.view()
        X.flags.writeable = False
    return X


class OnlineClassifier(RewindOnFailure, ClassifierMixin, BaseEstimator):
    """Base of all olearn learners (see the module docstring); a failing pass
    is undone or cut back to its finite prefix by :class:`olearn._rewind.RewindOnFailure`."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags

    #: hyper-parameters the fitted state cannot follow between partial_fit calls
    _frozen_params = ()
    #: per-round record attributes beyond mistakes_/margins_ (absent with record="counts")
    _per_round_record = ()
    #: refuse rows whose squared norm leaves float64's range (False for the
    #: learners that only see rows normalised by their L1 norm: the Winnows)
    _checks_row_norms = True
    #: the learner's compiled pass makes :func:`check_values`' tests itself
    #: on each row it reads, before using the row (it returns ``-1 - t`` at a
    #: refused row ``t``), so the up-front scan of the values -- a second read
    #: of them, about 10% of a Perceptron fit -- is skipped; a refused call
    #: raises the very error the up-front check raises (:meth:`_refuse_values`)
    #: and leaves the model as it was before the call, ``fit`` included
    _values_checked_in_pass = False

    def __getattr__(self, name):
        # only reached when normal lookup fails: explain the missing record
        if (name in _PER_ROUND or name in type(self)._per_round_record) and \
                self.__dict__.get("record") == "counts":
            raise AttributeError(
                f"{type(self).__name__} was fitted with record='counts', which "
                f"keeps only n_rounds_, n_mistakes_ and n_updates_; {name} is "
                f"not recorded. Use record='full' (the default) for the "
                f"per-round record.")
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- public API ---------------------------------------------------------
    def fit(self, X, y):
        """Reset, then learn online from the rows of ``X`` in the given order.

        With ``n_epochs > 1`` the stream is passed that many times; with
        ``shuffle=True`` each pass uses a fresh permutation drawn from
        ``random_state``.  The online record covers every round of every pass.
        """
        self._check_run_params()
        previous = self._before_fresh_state()
        X, y, labels = self._validate(X, y, reset=True)
        self._set_classes(labels)
        self._init_state(X.shape[1])
        self._reset_record()
        y_pm = self._encode(y)
        rng = check_random_state(self.random_state)
        with self._keeping_on_refusal(previous):
            for epoch in range(self.n_epochs):
                if self.shuffle:
                    order = rng.permutation(X.shape[0])
                    self._guarded_run(X[order], y_pm[order], fresh=epoch == 0,
                                      rows=order)
                else:
                    self._guarded_run(X, y_pm, fresh=epoch == 0)
        return self

    def partial_fit(self, X, y, classes=None):
        """Continue learning online from the rows of ``X`` in the given order.

        On the first call the two class labels are taken from ``classes`` if
        given, else from ``y`` (which must then hold both).
        """
        first_call = not hasattr(self, "classes_")
        self._check_run_params()
        previous = self._before_fresh_state() if first_call else None
        if not first_call:
            self._check_frozen()
        X, y, labels = self._validate(X, y, reset=first_call)
        if first_call:
            target = labels if classes is None else np.unique(classes)
        else:
            target = self.classes_
            if classes is not None and not np.array_equal(np.unique(classes),
                                                          target):
                raise ValueError(
                    f"classes={np.unique(classes).tolist()} differs from the "
                    f"classes of the first call to partial_fit, "
                    f"{target.tolist()}.")
        unknown = np.setdiff1d(labels, target)
        if unknown.size:
            where = ("classes" if first_call else
                     "the classes of the first call to partial_fit")
            raise ValueError(
                f"y has labels {unknown.tolist()} that are not among {where}, "
                f"{np.asarray(target).tolist()}.")
        if first_call:
            self._set_classes(target, from_classes=classes is not None)
            self._init_state(X.shape[1])
            self._reset_record()
        with self._keeping_on_refusal(previous):
            self._guarded_run(X, self._encode(y), fresh=first_call)
        return self

    def _before_fresh_state(self):
        """What :meth:`_keeping_on_refusal` puts back: the attributes before a
        call that starts from a fresh state (``fit``, a first ``partial_fit``).
        ``_init_state`` allocates new arrays, so the previous ones stay intact.
        Only for the learners whose pass checks the input values."""
        return dict(self.__dict__) if self._values_checked_in_pass else None

    @contextlib.contextmanager
    def _keeping_on_refusal(self, previous):
        """Input the pass refused (an error with ``refused_input``) leaves the
        estimator as before the call, as the up-front checks did."""
        try:
            yield
        except ValueError as error:
            if previous is not None and getattr(error, "refused_input", False):
                self.__dict__.clear()
                self.__dict__.update(previous)
            raise

    def decision_function(self, X):
        """Score of each row under the current model; > 0 means ``classes_[1]``."""
        check_is_fitted(self, "classes_")
        X = validate_rows(self, X)
        return checked_scores(self, self._decision(X))

    def predict(self, X):
        """Class label of each row: ``classes_[1]`` iff the score is > 0."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(int)]

    # -- validation ---------------------------------------------------------
    def _check_run_params(self):
        for name in ("n_epochs",):
            value = getattr(self, name)
            if (not isinstance(value, numbers.Integral)
                    or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a positive integer, "
                                 f"got {value!r}.")
        check_run_options(self)
        record = getattr(self, "record", "full")
        if not isinstance(record, str) or record not in RECORDS:
            raise ValueError(f"record must be one of {RECORDS}, got {record!r}.")
        self._check_params()

    def _frozen_param_values(self):
        """The values that must not change between ``partial_fit`` calls."""
        names = ("record",) + tuple(self._frozen_params)
        return {name: getattr(self, name, "full" if name == "record" else None)
                for name in names}

    def _check_frozen(self):
        old = self.__dict__.get("_param_snapshot")
        if old is None:
            return
        for name, value in self._frozen_param_values().items():
            before = old.get(name)
            if not _same(before, value):
                raise FrozenParameterError(
                    f"{type(self).__name__}: {name} changed from {before!r} to "
                    f"{value!r} between partial_fit calls, but the fitted state "
                    f"cannot follow it. Set it back, or call fit (which starts "
                    f"afresh) to learn with the new value.")

    def _model_arrays(self):
        """The arrays holding the model (checked for NaN/inf after every pass)."""
        return ()

    def _check_model(self):
        for array in self._model_arrays():
            values = np.ascontiguousarray(array).reshape(-1)
            if values.size and values.dtype == np.float64 and _count_nonfinite(
                    values.view(np.uint64), _EXPONENT):
                error = NonFiniteModelError(
                    f"{type(self).__name__} reached a non-finite model (NaN or "
                    f"infinity) by round {self.n_rounds_}; the failing round is "
                    f"located and the model rewound by _guarded_run.")
                error.from_model_check = True
                raise error

    def _check_params(self):
        """Validate the learner's own hyper-parameters (subclasses)."""

    def _validate(self, X, y, reset):
        """Checked ``X`` (float64, C-ordered or canonical CSR), ``y`` and its distinct labels."""
        if y is None or not skip_validate_data(self, X, y, reset):
            try:
                X, y = validate_data(self, X, y, accept_sparse="csr",
                                     dtype=np.float64, reset=reset,
                                     ensure_all_finite=False,
                                     y_numeric=False, multi_output=False)
            except TypeError as error:
                raise NonNumericInputError(str(error)) from error
        if not sp.issparse(X):
            X = np.ascontiguousarray(X)
        check_csr(X)
        if not (self._values_checked_in_pass and _every_value_read(X)):
            check_values(X, row_norms=self._checks_row_norms)
        if y.dtype.kind in "biuf":
            labels = distinct_labels(y)
            check_binary_labels(labels)  # check_classification_targets' rules
        else:
            check_classification_targets(y)
            labels = np.unique(y)
        return canonical(X), y, labels

    def _set_classes(self, labels, from_classes=False):
        name = type(self).__name__
        source = "classes" if from_classes else "y"
        if labels.size > 2:
            raise ValueError(
                f"Only binary classification is supported: {name} learns "
                f"two classes, but {source} has {labels.size}: "
                f"{labels.tolist()}.")
        if labels.size < 2:
            raise ValueError(
                f"{name} needs two classes, but {source} has only "
                f"{labels.size} class: {labels.tolist()}. Pass "
                f"classes=[negative, positive] to partial_fit to start from "
                f"one label.")
        self.classes_ = labels

    def _encode(self, y):
        """``y`` as +1.0 (``classes_[1]``) and -1.0 (anything else): a cast
        and two in-place operations, 7x faster than ``np.where`` with
        scalar branches (0.1 ms for 200,000 labels)."""
        y_pm = (y == self.classes_[1]).astype(np.float64)
        y_pm *= 2.0
        y_pm -= 1.0
        return y_pm

    # -- the online record --------------------------------------------------
    def _full_record(self):
        return getattr(self, "record", "full") != "counts"

    def _reset_record(self):
        self._param_snapshot = self._frozen_param_values()
        self._mistake_buffer = np.zeros(0, dtype=bool)
        self._margin_buffer = np.zeros(0)
        if self._full_record():
            self.mistakes_ = self._mistake_buffer
            self.margins_ = self._margin_buffer
        else:
            for name in _PER_ROUND:
                self.__dict__.pop(name, None)
        self.n_rounds_ = 0
        self.n_mistakes_ = 0
        self.n_updates_ = 0

    def _record_views(self, n_rounds):
        """``(mistakes, margins)`` for the next ``n_rounds`` rounds: views of the
        growing record, or, with ``record="counts"``, of scratch arrays that
        live for one call (kept after it as ``_call_scratch`` only for
        :class:`olearn.Averaged`, which reads the call's margins)."""
        if not self._full_record():
            scratch = self.__dict__.get("_call_scratch")
            if scratch is not None:
                mistakes, margins, first = scratch
                start = self.n_rounds_ - first
                if 0 <= start and start + n_rounds <= margins.shape[0]:
                    stop = start + n_rounds
                    return mistakes[start:stop], margins[start:stop]
            return np.zeros(n_rounds, dtype=bool), np.zeros(n_rounds)
        start, stop = self.n_rounds_, self.n_rounds_ + n_rounds
        if stop > self._mistake_buffer.shape[0]:
            size = max(stop, 2 * self._mistake_buffer.shape[0])
            self._mistake_buffer = np.resize(self._mistake_buffer, size)
            self._margin_buffer = np.resize(self._margin_buffer, size)
        return self._mistake_buffer[start:stop], self._margin_buffer[start:stop]

    def _run(self, X, y_pm):
        """One pass over the rows in order: the compiled loop, the record, the
        model check (no protection: see :meth:`_guarded_run`)."""
        mistakes, margins = self._record_views(y_pm.shape[0])
        n_updates = int(self._learn(compiled_rows(X), y_pm, mistakes, margins))
        if n_updates < 0:  # the pass refused row -1 - n_updates
            self._refuse_values(X, -1 - n_updates)
        self.n_updates_ += n_updates
        self.n_rounds_ += y_pm.shape[0]
        self.n_mistakes_ += int(np.count_nonzero(mistakes))
        if self._full_record():
            self.mistakes_ = self._mistake_buffer[:self.n_rounds_]
            self.margins_ = self._margin_buffer[:self.n_rounds_]
        self._check_model()

    def _refuse_values(self, X, row):
        """Raise the error the up-front checks raise for ``X`` (the learner's
        pass refused row ``row``, before learning from it): :func:`check_values`'
        first, then the learner's own (:meth:`_check_refused_row`); the caller
        rewinds the pass.  The error carries ``refused_input = True``."""
        try:
            check_values(X, row_norms=self._checks_row_norms)
            self._check_refused_row(X, row)
        except ValueError as error:
            error.refused_input = True
            raise
        raise RuntimeError(
            f"{type(self).__name__}'s pass refused row {row} of X but "
            f"olearn._checks.check_values accepts X: the two checks disagree "
            f"(an olearn bug; please report it with the row).")

    def _check_refused_row(self, X, row):
        """The learner's own tests of a row its pass refused, after
        :func:`check_values`' (none here; the Winnows: x >= 0)."""

def _same(a, b):
    """Whether two parameter values are equal (never raises: arrays, objects)."""
    if a is b:
        return True
    if (isinstance(a, numbers.Real) and isinstance(b, numbers.Real)
            and not isinstance(a, bool) and not isinstance(b, bool)):
        return bool(a == b)
    try:
        return type(a) is type(b) and bool(np.array_equal(a, b))
    except Exception:
        return False
