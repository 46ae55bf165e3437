"""Which learners can be mixed, their models as arrays, and the mixing rules.

A *model* here is what crosses the network: ``("linear", w)`` for a learner whose
state is one weight vector, ``("gaussian", mu, Sigma)`` for a second-order learner
(``Sigma`` a vector of variances with ``covariance="diag"``, a d x d matrix with
``"full"``).  Mixing S models with weights ``mu_1..mu_S`` (summing to 1) is computed
in shard order, ``acc = mu_1 w_1; acc = acc + mu_k w_k`` for k = 2..S, so a serial
reference that adds in the same order gets the same bits (``tests/test_distributed.py``
and the book's ``distributed/ipm`` page write one).

Rules (``mixing=``):

``"uniform"``
    ``mu_k = 1/S`` (McDonald, Hall and Mann 2010, Figure 3 with uniform weights).
``"mistakes"``
    ``mu_k = m_k / sum_j m_j`` with ``m_k`` the mistakes shard k made in the epoch
    (their error-weighted mixing); an epoch with no mistake anywhere mixes uniformly.
``"confidence"`` (second-order learners only)
    the combination of Gaussians by KL divergence of Dredze and Crammer (2008;
    Dredze, Kulesza and Crammer 2010), as we read it: the precision of the mix is the
    ``b``-weighted mean of the shards' precisions, ``Sigma^{-1} = sum_k b_k
    Sigma_k^{-1}``, and its mean the precision-weighted mean of theirs,
    ``mu = Sigma sum_k b_k Sigma_k^{-1} mu_k``, with uniform ``b_k = 1/S``.

For a second-order learner the uniform and mistake-weighted rules mix the mean and the
covariance with the same weights (ours: the papers mix only Perceptron weights).

Mixable (:func:`family`; :func:`mixable_learners` lists olearn's public ones, and the
refusal message names them from that list): the linear learners whose state is one
weight vector (Perceptron, PA, NORMA, L2ConstrainedPA, ObjectiveRegularizedPA) and the
second-order learners whose state is ``(mu, Sigma)`` (AROW, NAROW, CW, SCW, SOP).
Kernel learners, the Winnows (multiplicative state kept exactly as mantissa and
exponent), :class:`olearn.Averaged` and the learners with more state than ``w`` or
``(mu, Sigma)`` (ALMA, ROMMA, AggressiveROMMA, L1ConstrainedPA, BCW, SBCW, ...) are
refused before any training (:func:`check_mixable`).
"""
import numpy as np

#: The names of the mixing rules ``IterativeParameterMixing(mixing=...)`` accepts (each is
#: described under ``IterativeParameterMixing``'s ``mixing`` parameter).
MIXINGS = ("uniform", "mistakes", "confidence")


class UnmixableLearnerError(TypeError, ValueError):
    """The learner's model cannot be mixed by parameter averaging."""


def family(learner):
    """``"linear"``, ``"gaussian"`` or None (not mixable)."""
    return _family_of_class(type(learner))


def _family_of_class(cls):
    from ..linear.core import LinearClassifier
    from ..second_order.core import SecondOrderClassifier
    if (issubclass(cls, LinearClassifier) and not cls._averaging
            and cls._init_state is LinearClassifier._init_state):
        return "linear"
    if (issubclass(cls, SecondOrderClassifier)
            and cls._init_state is SecondOrderClassifier._init_state):
        return "gaussian"
    return None


def mixable_learners():
    """``{"linear": [...], "gaussian": [...]}``: the names of olearn's public learners that
    :func:`family` accepts, in alphabetical order (derived from :func:`family`, so the
    refusal message cannot drift from what is accepted)."""
    import olearn
    found = {"linear": [], "gaussian": []}
    for name in sorted(olearn.__all__):
        if olearn._EXPORTS.get(name, "").startswith(("olearn.linear", "olearn.second_order")):
            cls = getattr(olearn, name)
            kind = _family_of_class(cls) if isinstance(cls, type) else None
            if kind is not None:
                found[kind].append(name)
    return found


def check_mixable(learner, mixing):
    """Raise :class:`UnmixableLearnerError` naming the fix, before any training."""
    name = type(learner).__name__
    kind = family(learner)
    if kind is None:
        from ..kernel.core import KernelClassifier
        if isinstance(learner, KernelClassifier):
            why = ("its model is a support set with coefficients; IPM in olearn mixes "
                   "weight vectors only and refuses kernel learners (mixing by the "
                   "union of the support sets is not implemented)")
        elif "Winnow" in name:
            why = ("its weights are multiplicative (kept exactly as mantissa and "
                   "exponent); averaging them is not the Winnow's update and no "
                   "mistake bound is known to survive it")
        else:
            why = ("its state holds more than one weight vector w or a Gaussian "
                   "(mu, Sigma), so averaging the weights would not give a model it "
                   "can continue from")
        names = mixable_learners()
        raise UnmixableLearnerError(
            f"IterativeParameterMixing cannot mix {name}: {why}. Use a mixable learner: "
            f"{', '.join(names['linear'])} (a weight vector) or "
            f"{', '.join(names['gaussian'])} (mean and covariance).")
    if not isinstance(mixing, str) or mixing not in MIXINGS:
        raise ValueError(f"mixing must be one of {MIXINGS}, got {mixing!r}.")
    if mixing == "confidence" and kind != "gaussian":
        raise ValueError(
            f"mixing='confidence' combines Gaussians (mean and covariance); {name} has "
            f"a weight vector only. Use mixing='uniform' or 'mistakes'.")
    if getattr(learner, "shuffle", False):
        raise ValueError(
            f"{name}(shuffle=True): IterativeParameterMixing passes each shard in its "
            f"order (the result is a function of the shards and their order); "
            f"permute the rows before splitting them into shards, and set shuffle=False.")
    if getattr(learner, "n_epochs", 1) != 1:
        raise ValueError(
            f"{name}(n_epochs={learner.n_epochs}): the epochs are "
            f"IterativeParameterMixing's (one pass per shard between two mixings); "
            f"set the learner's n_epochs=1 and IterativeParameterMixing(n_epochs=...).")
    return kind


def model_of(learner):
    """The model of a fitted mixable learner as arrays (copies)."""
    if family(learner) == "linear":
        return ("linear", learner.coef_.ravel().copy())
    return ("gaussian", learner.coef_.ravel(), learner.covariance_)


def weights(rule, mistakes):
    """Mixing weights ``mu_k`` from the epoch's mistakes per shard (float64, sum 1)."""
    mistakes = np.asarray(mistakes, dtype=np.float64)
    S = mistakes.shape[0]
    if rule == "mistakes" and mistakes.sum() > 0:
        return mistakes / mistakes.sum()
    return np.full(S, 1.0 / S)


def _ordered_sum(terms):
    acc = terms[0]
    for term in terms[1:]:
        acc = acc + term
    return acc


def mix(models, mu, rule):
    """The mixed model of ``models`` (in shard order) with weights ``mu``."""
    kind = models[0][0]
    if kind == "linear":
        return ("linear", _ordered_sum([m * model[1] for m, model in zip(mu, models)]))
    if rule == "confidence":
        if models[0][2].ndim == 1:   # diagonal: elementwise
            precision = _ordered_sum([m / model[2] for m, model in zip(mu, models)])
            weighted = _ordered_sum([m * model[1] / model[2]
                                     for m, model in zip(mu, models)])
            Sigma = 1.0 / precision
            return ("gaussian", Sigma * weighted, Sigma)
        inverses = [np.linalg.inv(model[2]) for model in models]
        precision = _ordered_sum([m * P for m, P in zip(mu, inverses)])
        weighted = _ordered_sum([m * (P @ model[1])
                                 for m, P, model in zip(mu, inverses, models)])
        Sigma = np.linalg.inv(precision)
        Sigma = (Sigma + Sigma.T) / 2.0
        return ("gaussian", np.linalg.solve(precision, weighted), Sigma)
    return ("gaussian", _ordered_sum([m * model[1] for m, model in zip(mu, models)]),
            _ordered_sum([m * model[2] for m, model in zip(mu, models)]))


def set_model(learner, model):
    """Put a mixed ``model`` into a fitted learner (its counts are kept)."""
    if model[0] == "linear":
        w = np.ascontiguousarray(model[1], dtype=np.float64)
        learner._v = w.copy()
        learner._z = np.zeros(0)
        learner._state = np.array([1.0, float(w @ w), 0.0])
    else:
        learner._set_model(model[1], model[2])
    return learner


def n_numbers(learner):
    """How many float64 numbers of the model cross the network per shard and epoch."""
    kind = family(learner)
    d = learner.n_features_in_
    if kind == "linear":
        return d
    return 2 * d if learner.covariance == "diag" else d + d * d
