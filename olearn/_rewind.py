"""A failing round leaves the model as it was (the rule of :mod:`olearn.base`).

:class:`RewindOnFailure` is the part of every olearn estimator
(:class:`olearn.base.OnlineClassifier`) that runs a pass under protection:
the fitted state is snapshot before it; if the model turns NaN or infinite,
the snapshot is restored and the rows are replayed by bisection from
checkpoints to the first failing round, whose finite prefix is kept and
which :class:`NonFiniteModelError` names; any other error restores the
snapshot.  It uses the estimator's hooks (``_run``, ``_init_state``,
``_reset_record``, ``_full_record``) and its record (``n_rounds_``).
"""
import copy

import numpy as np

#: the per-round record every learner keeps with ``record="full"``
_PER_ROUND = ("mistakes_", "margins_")


class NonFiniteModelError(FloatingPointError, ValueError):
    """The model reached NaN or infinity during a pass (or the learner's own
    overflow check stopped it); ``round`` (global, 1-based) and ``row`` (of
    the ``X`` of the call) name the failing round, and the model is the one
    after the round before."""


NonFiniteModelError.__module__ = "olearn.base"   # where users import it from


class RewindOnFailure:
    """Mixin of :class:`olearn.base.OnlineClassifier`: the protected pass."""

    # -- a failing round leaves the model as it was ---------------------------
    def _guarded_run(self, X, y_pm, fresh=False, rows=None):
        """:meth:`_run`, leaving the model as after the last finite round.

        Before the pass the fitted state is snapshot (:meth:`_snapshot`; when
        ``fresh`` the state is the freshly initialised one and nothing is
        copied).  If the model turns non-finite, the snapshot is restored and
        the rows are replayed by bisection with checkpoints -- O(n) rows in
        all, O(log n) snapshots -- to the first round after which the model is
        not finite; the finite prefix is kept (model, record, counts) and
        :class:`NonFiniteModelError` names that round.  Any other error
        restores the snapshot (nothing of the call is kept) and propagates.
        ``rows`` maps the rows of ``X`` to the caller's (fit's shuffling).
        """
        n_features = X.shape[1]
        snapshot = None if fresh else self._snapshot()
        first = self.n_rounds_
        if not self._full_record() and self.__dict__.get("_keeps_call_scratch"):
            n = y_pm.shape[0]
            self._call_scratch = (np.zeros(n, dtype=bool), np.zeros(n), first)
        try:
            self._run(X, y_pm)
            return
        except FloatingPointError as error:  # NonFiniteModelError, or a
            cause = error                     # learner's own overflow check
            self._rewind(snapshot, n_features)
        except BaseException:
            self._rewind(snapshot, n_features)
            raise
        lo, hi, cause = self._locate_failure(X, y_pm, cause)
        self._raise_nonfinite(first, lo, hi, rows, cause)

    def _rewind(self, snapshot, n_features):
        if snapshot is None:   # the pass started from a fresh state
            self._init_state(n_features)
            self._reset_record()
        else:
            self._restore(snapshot)

    def _locate_failure(self, X, y_pm, cause):
        """Replay from the restored state to the first failing unit of rounds.

        Returns ``(lo, hi, cause)``: rows ``[0, lo)`` are learned (finite
        model) and learning rows ``[lo, hi)`` fails with ``cause`` (a
        :class:`FloatingPointError`); ``hi - lo`` is one round, or one batch
        for learners that update per batch (:meth:`_rounds_per_update`).
        """
        n = y_pm.shape[0]
        unit = max(1, int(self._rounds_per_update(n)))
        lo, hi = 0, n
        while hi - lo > unit:
            mid = lo + max(1, (hi - lo) // unit // 2) * unit
            checkpoint = self._snapshot()
            try:
                self._run(X[lo:mid], y_pm[lo:mid])
                lo = mid
            except FloatingPointError as error:
                self._restore(checkpoint)
                hi, cause = mid, error
        return lo, hi, cause

    def _raise_nonfinite(self, first, lo, hi, rows, cause):
        name = type(self).__name__
        where = (lambda i: int(rows[i])) if rows is not None else int
        if hi - lo == 1:
            at = (f"round {first + lo + 1} (row {where(lo)} of the X of this "
                  f"call)")
        else:
            at = (f"the batch of rounds {first + lo + 1} to {first + hi} "
                  f"(rows {where(lo)} to {where(hi - 1)} of the X of this call)")
        # the base's own scan of the model, or the learner's error (kept whole:
        # it may say more, e.g. which kernel bound overflowed)
        what = ("reached a non-finite model (NaN or infinity)"
                if getattr(cause, "from_model_check", False) else
                f"stopped on an overflow ({cause})")
        # the generic advice, unless the learner's own message names the
        # cause and its fix (``names_fix``), which the advice could contradict
        advice = ("" if getattr(cause, "names_fix", False) else
                  " The values of X or the hyper-parameters leave float64's "
                  "range (too large, or too small for a step size 1/||x||^2): "
                  "scale the features (e.g. sklearn.preprocessing.MaxAbsScaler "
                  "or StandardScaler) or use smaller step parameters.")
        error = NonFiniteModelError(
            f"{name} {what} at {at}. The "
            f"model is left as it was after round {first + lo} (n_rounds_ = "
            f"{self.n_rounds_}) and still predicts from there.{advice}")
        error.round = first + lo + 1
        error.row = where(lo)
        raise error from cause

    def _rounds_per_update(self, n_rows):
        """Rounds the learner updates on together in a pass of ``n_rows`` rows:
        the replay after a failure splits a pass only between such units.  1
        for online learners; learners taking ``batch_size`` (BCW, SBCW) learn
        each call in batches of that many rows, or as one batch when None."""
        if "batch_size" not in self._get_param_names():
            return 1
        return n_rows if self.batch_size is None else int(self.batch_size)

    def _snapshot(self):
        """A copy of the fitted state, for :meth:`_restore`.

        The default deep-copies every entry of ``__getstate__()`` except the
        hyper-parameters and the growing record (the ``*_buffer`` arrays, the
        per-round attributes, ``_call_scratch``), which :meth:`_restore` trims
        to the restored ``n_rounds_`` instead.  A nested olearn learner is
        snapshot the same way (its record is not copied).  Subclasses may
        override both for speed.
        """
        skip = self._unsnapshotted()
        state = {}
        for name, value in self.__getstate__().items():
            if name in skip or name.endswith("_buffer"):
                continue
            if isinstance(value, RewindOnFailure):
                state[name] = _Nested(value, value._snapshot()
                                      if hasattr(value, "n_rounds_") else None)
            else:
                state[name] = copy.deepcopy(value)
        return state

    def _restore(self, snapshot):
        """Put back the state of :meth:`_snapshot` (consumes the snapshot)."""
        skip = self._unsnapshotted()
        for name in list(self.__dict__):
            if (name not in snapshot and name not in skip
                    and not name.endswith("_buffer")):
                del self.__dict__[name]   # created by the failed pass
        for name, value in snapshot.items():
            if isinstance(value, _Nested):
                if value.state is not None:
                    value.estimator._restore(value.state)
                value = value.estimator
            self.__dict__[name] = value
        self._trim_record()

    def _unsnapshotted(self):
        return (set(self._get_param_names()) | set(_PER_ROUND)
                | set(self._per_round_record) | {"_call_scratch"})

    def _trim_record(self):
        """Per-round record attributes cut back to ``n_rounds_``."""
        n = self.__dict__.get("n_rounds_", 0)
        for name in _PER_ROUND + tuple(self._per_round_record):
            value = self.__dict__.get(name)
            if isinstance(value, np.ndarray) and value.shape[0] > n:
                self.__dict__[name] = value[:n]


class _Nested:
    """A nested learner and its snapshot (restored in place, record kept)."""

    __slots__ = ("estimator", "state")

    def __init__(self, estimator, state):
        self.estimator = estimator
        self.state = state
