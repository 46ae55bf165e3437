"""The Winnow learners of Carvalho and Cohen (2006, section 2.2) in exact rational arithmetic.

The one reference of the tests that replay olearn's Winnows in ``fractions.Fraction``
(``tests/test_winnow_ties.py``, ``tests/test_winnow_fraction.py``):

* :func:`exact_winnow` -- the update rule, round by round: exactly (every product a
  rational), or ``rounded`` as olearn documents its state (``olearn.linear.winnow``:
  a weight is a float mantissa times ``2**(256 e)``, so every product ``w f`` is
  rounded once to 53 significant bits, with no overflow or underflow; MBW's factor
  is the float ``f (1 + y x / (y (1 + sum x)))`` of ``mbw_factors``);
* :func:`exact_scores` -- test-time scores of a hypothesis;
* :func:`exact_vote` -- the vote of :class:`olearn.Averaged` from the hypotheses;
* :func:`round_double` -- a rational rounded to 53 significant bits (ties to even),
  any exponent.
"""
import math
from fractions import Fraction

ALPHA, BETA = Fraction(3, 2), Fraction(1, 2)

#: the unit roundoff of a double
UNIT = Fraction(1, 2 ** 53)


def round_double(q):
    """``q`` rounded to the nearest rational with a 53-bit significand (ties to even),
    with an unbounded exponent: a product of olearn's exact Winnow state."""
    q = Fraction(q)
    if q == 0:
        return q
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if q < Fraction(2) ** e:
        e -= 1                                   # now 2**e <= q < 2**(e + 1)
    scale = Fraction(2) ** (e - 52)
    scaled = q / scale                           # in [2**52, 2**53)
    i = math.floor(scaled)
    rest = scaled - i
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and i % 2 == 1):
        i += 1
    return sign * i * scale


def _float_score(present, xt_float, u, v, balanced, theta, xsum):
    """The library's formula ``(dot + wb)/(xsum + 1) - theta`` in floats, in its
    order, from the (rounded) weights; None when a weight is outside the
    double range (the library then scales by powers of 2**256)."""
    try:
        fu = {j: float(u[j]) for j in present}
        fv = {j: float(v[j]) for j in present} if balanced else {j: 0.0 for j in present}
    except OverflowError:
        return None
    if any(not (2.0 ** -256 <= w < 2.0 ** 256) for w in list(fu.values())
           + ([*fv.values()] if balanced else [])):
        return None
    *features, b = present
    dot = 0.0
    for j in features:
        dot += xt_float[j] * (fu[j] - fv[j])
    return (dot + (fu[b] - fv[b])) / (xsum + 1.0) - float(theta)


def _score_error(present, x, u, v, balanced, theta, norm):
    """A bound on ``|float score - exact score|`` of the library's formula: ``n + 3``
    roundings of terms of size at most ``A = sum x_j (u_j + v_j) + u_b + v_b``, one of
    the division and one of ``theta`` (generous: ``(2n + 8) 2**-52``), plus what the
    scaled path loses below the double range (``2**-1070`` per term, in units of the
    largest power ``2**(256 K)`` of the row)."""
    n = len(present)
    big = sum(x[j] * (u[j] + (v[j] if balanced else 0)) for j in present)
    K = 0
    for j in present:
        for w in ((u[j], v[j]) if balanced else (u[j],)):
            if w > 0:
                K = max(K, (w.numerator.bit_length() - w.denominator.bit_length()) // 256 + 1)
    return ((2 * n + 8) * 2 * UNIT * (big / norm + abs(theta))
            + (n + 4) * Fraction(2) ** (256 * K - 1070))


def exact_winnow(kind, params, X, y, alpha=ALPHA, beta=BETA, rounded=False,
                 library=None):
    """``(mistakes, updated, hypotheses, (u, v))`` of the learner ``kind`` (``"PW"``,
    ``"BW"``, ``"MBW..."``) on the rows ``X`` (dense, values >= 0) and labels ``y``
    (+-1): ``hypotheses[t]`` is ``(u, v)`` before round ``t`` (and the final one
    last); features index 0..d-1, the always-on feature d.  ``params`` holds
    ``theta``, ``theta0`` (PW) or ``theta0_pos``, ``theta0_neg`` (and ``margin``, MBW).

    ``rounded``: every product is rounded as olearn documents (:func:`round_double`),
    and the factors are the floats olearn multiplies by.  Then a decision whose
    exact score (of the rounded weights) is within the rounding of the library's
    float formula (:func:`_score_error`) of the threshold (or, MBW, the margin) is
    *ambiguous*, unless that formula is exact on the row: with ``library = (mistakes,
    updated)`` the replay takes the library's decision there and lists the round in
    ``exact_winnow.ambiguous``; every other decision is the exact one.
    """
    d = X.shape[1]
    balanced = kind != "PW"
    mbw = kind.startswith("MBW")
    alpha, beta = Fraction(alpha), Fraction(beta)
    theta = Fraction(params["theta"])
    u = [Fraction(params["theta0" if kind == "PW" else "theta0_pos"])] * (d + 1)
    v = [Fraction(params.get("theta0_neg", 0.0))] * (d + 1)
    margin = Fraction(params.get("margin", 0.0))
    mistakes, updated, hypotheses, ambiguous, ties = [], [], [], [], []
    for t, (row, label) in enumerate(zip(X, y)):
        hypotheses.append((list(u), list(v)))
        present = [j for j in range(d) if row[j] != 0] + [d]
        values = {j: (Fraction(row[j]) if j < d else Fraction(1)) for j in present}
        norm = 1 + sum(values[j] for j in present if j < d)
        xt = {j: values[j] / norm for j in present}
        score = sum(xt[j] * (u[j] - (v[j] if balanced else 0)) for j in present) - theta
        mistake = (score > 0) != (label > 0)
        update = label * score <= margin if mbw else mistake
        if score == 0 or (mbw and label * score == margin):
            ties.append(t)
        if rounded and library is not None:
            gap = min(abs(score), abs(label * score - margin)) if mbw else abs(score)
            xsum = float(sum(row[j] for j in present if j < d))
            fs = _float_score(present, {j: float(row[j]) for j in present if j < d},
                              u, v, balanced, theta, xsum)
            exact_formula = fs is not None and Fraction(fs) == score
            if not exact_formula and gap <= _score_error(present, values, u, v, balanced,
                                                         theta, norm):
                lib_mistake, lib_update = bool(library[0][t]), bool(library[1][t])
                if (lib_mistake, lib_update) != (mistake, update):
                    ambiguous.append(t)
                mistake, update = lib_mistake, lib_update
        mistakes.append(mistake)
        updated.append(update)
        if not update:
            continue
        for j in present:
            if mbw and rounded:
                xs = float(row[j] if j < d else 1.0) / (float(norm) if label > 0
                                                      else -float(norm))
                fu, fv = (float(alpha), float(beta)) if label > 0 else (float(beta),
                                                                        float(alpha))
                up_u, up_v = Fraction(fu * (1.0 + xs)), Fraction(fv * (1.0 - xs))
            elif mbw:
                up, down = alpha * (1 + xt[j]), beta * (1 - xt[j])
                up_u, up_v = (up, down) if label > 0 else (down, up)
            else:
                up_u, up_v = (alpha, beta) if label > 0 else (beta, alpha)
            u[j] *= up_u
            v[j] *= up_v
            if rounded:
                u[j], v[j] = round_double(u[j]), round_double(v[j])
    hypotheses.append((list(u), list(v)))
    exact_winnow.ambiguous, exact_winnow.ties = ambiguous, ties
    return mistakes, updated, hypotheses, (u, v)


def exact_scores(kind, params, hypothesis, X, seen):
    """Test-time scores of ``hypothesis`` (features not seen dropped)."""
    u, v = hypothesis
    d = X.shape[1]
    theta = Fraction(params["theta"])
    out = []
    for row in X:
        present = [j for j in range(d) if row[j] != 0 and seen[j]] + [d]
        norm = 1 + sum(Fraction(row[j]) for j in present if j < d)
        out.append(sum((Fraction(row[j]) if j < d else 1) / norm
                       * (u[j] - (v[j] if kind != "PW" else 0))
                       for j in present) - theta)
    return out


def exact_vote(hypotheses, updated, weights):
    """The voted ``(u, v)``: ``(1/T) sum_t w_{t+1}`` (``"rounds"``), or the
    hypotheses weighted by their rounds without update (``"correct"``; the
    last hypothesis while nothing is credited)."""
    if weights == "rounds":
        chosen = hypotheses[1:]
    else:
        chosen = [h for h, up in zip(hypotheses[:-1], updated) if not up]
        if not chosen:
            return hypotheses[-1]
    n = len(chosen)
    return tuple([sum(h[c][j] for h in chosen) / n for j in range(len(chosen[0][c]))]
                 for c in (0, 1))
