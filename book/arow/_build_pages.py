"""Writes the pages of the chapter "Confidence-weighted learning and AROW".

The pages are kept as code here (one list of cells per page) so that their
source can be reviewed as text; run ``python book/arow/_build_pages.py`` to
rewrite the notebooks (without outputs), then execute them.
"""
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent


def md(text):
    return new_markdown_cell(text.strip("\n"))


def code(text, tags=()):
    cell = new_code_cell(text.strip("\n"))
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def hidden(text):
    return code(text, tags=("remove-input",))


SETUP = """
%matplotlib inline
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

import olearn
from olearn import AROW, CW, NAROW, PA, SCW, SOP
from olearn.datasets import load


def glue_number(name, value):
    glue(name, float(value), display=False)
"""

# ---------------------------------------------------------------------------------
INTUITION = [
    md("""
# Confidence-weighted learning: the picture

A first-order learner (Perceptron, PA) keeps one weight vector and moves all of its
coordinates with the same step size. Confidence-weighted (CW) learning
{cite:p}`dredze2008cw` keeps a Gaussian distribution $\\mathcal N(\\boldsymbol\\mu, \\Sigma)$
over weight vectors instead: $\\mu_p$ is the current guess of weight $p$ and
$\\Sigma_{pp}$ how unsure we are about it. Rare features keep a large variance and move a
lot when they finally appear; frequent features become confident and move little. The
prediction uses the mean: $\\hat y = \\operatorname{sign}(\\boldsymbol\\mu\\cdot\\mathbf x)$.

CW asks, on each round, for the smallest change of the distribution (in KL divergence)
such that the new distribution classifies the current example correctly with probability
at least $\\eta$. This is a hard constraint: a mislabelled example drags the mean as far as
needed, and the variance shrinks anyway. AROW {cite:p}`crammer2009arow` ("adaptive
regularization of weight vectors") turns the two parts of that constraint into
regularisers, a squared hinge loss for the mean and a confidence term
$\\mathbf x_t^\\top\\Sigma\\mathbf x_t$ for the covariance, which makes it robust to label
noise. This chapter derives AROW and its relatives, checks every closed form against a
convex solver, checks AROW's mistake bound on real data and reproduces the paper's
experiments.
"""),
    code(SETUP),
    md("""
## The ellipse of confidence

A two-dimensional stream: the label is the sign of $x_1 + 0.3 x_2$ and the second
feature is five times rarer than the first (it is zero in 80% of the rows). Below, the
contour $\\{\\mathbf w : (\\mathbf w-\\boldsymbol\\mu)^\\top\\Sigma^{-1}(\\mathbf w-\\boldsymbol\\mu) = 1\\}$
of AROW's Gaussian after 0, 5, 20 and 200 rounds. The ellipse shrinks fastest along
the frequent feature, and stays wide along the rare one.
"""),
    code("""
rng = np.random.default_rng(1)
n = 200
X = rng.standard_normal((n, 2))
X[rng.random(n) < 0.8, 1] = 0.0                 # the rare feature
y = np.where(X @ np.array([1.0, 0.3]) > 0, 1, -1)

fig, ax = plt.subplots(figsize=(5, 4.2))
angle = np.linspace(0, 2 * np.pi, 200)
circle = np.stack([np.cos(angle), np.sin(angle)])
est = AROW(r=1.0)
widths = {}
seen = 0
for stop, colour in zip((0, 5, 20, 200), ("0.7", "tab:blue", "tab:orange", "tab:red")):
    if stop > seen:
        est.partial_fit(X[seen:stop], y[seen:stop], classes=[-1, 1])
        seen = stop
        mu, Sigma = est.coef_.ravel(), est.covariance_
    else:
        mu, Sigma = np.zeros(2), np.eye(2)
    ellipse = mu[:, None] + np.linalg.cholesky(Sigma) @ circle
    ax.plot(*ellipse, color=colour, label=f"after {stop} rounds")
    ax.plot(*mu, "o", color=colour)
    widths[stop] = np.sqrt(np.diag(Sigma))
ax.set_xlabel("$w_1$ (frequent feature)")
ax.set_ylabel("$w_2$ (rare feature)")
ax.set_aspect("equal")
ax.legend(fontsize=8)
glue("fig_ellipse", fig, display=False)
plt.close(fig)
glue_number("sd1_200", widths[200][0])
glue_number("sd2_200", widths[200][1])
"""),
    md("""
```{glue:figure} fig_ellipse
:name: fig-arow-ellipse

AROW's Gaussian over weight vectors on a two-feature stream where feature 2 is rare:
mean (dot) and one-standard-deviation ellipse after 0, 5, 20 and 200 rounds.
```

After 200 rounds the standard deviation of $w_1$ is {glue:text}`sd1_200:.3f` and that of
the rare $w_2$ is {glue:text}`sd2_200:.3f` ({numref}`fig-arow-ellipse`): the next example
that has $x_2 \\neq 0$ will move $w_2$ much more than $w_1$.

## One flipped label: CW against AROW

CW's hard constraint $y_t\\,\\boldsymbol\\mu\\cdot\\mathbf x_t \\ge \\phi\\,\\mathbf x_t^\\top\\Sigma\\mathbf x_t$
must hold after every update, whatever the label. Take a learner that has seen 200 clean
rows, then show it the next row with its label flipped, and measure how far the mean
moves and how much the test accuracy drops.
"""),
    code("""
X_test = rng.standard_normal((5000, 2))
y_test = np.where(X_test @ np.array([1.0, 0.3]) > 0, 1, -1)
x_bad = np.array([[1.5, 0.0]])                  # clearly positive...
y_bad = np.array([-1])                          # ...labelled negative
rows = []
for name, make in (("CW (variance, eta=0.95)", lambda: CW(eta=0.95)),
                   ("AROW (r=1)", lambda: AROW(r=1.0))):
    est = make().fit(X, y)
    before_mu, before_acc = est.coef_.ravel().copy(), est.score(X_test, y_test)
    est.partial_fit(x_bad, y_bad)
    rows.append({"learner": name, "accuracy before": before_acc,
                 "accuracy after": est.score(X_test, y_test),
                 "|mean move|": np.linalg.norm(est.coef_.ravel() - before_mu)})
flip = pd.DataFrame(rows).set_index("learner")
glue_number("cw_move", flip.iloc[0]["|mean move|"])
glue_number("arow_move", flip.iloc[1]["|mean move|"])
flip.round(4)
"""),
    md("""
The flipped label moves CW's mean by {glue:text}`cw_move:.3f` and AROW's by
{glue:text}`arow_move:.3f`. AROW's step is bounded by its loss term: the squared hinge
loss is weighed against the KL divergence with weight $1/(2r)$, never enforced.

## Exercises

```{exercise}
:label: ex-arow-shrink

Show from AROW's covariance update $\\Sigma_t^{-1} = \\Sigma_{t-1}^{-1} + \\mathbf x_t\\mathbf x_t^\\top / r$
that the variance of every direction can only decrease, and that a direction orthogonal to
every example seen so far keeps its initial variance.
```

```{solution} ex-arow-shrink
:class: dropdown

$\\Sigma_t^{-1} - \\Sigma_{t-1}^{-1} = \\mathbf x_t\\mathbf x_t^\\top/r \\succeq 0$, so
$\\Sigma_t^{-1} \\succeq \\Sigma_{t-1}^{-1}$ and, inverting (an order-reversing operation on
positive definite matrices), $\\Sigma_t \\preceq \\Sigma_{t-1}$: for every $\\mathbf v$,
$\\mathbf v^\\top\\Sigma_t\\mathbf v \\le \\mathbf v^\\top\\Sigma_{t-1}\\mathbf v$. If $\\mathbf v$ is
orthogonal to every $\\mathbf x_s$, then $\\Sigma_t^{-1}\\mathbf v = \\Sigma_0^{-1}\\mathbf v = \\mathbf v/a$,
so $\\Sigma_t\\mathbf v = a\\mathbf v$. The cell below checks both on the stream above.
```
"""),
    code("""
est = AROW(a=2.0).fit(np.c_[X, np.zeros(n)], y)     # a third feature that is always 0
S = est.covariance_
assert np.allclose(S[2], [0, 0, 2.0]) and np.linalg.eigvalsh(2.0 * np.eye(3) - S).min() >= -1e-12
print("third direction keeps variance a = 2; 2I - Sigma is positive semi-definite")
""", tags=("remove-input",)),
    md("""
```{exercise}
:label: ex-arow-margin

After an AROW update with $\\ell_t = 1 - y_t m_t > 0$, what is the new margin
$y_t\\boldsymbol\\mu_t\\cdot\\mathbf x_t$? Is the example classified with margin 1?
```

```{solution} ex-arow-margin
:class: dropdown

With $\\chi_t = \\mathbf x_t^\\top\\Sigma_{t-1}\\mathbf x_t$, eq. (7) gives
$y_t\\boldsymbol\\mu_t\\cdot\\mathbf x_t = m_t y_t + \\ell_t\\chi_t/(\\chi_t + r)
= 1 - \\ell_t\\, r/(\\chi_t + r) < 1$: the margin moves towards 1 but never reaches it, the
more so the smaller $r$ is relative to the confidence $\\chi_t$ (compare CW, which enforces
its constraint exactly). The cell below checks the formula on random rounds.
```
"""),
    code("""
from olearn.verify.second_order import library_round, random_round
for k in range(50):
    mu, Sigma, x, yk, params = random_round(np.random.default_rng(k), "AROW", "active")
    new_mu, _, _ = library_round(AROW(r=params["r"]), mu, Sigma, x, yk)
    chi, loss = x @ Sigma @ x, 1 - yk * (mu @ x)
    assert np.isclose(yk * (new_mu @ x), 1 - loss * params["r"] / (chi + params["r"]))
print("new margin = 1 - l r / (chi + r) on 50 random rounds")
""", tags=("remove-input",)),
]

# ---------------------------------------------------------------------------------
DERIVATION = [
    md("""
# Deriving AROW, and checking it with cvxpy

## The objective

On round $t$ AROW {cite:p}`crammer2009arow` minimises, over the mean and the covariance,

$$
\\mathcal C(\\boldsymbol\\mu,\\Sigma) = D_{\\mathrm{KL}}\\big(\\mathcal N(\\boldsymbol\\mu,\\Sigma)\\,\\|\\,
\\mathcal N(\\boldsymbol\\mu_{t-1},\\Sigma_{t-1})\\big) + \\frac{1}{2r}\\,\\ell_{h^2}(y_t,\\boldsymbol\\mu\\cdot\\mathbf x_t)
+ \\frac{1}{2r}\\,\\mathbf x_t^\\top\\Sigma\\mathbf x_t ,
$$

(eq. (1) of the paper with $\\lambda_1 = \\lambda_2 = 1/(2r)$), where
$\\ell_{h^2}(y, z) = \\max(0, 1 - yz)^2$. Writing the KL divergence of two Gaussians out,

$$
\\mathcal C = \\underbrace{\\tfrac12(\\boldsymbol\\mu_{t-1}-\\boldsymbol\\mu)^\\top\\Sigma_{t-1}^{-1}(\\boldsymbol\\mu_{t-1}-\\boldsymbol\\mu)
+ \\tfrac{1}{2r}\\ell_{h^2}(y_t,\\boldsymbol\\mu\\cdot\\mathbf x_t)}_{\\mathcal C_1(\\boldsymbol\\mu)}
+ \\underbrace{\\tfrac12\\log\\frac{\\det\\Sigma_{t-1}}{\\det\\Sigma} + \\tfrac12\\operatorname{Tr}(\\Sigma_{t-1}^{-1}\\Sigma)
- \\tfrac d2 + \\tfrac1{2r}\\mathbf x_t^\\top\\Sigma\\mathbf x_t}_{\\mathcal C_2(\\Sigma)}
$$

(eq. (2)): the objective separates, and the mean and the covariance can be updated
independently. Following CW, AROW updates $\\Sigma$ only on rounds where the mean changes.

## The mean

$\\mathcal C_1$ is convex and differentiable. Setting its gradient to zero,

$$
\\Sigma_{t-1}^{-1}(\\boldsymbol\\mu - \\boldsymbol\\mu_{t-1}) = \\frac{1}{r}\\max(0, 1 - y_t\\boldsymbol\\mu\\cdot\\mathbf x_t)\\,y_t\\mathbf x_t .
$$

If $1 - y_t\\boldsymbol\\mu_{t-1}\\cdot\\mathbf x_t \\le 0$ then $\\boldsymbol\\mu = \\boldsymbol\\mu_{t-1}$
solves it. Otherwise write $\\boldsymbol\\mu = \\boldsymbol\\mu_{t-1} + c\\,y_t\\Sigma_{t-1}\\mathbf x_t$;
the condition becomes $c\\,r = 1 - y_t m_t - c\\chi_t$ with $m_t = \\boldsymbol\\mu_{t-1}\\cdot\\mathbf x_t$,
$\\chi_t = \\mathbf x_t^\\top\\Sigma_{t-1}\\mathbf x_t$, so $c = (1 - y_tm_t)/(\\chi_t + r)$ and

$$
\\boldsymbol\\mu_t = \\boldsymbol\\mu_{t-1} + \\alpha_t y_t\\Sigma_{t-1}\\mathbf x_t,\\qquad
\\alpha_t = \\frac{\\max(0, 1 - y_t m_t)}{\\chi_t + r} \\qquad \\text{(eq. (7))}.
$$

## The covariance

Using $\\partial\\log\\det\\Sigma/\\partial\\Sigma = \\Sigma^{-1}$ and
$\\partial\\,\\mathbf x^\\top\\Sigma\\mathbf x/\\partial\\Sigma = \\mathbf x\\mathbf x^\\top$, the stationarity
condition of $\\mathcal C_2$ is $-\\tfrac12\\Sigma^{-1} + \\tfrac12\\Sigma_{t-1}^{-1} + \\tfrac1{2r}\\mathbf x_t\\mathbf x_t^\\top = 0$:

$$
\\Sigma_t^{-1} = \\Sigma_{t-1}^{-1} + \\frac{\\mathbf x_t\\mathbf x_t^\\top}{r}\\quad\\text{(eq. (8))},\\qquad
\\Sigma_t = \\Sigma_{t-1} - \\beta_t\\,\\Sigma_{t-1}\\mathbf x_t\\mathbf x_t^\\top\\Sigma_{t-1},\\quad
\\beta_t = \\frac{1}{\\chi_t + r}\\quad\\text{(eq. (9), Sherman-Morrison)}.
$$

This is the algorithm of the paper's Figure 1, `olearn.AROW`. The implementation keeps
only the upper triangle of $\\Sigma$ (so the matrix a user reads, `covariance_`, is
exactly symmetric), never forms $\\mathbf x\\mathbf x^\\top$, and applies round $t$'s
rank-one update during the sweep that computes $\\Sigma\\mathbf x_{t+1}$ in round $t+1$
(one read and one write of the triangle per round).

## The check: a didactic sketch, the library, and cvxpy

First a four-line sketch of Figure 1 in numpy, asserted equal to the library on a stream:
"""),
    code(SETUP),
    code("""
def arow_sketch(X, y, r):
    mu, S = np.zeros(X.shape[1]), np.eye(X.shape[1])
    for x, yt in zip(X, y):
        m, chi = mu @ x, x @ S @ x
        if yt * m < 1:
            s = S @ x
            mu, S = mu + max(0, 1 - yt * m) / (chi + r) * yt * s, S - np.outer(s, s) / (chi + r)
    return mu, S


X, y = load("german.numer")
X = X.toarray() / np.abs(X.toarray()).max(axis=0)
mu_sketch, S_sketch = arow_sketch(X, np.where(y > 0, 1, -1), r=0.5)
est = AROW(r=0.5).fit(X, y)
assert np.allclose(est.coef_.ravel(), mu_sketch, atol=1e-10)
assert np.allclose(est.covariance_, S_sketch, atol=1e-10)
print("sketch == olearn.AROW on german.numer (1000 rounds)")
""", tags=("remove-input",)),
    md("""
Then the mean update against cvxpy's minimiser of $\\mathcal C_1$ with $\\Sigma$ fixed, and the
covariance against cvxpy's minimiser of $\\mathcal C_2$ (a log-det program) and against the
closed form of (8), on random rounds where the learner updates ("active") and where it does
not ("inactive": then the paper keeps $\\Sigma_{t-1}$, and so do we). Errors are the largest
absolute difference relative to the largest entry.
"""),
    code("""
# NBVAL_CHECK_OUTPUT
import warnings
from olearn.verify import check_second_order

with warnings.catch_warnings():
    warnings.simplefilter("ignore")           # cvxpy's "solution may be inaccurate" retries
    arow_check = check_second_order("AROW", n_rounds=20, random_state=0)
summary = arow_check.groupby("case")[["mu_error", "Sigma_error", "Sigma_error_eq8"]].max()
assert (arow_check["updated"] == (arow_check["case"] == "active")).all()
assert summary["mu_error"].max() < 1e-6 and summary["Sigma_error"].max() < 1e-4
assert summary["Sigma_error_eq8"].max() < 1e-12
print(summary.map(lambda v: "< 1e-12" if v < 1e-12 else ("< 1e-6" if v < 1e-6 else "< 1e-4")).to_string())
"""),
    md("""
The mean agrees with cvxpy to solver precision, the covariance agrees with the closed form
of (8) to round-off and with the log-det program to the accuracy of the exponential-cone
solver.

## Exercises

```{exercise}
:label: ex-arow-pa2

Show that with $\\Sigma_{t-1} = I$ the mean update of AROW is the PA-II update
$\\mathbf w_t = \\mathbf w_{t-1} + \\tau y_t\\mathbf x_t$ with $\\tau = \\ell_t/(\\|\\mathbf x_t\\|^2 + 1/(2C))$,
and find $C$ as a function of $r$.
```

```{solution} ex-arow-pa2
:class: dropdown

With $\\Sigma_{t-1} = I$, $\\chi_t = \\|\\mathbf x_t\\|^2$ and (7) reads
$\\boldsymbol\\mu_t = \\boldsymbol\\mu_{t-1} + \\ell_t/(\\|\\mathbf x_t\\|^2 + r)\\,y_t\\mathbf x_t$: PA-II
with $1/(2C) = r$, i.e. $C = 1/(2r)$. The first round of AROW (from $\\Sigma_0 = I$) is
therefore a PA-II round; later rounds differ because $\\Sigma$ has shrunk. Checked below.
```
"""),
    code("""
x0, y0 = X[:1], y[:1]
for r in (0.1, 1.0, 4.0):
    a = AROW(r=r).partial_fit(x0, y0, classes=np.unique(y)).coef_
    p = PA(C=1 / (2 * r), variant="PA-II").partial_fit(x0, y0, classes=np.unique(y)).coef_
    assert np.allclose(a, p)
print("AROW's first round == PA-II with C = 1/(2r)")
""", tags=("remove-input",)),
    md("""
```{exercise}
:label: ex-arow-inactive

Why does the paper leave $\\Sigma$ unchanged on rounds where the mean does not move,
although $\\mathcal C_2$ would shrink it on every round? What would happen to $\\Sigma$ over a
long stream of correctly classified examples otherwise?
```

```{solution} ex-arow-inactive
:class: dropdown

$\\mathcal C_2$ does not depend on the label: minimising it on every round would give
$\\Sigma_T^{-1} = I + \\sum_t \\mathbf x_t\\mathbf x_t^\\top/r$ over all rounds, and the confidence
would grow on examples that carry no information for the mean. The paper follows CW's
conservative rule (update only when the loss is positive), which also makes the analysis of
Section 4 work: only update rounds enter $X_{\\mathcal A}$ in Theorem 2.
```
"""),
]

# ---------------------------------------------------------------------------------
FAMILY = [
    md(r"""
# The other second-order learners

All learners of this family keep $(\boldsymbol\mu, \Sigma)$ and, with
$m_t = \boldsymbol\mu\cdot\mathbf x_t$ and $\chi_t = V_t = \mathbf x_t^\top\Sigma\mathbf x_t$, move
$\boldsymbol\mu \leftarrow \boldsymbol\mu + \alpha_t\Sigma\mathbf x_t$ and
$\Sigma^{-1} \leftarrow \Sigma^{-1} + \gamma_t\mathbf x_t\mathbf x_t^\top$; they differ in $\alpha_t$ and
$\gamma_t$. Write $M_t = y_tm_t$ and $\phi = \Phi^{-1}(\eta)$.

| learner | per-round problem | update when | $\alpha_t / y_t$ | $\gamma_t$ |
|---|---|---|---|---|
| AROW {cite:p}`crammer2009arow` | KL $+ \frac1{2r}\ell_{h^2} + \frac1{2r}\mathbf x^\top\Sigma\mathbf x$ | $M_t < 1$ | $\frac{1 - M_t}{\chi_t + r}$ | $\frac1r$ |
| CW, variance {cite:p}`dredze2008cw` | KL s.t. $y\boldsymbol\mu\cdot\mathbf x \ge \phi\,\mathbf x^\top\Sigma\mathbf x$ | $\alpha_t > 0$ | root of $2\phi V^2\alpha^2 + (1 + 2\phi M)V\alpha + (M - \phi V) = 0$ | $2\alpha\phi$ |
| CW, stdev {cite:p}`crammer2008cw` | KL s.t. $y\boldsymbol\mu\cdot\mathbf x \ge \phi\sqrt{\mathbf x^\top\Sigma\mathbf x}$ | $M_t < \phi\sqrt{V_t}$ | $\frac{-M\psi + \sqrt{M^2\phi^4/4 + V\phi^2\zeta}}{V\zeta}$ | $\alpha\phi/\sqrt{u}$ |
| SCW-I {cite:p}`wang2012scw` | KL $+ C\,\ell^\phi$ | $\ell^\phi > 0$ | $\min(C, \text{CW stdev})$ | $\alpha\phi/\sqrt{u}$ |
| SCW-II {cite:p}`wang2012scw` | KL $+ C\,(\ell^\phi)^2$ | $\ell^\phi > 0$ | $\frac{-(2Mn + \phi^2MV) + \gamma}{2(n^2 + nV\phi^2)}$ | $\alpha\phi/\sqrt u$ |
| SOP {cite:p}`cesabianchi2005sop` | (mistake-driven) | $y_t f_t \le 0$ | $\frac{1 - M_t}{1 + \chi_t}$ | $1$ |
| NAROW {cite:p}`orabona2010narow` | (adaptive $r_t$) | $y_tf_t < 1$ | $\frac{r_t - M_t}{r_t + \chi_t}$ or $1$ | $1/r_t$ or $0$ |

with $\psi = 1 + \phi^2/2$, $\zeta = 1 + \phi^2$,
$u = \tfrac14\big(-\alpha V\phi + \sqrt{\alpha^2V^2\phi^2 + 4V}\big)^2$ (the new variance
$\mathbf x^\top\Sigma_t\mathbf x$), $\ell^\phi = \max(0, \phi\sqrt V - M)$, $n = V + 1/(2C)$ and
$\gamma = \phi\sqrt{\phi^2M^2V^2 + 4nV(n + V\phi^2)}$. The variance version's root is the
positive one; it comes from the KKT conditions
$\Sigma_t^{-1} = \Sigma_{t-1}^{-1} + 2\alpha\phi\,\mathbf x\mathbf x^\top$,
$\boldsymbol\mu_t = \boldsymbol\mu_{t-1} + \alpha y\Sigma_{t-1}\mathbf x$ and an active constraint.

**SOP** keeps $A = aI + \sum_{\text{mistakes}}\mathbf x\mathbf x^\top$ and
$\mathbf v = \sum_{\text{mistakes}} y\mathbf x$ and predicts with the current row already in
the matrix, $f_t = \mathbf x_t^\top(A + \mathbf x_t\mathbf x_t^\top)^{-1}\mathbf v$; with $\Sigma = A^{-1}$
and $\boldsymbol\mu = \Sigma\mathbf v$ this is $f_t = m_t/(1 + \chi_t)$ (so $\Sigma_0 = I/a$).

**NAROW** sets $r_t = \chi_t/(b\chi_t - 1)$ when $\chi_t > 1/b$ and $r_t = +\infty$ otherwise,
in Orabona and Crammer's framework: $A_t = A_{t-1} + \mathbf x_t\mathbf x_t^\top/r_t$,
$\boldsymbol\theta_t = \boldsymbol\theta_{t-1} + y_t\mathbf x_t$, $\boldsymbol\mu = A^{-1}\boldsymbol\theta$,
prediction with the current row in the matrix. When $r_t = +\infty$ the matrix is fixed but
the mean still takes $y_t\Sigma\mathbf x_t$. The paper's text is not among our sources; the
first author's own implementation confirms this reading: `narow_train.m` of Orabona's DOGMA
MATLAB toolbox (a copy: <https://github.com/denizyuret/dogma>) sets $r_t = \infty$ when
$\chi_t < 1/b$ (its formula also gives $\infty$ at $\chi_t = 1/b$), and on every round with
$y_tf_t < 1$ adds $y_t\mathbf x_t$ to $\boldsymbol\theta$ while it applies the rank-one
update to $\Sigma$ only when $r_t < \infty$. Public implementations that set $r_t = -\infty$
there (olpy, giving $\beta = -0$) or plug $r_t = \infty$ into AROW's
$\alpha_t = \max(0, 1 - M_t)/(\chi_t + r_t)$ freeze the mean instead
(`tests/test_second_order_peer.py`; the three cases of $r_t$ are tested in
`tests/test_second_order.py::test_narow_threshold_cases`).

## Each closed form against its program

For CW and SCW the per-round programs are written in cvxpy in the variables of the papers:
$(\boldsymbol\mu, \Sigma)$ for the variance version (the constraint is linear in both),
$(\boldsymbol\mu, \Upsilon = \Sigma^{1/2})$ for the stdev version and SCW, where the constraint
$\phi\|\Upsilon\mathbf x\| \le y\boldsymbol\mu\cdot\mathbf x$ is a second-order cone.
"""),
    code(SETUP),
    code(r"""
# NBVAL_CHECK_OUTPUT
import warnings
from olearn.verify import check_second_order
from olearn.verify.second_order import RULES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    checks = pd.concat([check_second_order(rule, n_rounds=8, random_state=2) for rule in RULES])
worst = checks.groupby(["rule", "case"])[["mu_error", "Sigma_error"]].max()
assert (checks["updated"] == (checks["case"] == "active")).all()
assert (worst < 2e-4).all().all()
print(worst.map(lambda v: "< 1e-8" if v < 1e-8 else ("< 1e-6" if v < 1e-6 else "< 2e-4")).to_string())
"""),
    md(r"""
Every closed form is the argmin of its program, to the solver's accuracy (log-det terms
make the covariance part an exponential-cone program, solved to about $10^{-5}$).

## Diagonal covariance

For high-dimensional data the AROW paper (footnote 2) drops the off-diagonal terms
"following the approach of" {cite:t}`dredze2008cw`, whose diagonal Variance algorithm adds
the diagonal of the precision update: $1/\Sigma_{jj} \leftarrow 1/\Sigma_{jj} + \gamma_t x_{tj}^2$.
That is olearn's default (`diagonal="precision"`). Several public implementations instead
keep the diagonal of the covariance update, $\Sigma_{jj} \leftarrow \Sigma_{jj} - \beta_t(\Sigma_{jj}x_{tj})^2$,
available as `diagonal="covariance"` (ours, not the papers'). Both touch only the nonzeros
of $\mathbf x_t$. On rows with a single nonzero both equal the full-covariance learner
(`tests/test_second_order.py`); on text they differ:
"""),
    code(r"""
# NBVAL_CHECK_OUTPUT
data = load("20newsgroups-pc-vs-mac")
X, y = data.X, data.y
order = np.random.default_rng(0).permutation(X.shape[0])
X, y = X[order], y[order]
rows = {}
for name, make in (("AROW r=1", lambda g: AROW(covariance="diag", diagonal=g)),
                   ("CW eta=0.95", lambda g: CW(covariance="diag", diagonal=g)),
                   ("SCW-I", lambda g: SCW(covariance="diag", diagonal=g))):
    rows[name] = {g: make(g).fit(X, y).n_mistakes_ for g in ("precision", "covariance")}
projections = pd.DataFrame(rows).T
projections.columns = ["mistakes, precision projection", "mistakes, covariance projection"]
print(projections.to_string())
"""),
    md(r"""
## When the variance collapses

On rows where features have very different scales, or after many mistakes with a large
margin violation, the exact (stdev) CW update shrinks the variance along $\mathbf x_t$
roughly quadratically ($u \approx V^2/(M\phi)^2$ when $M \ll 0$), and the variance version
geometrically. On raw spambase (feature values up to 15841) the diagonal variance CW drives
some variances below $10^{-300}$; the next round that violates the constraint needs
$\alpha \approx |M|/V$, which overflows. olearn stops the pass before applying that step and
raises a `FloatingPointError` that says so (never a silent NaN): scale the features. The
benchmark (`benchmarks/second_order.md`) shows the same for the diagonal stdev CW on the
sparse synthetic stream.

## Exercises

```{exercise}
:label: ex-sop-sign

Show that SOP's prediction $f_t = \mathbf x_t^\top(A + \mathbf x_t\mathbf x_t^\top)^{-1}\mathbf v$ has the
sign of $\mathbf x_t^\top A^{-1}\mathbf v$, so that putting $\mathbf x_t$ into the matrix changes
the margin but never the predicted label.
```

```{solution} ex-sop-sign
:class: dropdown

By Sherman-Morrison, $(A + \mathbf x\mathbf x^\top)^{-1} = A^{-1} - A^{-1}\mathbf x\mathbf x^\top A^{-1}/(1 + \chi)$
with $\chi = \mathbf x^\top A^{-1}\mathbf x \ge 0$, so
$f = m - \chi m/(1+\chi) = m/(1 + \chi)$ with $m = \mathbf x^\top A^{-1}\mathbf v$. The factor
$1/(1+\chi)$ is positive. (With a *diagonal* approximation of $A$ the same holds, since
$\chi$ is still non-negative.) Checked below against a direct solve.
```
"""),
    hidden(r"""
rng = np.random.default_rng(0)
Xs = rng.standard_normal((60, 4)); ys = np.where(rng.random(60) < 0.5, 1, -1)
est = SOP(a=0.5).fit(Xs, ys)
A, v = 0.5 * np.eye(4), np.zeros(4)
for x, yt, f in zip(Xs, ys, est.margins_ * ys):
    assert np.isclose(f, x @ np.linalg.solve(A + np.outer(x, x), v))
    if yt * f <= 0:
        A += np.outer(x, x); v += yt * x
print("SOP's margins == x'(A + xx')^{-1} v on every round")
"""),
    md(r"""
```{exercise}
:label: ex-narow-limit

In NAROW, what happens to $r_t$ as $\chi_t \to \infty$, and as $\chi_t \downarrow 1/b$? Which
learner does NAROW resemble in each limit?
```

```{solution} ex-narow-limit
:class: dropdown

$r_t = \chi_t/(b\chi_t - 1) \to 1/b$ as $\chi_t \to \infty$: on new, uncertain directions
NAROW is a second-order learner with a fixed regulariser $1/b$, like AROW (or SOP with
$b = 1$). As $\chi_t \downarrow 1/b$, $r_t \to +\infty$: the matrix update vanishes and the
mean takes a first-order (Perceptron-like) step in the metric $\Sigma$. Below $1/b$ the
matrix is frozen.
```
"""),
]

# ---------------------------------------------------------------------------------
BOUND = [
    md("""
# AROW's mistake bound

## Statement

Let $\\mathcal M$ be the rounds with a mistake, $y_t\\boldsymbol\\mu_{t-1}\\cdot\\mathbf x_t \\le 0$
(a zero score counts as a mistake), $\\mathcal U$ the rounds with an update but no mistake,
$0 < y_t\\boldsymbol\\mu_{t-1}\\cdot\\mathbf x_t < 1$, $M = |\\mathcal M|$, $U = |\\mathcal U|$,
$X_{\\mathcal A} = \\sum_{t\\in\\mathcal M\\cup\\mathcal U}\\mathbf x_t\\mathbf x_t^\\top$ and, for a competitor
$\\mathbf u$, $g_t = \\max(0, 1 - y_t\\mathbf u\\cdot\\mathbf x_t)$.

The extracted text of Theorem 2 reads
$M \\le \\sqrt{r\\|\\mathbf u\\|^2 + \\mathbf u^\\top X_{\\mathcal A}\\mathbf u}\\,\\sqrt{\\log\\det(I + X_{\\mathcal A}/r)} + U + \\sum g_t - U$,
with a stray "$+U$". The proof's last line puts $U$ inside the second square root; we state
and check that reconstructed form, for $\\Sigma_0 = aI$ (the paper: $a = 1$).

```{prf:theorem} AROW's mistake bound (Theorem 2 of {cite:t}`crammer2009arow`, reconstructed)
:label: thm-arow-bound

For every $\\mathbf u\\in\\mathbb R^d$, AROW (Figure 1, full covariance, $\\Sigma_0 = aI$) makes
$$
M \\le \\sqrt{\\tfrac{r}{a}\\|\\mathbf u\\|^2 + \\mathbf u^\\top X_{\\mathcal A}\\mathbf u}\\;
\\sqrt{\\log\\det\\big(I + \\tfrac{a}{r}X_{\\mathcal A}\\big) + U} \\;+\\; \\sum_{t\\in\\mathcal M\\cup\\mathcal U} g_t \\;-\\; U
$$
mistakes.
```

```{prf:lemma} (Lemma 3)
:label: lem-arow-3

With $\\ell_t = \\max(0, 1 - y_t\\boldsymbol\\mu_{t-1}\\cdot\\mathbf x_t)$ and $\\chi_t = \\mathbf x_t^\\top\\Sigma_{t-1}\\mathbf x_t$,
on every update round
$\\mathbf u^\\top\\Sigma_t^{-1}\\boldsymbol\\mu_t = \\mathbf u^\\top\\Sigma_{t-1}^{-1}\\boldsymbol\\mu_{t-1} + y_t\\mathbf u\\cdot\\mathbf x_t/r$ and
$\\boldsymbol\\mu_t^\\top\\Sigma_t^{-1}\\boldsymbol\\mu_t = \\boldsymbol\\mu_{t-1}^\\top\\Sigma_{t-1}^{-1}\\boldsymbol\\mu_{t-1} + \\frac{\\chi_t + r - \\ell_t^2 r}{r(\\chi_t + r)}$.
```

```{prf:proof}
$\\Sigma_t^{-1}\\boldsymbol\\mu_t = (\\Sigma_{t-1}^{-1} + \\mathbf x\\mathbf x^\\top/r)(\\boldsymbol\\mu_{t-1} + \\alpha y\\Sigma_{t-1}\\mathbf x)
= \\Sigma_{t-1}^{-1}\\boldsymbol\\mu_{t-1} + \\mathbf x\\,[\\alpha y(1 + \\chi/r) + m/r]$ and
$\\alpha(1 + \\chi/r) = \\ell/r$, so the bracket is $(y\\ell + m)/r = y/r$ (as $\\ell = 1 - ym > 0$ on
an update round and $y^2 = 1$): the first identity. For the second,
$\\boldsymbol\\mu_t^\\top\\Sigma_t^{-1}\\boldsymbol\\mu_t = \\boldsymbol\\mu_t^\\top\\Sigma_{t-1}^{-1}\\boldsymbol\\mu_{t-1} + y\\,\\boldsymbol\\mu_t\\cdot\\mathbf x/r$;
expanding $\\boldsymbol\\mu_t$ gives the increment $\\alpha(1 - \\ell) + (1-\\ell)/r + \\alpha\\chi/r$, which with
$\\alpha = \\ell/(\\chi + r)$ equals $(\\chi + r - r\\ell^2)/(r(\\chi + r))$.
```

```{prf:lemma} (Lemma 4)
:label: lem-arow-4

$\\sum_{t\\in\\mathcal A}\\chi_t/(\\chi_t + r) \\le \\log\\det(\\Sigma_0\\Sigma_T^{-1})$.
```

```{prf:proof}
$\\mathbf x_t^\\top\\Sigma_t\\mathbf x_t = \\chi_t - \\chi_t^2/(\\chi_t + r) = \\chi_t r/(\\chi_t + r)$, and by the
matrix determinant lemma $\\det\\Sigma_t^{-1} = \\det\\Sigma_{t-1}^{-1}(1 + \\chi_t/r)$, so
$\\chi_t/(\\chi_t + r) = 1 - \\det\\Sigma_{t-1}^{-1}/\\det\\Sigma_t^{-1} \\le \\log(\\det\\Sigma_t^{-1}/\\det\\Sigma_{t-1}^{-1})$
($1 - 1/z \\le \\log z$). Summing telescopes.
```

```{prf:proof} (Theorem)
Iterating Lemma 3 from $\\boldsymbol\\mu_0 = 0$:
$\\mathbf u^\\top\\Sigma_T^{-1}\\boldsymbol\\mu_T = \\sum_{\\mathcal A} y_t\\mathbf u\\cdot\\mathbf x_t/r \\ge (M + U - \\sum_{\\mathcal A} g_t)/r$
and $\\boldsymbol\\mu_T^\\top\\Sigma_T^{-1}\\boldsymbol\\mu_T = \\sum_{\\mathcal A}\\frac{\\chi_t}{r(\\chi_t+r)} + \\sum_{\\mathcal A}\\frac{1-\\ell_t^2}{\\chi_t + r}
\\le \\frac1r\\log\\det(\\Sigma_0\\Sigma_T^{-1}) + \\sum_{\\mathcal U}\\frac1{\\chi_t + r}$ by Lemma 4 and
$\\ell_t \\ge 1$ on mistakes. Cauchy-Schwarz in the $\\Sigma_T^{-1}$ inner product,
$\\mathbf u^\\top\\Sigma_T^{-1}\\boldsymbol\\mu_T \\le \\sqrt{\\mathbf u^\\top\\Sigma_T^{-1}\\mathbf u}\\sqrt{\\boldsymbol\\mu_T^\\top\\Sigma_T^{-1}\\boldsymbol\\mu_T}$,
multiplied by $r$, with $r/(\\chi_t + r) \\le 1$ and
$r\\,\\mathbf u^\\top\\Sigma_T^{-1}\\mathbf u = r\\|\\mathbf u\\|^2/a + \\mathbf u^\\top X_{\\mathcal A}\\mathbf u$, gives the bound.
```

## Lemmas 3 and 4 on every update of a run

`olearn.bounds.arow_lemma_trace` runs AROW round by round on a real stream (german.numer,
features scaled to $[-1, 1]$, the first 400 rounds) and evaluates both identities of
Lemma 3 (residual: left side minus right side, relative) and the inequality of Lemma 4 on
every update, from the library's own $\\boldsymbol\\mu_t$ and $\\Sigma_t$.
"""),
    code(SETUP),
    code("""
# NBVAL_CHECK_OUTPUT
from sklearn.preprocessing import MaxAbsScaler
from olearn.bounds import arow_bound, arow_lemma_trace, checks_frame, svm_competitor

german = load("german.numer")
Xg = MaxAbsScaler().fit_transform(german.X)
trace = arow_lemma_trace(Xg[:400], german.y[:400], r=1.0)
assert trace["lemma3_u"].abs().max() < 1e-8 and trace["lemma3_mu"].abs().max() < 1e-8
assert (trace["lemma4_lhs"] <= trace["lemma4_rhs"] + 1e-9).all()
assert (trace["Sigma_asym"] == 0).all() and (trace["Sigma_min_eig"] > 0).all()
print(f"{len(trace)} updates: Lemma 3 residuals < 1e-8, Lemma 4 holds on every update,")
print("Sigma exactly symmetric and positive definite throughout")
"""),
    hidden("""
glue_number("n_trace", len(trace))
glue_number("lemma4_slack", (trace["lemma4_rhs"] - trace["lemma4_lhs"]).iloc[-1])
glue_number("lemma4_rhs", trace["lemma4_rhs"].iloc[-1])
"""),
    code("""
fig, ax = plt.subplots(figsize=(5.5, 3))
ax.plot(trace["t"], trace["lemma4_lhs"], label=r"$\\sum \\chi_t/(\\chi_t + r)$")
ax.plot(trace["t"], trace["lemma4_rhs"], label=r"$\\log\\det(\\Sigma_0\\Sigma_t^{-1})$")
ax.set_xlabel("round"); ax.legend()
glue("fig_lemma4", fig, display=False)
plt.close(fig)
"""),
    md("""
```{glue:figure} fig_lemma4
:name: fig-arow-lemma4

Lemma 4 along a run: the left side and the log-determinant on each of the
{glue:text}`n_trace:.0f` updates (german.numer, $r = 1$).
```

At the end of the run the log-determinant is {glue:text}`lemma4_rhs:.1f` and exceeds the sum
by {glue:text}`lemma4_slack:.1f` ({numref}`fig-arow-lemma4`): the inequality $1 - 1/z \\le \\log z$
is loose when the determinant grows a lot in one step (early rounds).

## Theorem 2 on real streams

Three streams (USPS 3 vs 5; spambase and german.numer with features scaled to $[-1,1]$),
three values of $r$, three competitors: a batch linear SVM without intercept (hinge loss,
$C = 1$), the run's own final mean, and $\\mathbf u = 0$ (then $g_t = 1$ and the bound is exactly
$M$, a check that the accounting of $M$ and $U$ is right).
"""),
    code("""
# NBVAL_CHECK_OUTPUT
streams = {"usps-3-vs-5": load("usps-3-vs-5"),
           "spambase (max-abs)": load("spambase"), "german.numer (max-abs)": german}
rows = []
for name, data in streams.items():
    X = data.X if name.startswith("usps") else MaxAbsScaler().fit_transform(data.X)
    svm = svm_competitor(X, data.y, C=1.0)
    for r in (0.1, 1.0, 10.0):
        run = AROW(r=r).fit(X, data.y)
        for label, u in (("SVM", svm), ("final mu", run.coef_.ravel()), ("u = 0", np.zeros(X.shape[1]))):
            check = arow_bound(run, X, data.y, u)
            rows.append({"stream": name, "r": r, "competitor": label, "M": check.observed,
                         "U": check.terms["U"], "bound": check.bound, "M / bound": check.ratio,
                         "holds": check.holds})
theorem2 = pd.DataFrame(rows)
assert theorem2["holds"].all()
zero = theorem2[theorem2["competitor"] == "u = 0"]
assert np.allclose(zero["bound"], zero["M"])
print(theorem2.round({"bound": 1, "M / bound": 3}).to_string(index=False))
"""),
    hidden("""
informative = theorem2[theorem2["competitor"] != "u = 0"]
best = informative.loc[informative["M / bound"].idxmax()]
glue_number("best_ratio", best["M / bound"])
glue("best_ratio_where", f"{best['stream']}, r = {best['r']:g}, u = {best['competitor']}", display=False)
glue_number("n_theorem2", len(theorem2))
"""),
    md("""
All {glue:text}`n_theorem2:.0f` checks hold. The tightest informative case is
{glue:text}`best_ratio_where` with $M$ at {glue:text}`best_ratio:.2f` of the bound. With
$\\mathbf u = 0$ the bound equals $M$ exactly; any useful competitor trades the $U$ and
$\\sum g_t$ terms against the square-root term.

## Exercises

```{exercise}
:label: ex-bound-sop

Show that when every update of AROW is a mistake ($U = 0$) the bound becomes the
second-order Perceptron's bound of {cite:t}`cesabianchi2005sop` (with $a = 1$, $r$ playing
the role of SOP's $a$ after scaling).
```

```{solution} ex-bound-sop
:class: dropdown

With $U = 0$: $M \\le \\sqrt{r\\|\\mathbf u\\|^2 + \\mathbf u^\\top X_{\\mathcal M}\\mathbf u}\\sqrt{\\log\\det(I + X_{\\mathcal M}/r)} + \\sum_{\\mathcal M} g_t$.
Cesa-Bianchi et al.'s bound for SOP with parameter $a$ is
$M \\le \\sum_{\\mathcal M} g_t + \\sqrt{(a\\|\\mathbf u\\|^2 + \\mathbf u^\\top X_{\\mathcal M}\\mathbf u)\\sum_i \\ln(1 + \\lambda_i/a)}$,
with $\\lambda_i$ the eigenvalues of $X_{\\mathcal M}$; $\\sum_i\\ln(1 + \\lambda_i/a) = \\log\\det(I + X_{\\mathcal M}/a)$,
so the two coincide with $a = r$.
```

```{exercise}
:label: ex-bound-r

Evaluate the bound for the SVM competitor on USPS 3 vs 5 for $r \\in \\{0.01, 0.1, 1, 10, 100\\}$.
Does the $r$ with the fewest mistakes also have the smallest bound?
```

```{solution} ex-bound-r
:class: dropdown

The cell below computes both. The bound depends on $r$ directly and through the run
($X_{\\mathcal A}$, $U$), so its minimiser need not be the best $r$ in practice; the paper
makes the same remark after the proof.
```
"""),
    code("""
usps = streams["usps-3-vs-5"]
svm = svm_competitor(usps.X, usps.y, C=1.0)
sweep = []
for r in (0.01, 0.1, 1.0, 10.0, 100.0):
    run = AROW(r=r).fit(usps.X, usps.y)
    c = arow_bound(run, usps.X, usps.y, svm)
    assert c.holds
    sweep.append({"r": r, "mistakes": int(c.observed), "bound": round(c.bound, 1)})
print(pd.DataFrame(sweep).to_string(index=False))
""", tags=("remove-input",)),
]

# ---------------------------------------------------------------------------------
REPRODUCTION = [
    md(r"""
# Reproducing the AROW paper's experiments

The full runs are stored in `book/results/arow/` (CSV files with a `.provenance.json`
each: commit, date, settings, versions); they were made with
`olearn.experiments.arow.reproduce("book/results/arow")` (OLEARN_QUICK unset; Table 1 with
`parts=("table1",), n_jobs=2`, its running time is in its provenance file). In quick mode
this page re-runs a subset with the stored settings and asserts it equals the stored values.

**What ran.** All second-order learners of the real-data experiments use a diagonal
covariance (the paper's footnote 2); CW is the variance version (footnote 3); "PA" is PA-I
with $C$ tuned (the paper does not say which PA). Data sets that are not available here
(Amazon domains, Amazon sentiment, the ECML spam users, RCV1, full MNIST) are replaced as
the data manifest says: movie reviews for sentiment, pairs of Reuters-21578 topics for the
RCV1 pairs of labels (construction below), the 10,000-digit MNIST sample for MNIST.
"""),
    code(SETUP),
    code(r"""
import json
from pathlib import Path
from olearn.experiments import arow as ex
from olearn.experiments import quick_mode

RESULTS = Path("../results/arow") if Path("../results/arow").exists() else Path("book/results/arow")
stored = {name: pd.read_csv(RESULTS / f"{name}.csv") for name in ("figure2a", "figure2b", "table1", "table1_pa_plain")}
prov = {name: json.loads((RESULTS / f"{name}.provenance.json").read_text())
        for name in ("figure2a", "figure2b", "table1", "table1_pa_plain", "table1_wide_usps")}
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
for name, p in prov.items():
    assert not p["quick"] and p["commit"], name
    print(f"{name}: commit {p['commit'][:10]}, git_dirty={p['git_dirty']}")
"""),
    md(r"""
## Figure 2(a): synthetic data

The AROW paper says only that its synthetic data "are as in" the exact CW paper
{cite:p}`crammer2008cw`, with 10% of the training labels inverted, 5,000 training and 10,000
test examples and 100 runs (Figure 2's caption). The generator itself stays our reading: we
searched for the CW paper's description (its text is not among our sources; the public copies
the search found give its abstract and introduction only, and no implementation of that
experiment turned up), so what follows is the generator as commonly summarised, not checked
against the source: 20 dimensions; the first two are a Gaussian rotated by 45° with
standard deviations 1 and 0.2 (the two standard deviations are our choice), labelled by the
side of the separator through its long axis (linearly separable); the other 18 are
independent $\mathcal N(0, 2)$ noise. The 10,000 test labels are clean; hyper-parameters
from one extra run (best final accuracy). The accuracies depend on these choices, so only the
paper's qualitative findings (asserted below) are compared, not its curves' values.
"""),
    code(r"""
curves = stored["figure2a"]
mean = curves.groupby(["learner", "examples"])["accuracy"].mean().unstack("learner")
sem = curves.groupby(["learner", "examples"])["accuracy"].sem().unstack("learner")
fig, ax = plt.subplots(figsize=(6.5, 4))
for label in ex.FIG2A_LEARNERS:
    style = "-" if "full" in label else ("--" if "diag" in label else ":")
    ax.plot(mean.index, mean[label], style, label=label)
    ax.fill_between(mean.index, mean[label] - 2 * sem[label], mean[label] + 2 * sem[label], alpha=0.15)
ax.set_xlabel("training examples"); ax.set_ylabel("test accuracy (clean labels)")
ax.legend(fontsize=8, ncol=2)
glue("fig_2a", fig, display=False)
plt.close(fig)
final = mean.iloc[-1]
for label in ex.FIG2A_LEARNERS:
    glue_number("f2a_" + label.replace(" ", "_"), final[label])
glue("f2a_params", ", ".join(f"{k} {v}" for k, v in prov["figure2a"]["settings"]["params"].items()), display=False)
"""),
    md(r"""
```{glue:figure} fig_2a
:name: fig-arow-2a

Figure 2(a) reproduced: test accuracy during one pass over 5,000 noisy synthetic examples,
mean over 100 runs (bands: ±2 standard errors).
```

Final accuracies: AROW full {glue:text}`f2a_AROW_full:.3f`, AROW diagonal
{glue:text}`f2a_AROW_diag:.3f`, CW full {glue:text}`f2a_CW_full:.3f`, CW diagonal
{glue:text}`f2a_CW_diag:.3f`, SOP full {glue:text}`f2a_SOP_full:.3f`, SOP diagonal
{glue:text}`f2a_SOP_diag:.3f`, PA {glue:text}`f2a_PA:.3f` (tuned: {glue:text}`f2a_params`).
As in the paper, AROW improves over all competitors, the full version beats the diagonal
one, and CW full does worse than CW diagonal on these noisy data ({numref}`fig-arow-2a`).
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
order = final.sort_values(ascending=False)
assert order.index[0] == "AROW full" and final["AROW full"] > final["AROW diag"]
assert final["CW full"] < final["CW diag"]
print("AROW full is best; AROW full > AROW diag; CW full < CW diag")
n_quick = 2
if quick_mode():
    again, _ = ex.figure2a(n_runs=n_quick, params=prov["figure2a"]["settings"]["params"])
    ref = curves[curves["run"] < n_quick].reset_index(drop=True)
    assert np.allclose(again["accuracy"].to_numpy(), ref["accuracy"].to_numpy(), atol=1e-12)
    print(f"quick mode: runs 0-{n_quick - 1} re-computed, equal to the stored ones")
"""),
    md(r"""
## Figure 2(b): MNIST 3 vs 5

Mistakes with respect to the noise-free labels during one online pass over the 1,895
examples of `mnist-10k-3-vs-5` (pixels divided by 255), mean over 10 random orders, with
0% and 10% of the training labels flipped. Each learner's hyper-parameter is tuned (fewest
clean mistakes) on an extra order, per noise level.
"""),
    code(r"""
fig2b = stored["figure2b"]
table2b = fig2b.groupby(["learner", "noise"])["clean_mistakes"].mean().unstack("noise")
table2b.columns = [f"noise {c:.0%}" for c in table2b.columns]
table2b = table2b.sort_values("noise 10%")
fig, ax = plt.subplots(figsize=(6, 3.2))
table2b.plot.bar(ax=ax, rot=30)
ax.set_ylabel("mistakes vs clean labels")
glue("fig_2b", fig, display=False)
plt.close(fig)
glue_number("f2b_arow0", table2b.loc["AROW diag", "noise 0%"])
glue_number("f2b_arow10", table2b.loc["AROW diag", "noise 10%"])
glue_number("f2b_cw10", table2b.loc["CW diag", "noise 10%"])
table2b.round(1)
"""),
    md(r"""
```{glue:figure} fig_2b
:name: fig-arow-2b

Figure 2(b) reproduced: mistakes against the clean labels on MNIST 3 vs 5, at 0% and 10%
label noise (mean over 10 orders).
```

Diagonal AROW makes {glue:text}`f2b_arow0:.1f` mistakes without noise and
{glue:text}`f2b_arow10:.1f` with 10% noise, against {glue:text}`f2b_cw10:.1f` for diagonal CW:
as in the paper, noise hurts every learner and the gap between AROW and the baselines
grows with noise.
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
m10 = table2b["noise 10%"]
assert m10.idxmin().startswith("AROW")
assert (table2b["noise 10%"] > table2b["noise 0%"]).all()
print("with 10% noise an AROW variant makes the fewest clean mistakes")
if quick_mode():
    chosen = fig2b[fig2b["permutation"] == 0].set_index(["learner", "noise"])["param"]
    params = {"AROW": chosen[("AROW diag", 0.0)], "CW": chosen[("CW diag", 0.0)],
              "SOP": chosen[("SOP diag", 0.0)], "PA": chosen[("PA", 0.0)]}
    again, _ = ex.figure2b(noise_levels=(0.0,), n_permutations=1, params=params)
    diag = ["AROW diag", "CW diag", "SOP diag", "PA"]
    mine = again.set_index("learner").loc[diag, "clean_mistakes"]
    ref = fig2b[(fig2b["permutation"] == 0) & (fig2b["noise"] == 0.0)].set_index("learner").loc[diag, "clean_mistakes"]
    assert (mine == ref).all(), (mine, ref)
    print("quick mode: permutation 0 at 0% noise re-computed, equal to the stored one")
"""),
    md(r"""
## Table 1: mean ranks under label noise

**Tasks.** The paper's 45 USPS pairs, 45 MNIST pairs and 10 MNIST one-vs-all problems (MNIST
on the 10,000-digit sample), its three 20 Newsgroups tasks, movie reviews in place of its six
Amazon sentiment tasks, and, in place of its three RCV1 tasks ("pairs of labels following"
{cite:t}`dredze2008cw`), pairs of Reuters-21578 TOPICS categories: the stories with exactly
one TOPICS category, the six most frequent such categories (earn, acq, crude, trade,
money-fx, interest) and every pair of them as a task, 15 tasks of 592 to 6,307 stories
(`olearn.datasets._reuters_pairs`). The Amazon domain pairs and the spam users have no
stand-in.

**Protocol.** For every task and noise level the training labels are flipped with the given
probability (test labels stay clean); one randomised run chooses each learner's
hyper-parameter and number of passes (1 to 10) by test accuracy; the other runs give the
reported accuracy (USPS pairs: the standard split, 3 further random orders; MNIST-10k: 3-fold
cross-validation, the sample has no split; text: 10-fold cross-validation); at most 2,000
training instances per task. The learners are ranked per task (1 = best, ties share the
mean rank).
"""),
    code(r"""
t1 = stored["table1"].copy()
t1["family"] = t1["task"].map(ex.family)
tasks = t1.drop_duplicates("task")[["task", "kind", "family"]]
ours_counts = tasks["family"].value_counts()
families = pd.DataFrame([{"family": fam, "paper's data": data, "paper: tasks": n,
                          "our data": ours or "not available",
                          "ours: tasks": int(ours_counts.get(ours, 0)) if ours else 0}
                         for fam, data, n, ours in ex.FAMILIES]).set_index("family")
families.loc["total"] = ["", families["paper: tasks"].sum(), "", families["ours: tasks"].sum()]
glue_number("n_tasks", len(tasks))
glue_number("n_paper_tasks", families.loc["total", "paper: tasks"])
glue_number("n_ocr", (tasks["kind"] != "text").sum())
glue_number("n_text", (tasks["kind"] == "text").sum())
glue_number("n_reuters", ours_counts["Reuters-21578 pairs"])
families
"""),
    code(r"""
ranks = ex.mean_ranks(t1)
side = pd.concat({"paper": ex.PAPER_TABLE1, "ours": ranks}, axis=1)
side = side.reorder_levels([1, 0], axis=1)
for l in ex.LEARNERS:
    side[(l, "deviation")] = side[(l, "ours")] - side[(l, "paper")]
side = side[[(l, w) for l in ex.LEARNERS for w in ("paper", "ours", "deviation")]]
for noise in (0.0, 0.3):
    for l in ex.LEARNERS:
        glue_number(f"rank_{l.lower()}_{int(noise * 100)}", ranks.loc[noise, l])
side.round(2)
"""),
    md(r"""
We ran {glue:text}`n_tasks:.0f` tasks where the paper ran {glue:text}`n_paper_tasks:.0f`
({glue:text}`n_ocr:.0f` OCR and {glue:text}`n_text:.0f` text tasks, of which
{glue:text}`n_reuters:.0f` Reuters-21578 pairs; the family table above). At 0% noise AROW's
mean rank is {glue:text}`rank_arow_0:.2f` (paper 1.51), CW's {glue:text}`rank_cw_0:.2f`
(paper 1.63), PA's {glue:text}`rank_pa_0:.2f` (paper 2.95); at 30% noise AROW
{glue:text}`rank_arow_30:.2f` (paper 1.25), CW {glue:text}`rank_cw_30:.2f` (paper 2.76), PA
{glue:text}`rank_pa_30:.2f` (paper 2.08), SOP {glue:text}`rank_sop_30:.2f` (paper 3.91).
As in the paper, AROW ranks ahead of CW at every noise level, CW falls behind as noise grows
and SOP is last. Unlike the paper, our PA (PA-I with $C$ tuned) ranks first at every noise
level above 0, so AROW does worse than in the paper at every noise level (its deviation is
positive throughout); the rest of this section shows why.
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
assert set(tasks["task"]) == {t for t, _ in ex.table1_tasks(False)}
assert families.loc["total", "ours: tasks"] == len(tasks) == len(ex.table1_tasks(False))
assert set(ours_counts.index) <= {f[3] for f in ex.FAMILIES}
assert families.loc["total", "paper: tasks"] == 130
assert (t1.groupby("task").size() == len(ex.NOISE_LEVELS) * len(ex.LEARNERS)).all()
assert (ranks.sum(axis=1) - 10).abs().max() < 1e-12          # ranks 1..4 sum to 10
assert (ranks["AROW"] < ranks["CW"]).all() and ranks.loc[0.3, "CW"] > ranks.loc[0.0, "CW"]
assert (ranks.idxmax(axis=1) == "SOP").all()
assert (ranks.loc[ranks.index > 0].idxmin(axis=1) == "PA").all()
assert (side[[(l, "deviation") for l in ["AROW"]]] > 0).all().all()
print(f"{len(tasks)} tasks, every one at {len(ex.NOISE_LEVELS)} noise levels x {len(ex.LEARNERS)} learners")
CHECK = [("usps-3-vs-5", "ocr-split", 4), ("mnist-10k-7-vs-rest", "ocr-cv", 3),
         ("reuters21578-crude-vs-trade", "text", 10)]
if quick_mode():
    for name, kind, k in CHECK:
        again = ex.run_table1(tasks=[(name, kind)], noise_levels=(0.0, 0.3), n_passes=10, n_runs=k)
        ref = t1[(t1["task"] == name) & t1["noise"].isin([0.0, 0.3])]
        merged = again.merge(ref, on=["task", "noise", "learner"], suffixes=("", "_stored"))
        assert len(merged) == 8
        assert np.allclose(merged["accuracy"], merged["accuracy_stored"], atol=1e-12)
        assert (merged["value"] == merged["value_stored"]).all()
        assert (merged["passes"] == merged["passes_stored"]).all()
    print("quick mode: " + ", ".join(n for n, _, _ in CHECK)
          + " at noise 0 and 0.3 re-computed, equal to the stored rows")
"""),
    md(r"""
Mean rank per family at 0% and 30% noise (our tasks per family in the first column):
"""),
    code(r"""
by_task = t1.pivot_table(index=["family", "task", "noise"], columns="learner", values="accuracy")
family_ranks = (by_task.rank(axis=1, ascending=False, method="average")
                .groupby(level=["family", "noise"]).mean()[list(ex.LEARNERS)])
per_family = family_ranks.loc[(slice(None), [0.0, 0.3]), :].unstack("noise")
per_family.columns = [f"{l}, noise {n:.0%}" for l, n in per_family.columns]
per_family.insert(0, "tasks", ours_counts.reindex(per_family.index))
per_family.round(2)
"""),
    md(r"""
**Where we differ from the paper, and why.** PA-I's lead under noise is not the effect of one
family: at 30% noise it ranks first in every family (table above). Two
reasons, each measured rather than tuned away.

*Which PA.* The paper does not say which PA it ran, and it names only "$r$ for AROW" among the
tuned hyper-parameters. Our PA is PA-I with $C$ tuned on the grid 0.001 to 1; at 30% noise the
tuning run picks the smallest $C$ on {glue:text}`edge_pa_small:.0f`% of the tasks, a very
conservative step that averages the flipped labels out. We re-ran every task with plain PA
(no $C$; only the number of passes tuned; same protocol, folds and seeds;
`table1_pa_plain.csv`) in place of PA-I. With it AROW's mean rank at 30% noise is
{glue:text}`plain_arow_30:.2f` (paper 1.25) and plain PA's {glue:text}`plain_pa_30:.2f`
(paper 2.08); AROW ranks first at every noise level, as in the paper, and the deviations are
smaller than with PA-I:
"""),
    code(r"""
plain = stored["table1_pa_plain"]
with_plain = pd.concat([t1[t1["learner"] != "PA"], plain.assign(learner="PA")])
plain_ranks = ex.mean_ranks(with_plain)
side_plain = pd.concat({"paper": ex.PAPER_TABLE1, "ours, plain PA": plain_ranks}, axis=1)
side_plain = side_plain.reorder_levels([1, 0], axis=1)
for l in ex.LEARNERS:
    side_plain[(l, "deviation")] = side_plain[(l, "ours, plain PA")] - side_plain[(l, "paper")]
side_plain = side_plain[[(l, w) for l in ex.LEARNERS for w in ("paper", "ours, plain PA", "deviation")]]
glue_number("plain_arow_30", plain_ranks.loc[0.3, "AROW"])
glue_number("plain_pa_30", plain_ranks.loc[0.3, "PA"])
side_plain.round(2)
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
assert set(plain["task"]) == set(tasks["task"]) and len(plain) == len(tasks) * len(ex.NOISE_LEVELS)
assert (family_ranks.xs(0.3, level="noise").idxmin(axis=1) == "PA").all()
assert (plain_ranks.idxmin(axis=1) == "AROW").all()
assert (plain_ranks["AROW"] <= ranks["AROW"] + 1e-12).all()
dev = lambda s: s[[(l, "deviation") for l in ex.LEARNERS]].abs().to_numpy().mean()
assert dev(side_plain) < dev(side)
print("with plain PA in place of PA-I, AROW ranks first at every noise level")
if quick_mode():
    for name, kind, k in CHECK:
        again = ex.run_table1(tasks=[(name, kind)], noise_levels=(0.0, 0.3), n_passes=10, n_runs=k,
                              grids=ex.PLAIN_PA_GRIDS, learners=("PA plain",))
        ref = plain[(plain["task"] == name) & plain["noise"].isin([0.0, 0.3])]
        merged = again.merge(ref, on=["task", "noise", "learner"], suffixes=("", "_stored"))
        assert len(merged) == 2 and np.allclose(merged["accuracy"], merged["accuracy_stored"], atol=1e-12)
        assert (merged["passes"] == merged["passes_stored"]).all()
    print("quick mode: plain PA on the same three tasks re-computed, equal to the stored rows")
"""),
    md(r"""
*Grid edges.* At 30% noise AROW picks the largest $r$ of its grid on
{glue:text}`edge_arow_large:.0f`% of the tasks: both AROW and PA-I want more regularisation
than the grids of the stored run offer. We did not tune to the paper's numbers; instead we
re-ran the 45 USPS pairs at 0% and 30% noise with grids extended on both sides (AROW $r$ up
to $10^4$, PA-I $C$ down to $10^{-5}$; `table1_wide_usps.csv`):
"""),
    code(r"""
from IPython.display import display

edge = {}
for learner, (pname, grid) in ex.GRIDS.items():
    at = t1[(t1["learner"] == learner) & (t1["noise"] == 0.3)]["value"]
    edge[learner] = {"parameter": pname, "grid": ", ".join(f"{v:g}" for v in grid),
                     "share at smallest": float((at == min(grid)).mean()),
                     "share at largest": float((at == max(grid)).mean())}
edge = pd.DataFrame(edge).T
edge = edge.astype({"share at smallest": float, "share at largest": float})
display(edge.round(2))
wide = pd.read_csv(RESULTS / "table1_wide_usps.csv")
narrow = t1[(t1["kind"] == "ocr-split") & t1["noise"].isin([0.0, 0.3])]
compare = pd.concat({"stored grids": ex.mean_ranks(narrow), "wider grids": ex.mean_ranks(wide)}, axis=1)
compare.index.name = "noise (USPS pairs)"
glue_number("wide_arow_30", ex.mean_ranks(wide).loc[0.3, "AROW"])
glue_number("wide_pa_30", ex.mean_ranks(wide).loc[0.3, "PA"])
glue_number("edge_pa_small", 100 * edge.loc["PA", "share at smallest"])
glue_number("edge_arow_large", 100 * edge.loc["AROW", "share at largest"])
compare.round(2)
"""),
    md(r"""
With the wider grids AROW's mean rank on the USPS pairs at 30% noise is
{glue:text}`wide_arow_30:.2f` and PA-I's {glue:text}`wide_pa_30:.2f`: wider grids do not
change the order. Other differences we cannot remove: our task mix is OCR-heavy
({glue:text}`n_ocr:.0f` of {glue:text}`n_tasks:.0f` tasks; the paper's 100 of 130), the
Amazon and spam families are missing, CW is the variance version with the precision
projection, the multi-pass protocol re-shuffles each pass, and the tuning run also picks the
number of passes, which helps a heavily regularised PA-I under noise.
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
wide_ranks = ex.mean_ranks(wide)
assert wide_ranks.loc[0.3, "PA"] < wide_ranks.loc[0.3, "AROW"] < wide_ranks.loc[0.3, "CW"]
narrow_ranks = ex.mean_ranks(narrow)
for noise in (0.0, 0.3):                   # the same order of the four learners
    assert list(wide_ranks.loc[noise].sort_values().index) == list(narrow_ranks.loc[noise].sort_values().index)
print("USPS pairs, wider grids, 30% noise: PA-I < AROW < CW in mean rank")
"""),
    md(r"""
## Figure 3: AROW against CW

Each point is one task: CW's accuracy (x) against AROW's (y), at 0%, 10% and 30% noise;
points above the diagonal are tasks where AROW is better.
"""),
    code(r"""
fig, axes = plt.subplots(1, 3, figsize=(10, 3.4), sharex=False)
wins = {}
for ax, noise in zip(axes, (0.0, 0.1, 0.3)):
    part = t1[t1["noise"] == noise].pivot_table(index=["task", "kind"], columns="learner", values="accuracy")
    for kind, marker in (("ocr-split", "o"), ("ocr-cv", "s"), ("text", "^")):
        p = part.xs(kind, level="kind")
        ax.scatter(p["CW"], p["AROW"], marker=marker, s=14, label=kind)
    lo = min(part["CW"].min(), part["AROW"].min())
    ax.plot([lo, 1], [lo, 1], "k-", lw=0.8)
    ax.set_title(f"noise {noise:.0%}"); ax.set_xlabel("CW accuracy")
    wins[noise] = float((part["AROW"] > part["CW"]).mean())
axes[0].set_ylabel("AROW accuracy"); axes[0].legend(fontsize=7)
glue("fig_3", fig, display=False)
plt.close(fig)
for noise, w in wins.items():
    glue_number(f"win_{int(noise * 100)}", 100 * w)
"""),
    hidden(r"""
# NBVAL_CHECK_OUTPUT
assert wins[0.0] < wins[0.1] <= wins[0.3]
print("AROW beats CW on a larger share of the tasks as noise grows")
"""),
    md(r"""
```{glue:figure} fig_3
:name: fig-arow-3

Figure 3 reproduced: per-task accuracy of AROW against CW (circles: USPS pairs; squares:
MNIST-10k pairs and one-vs-all; triangles: text tasks).
```

AROW is more accurate than CW on {glue:text}`win_0:.0f`% of the tasks without noise,
{glue:text}`win_10:.0f`% at 10% noise and {glue:text}`win_30:.0f`% at 30% noise
({numref}`fig-arow-3`): as in the paper, AROW improves relative to CW as noise increases.

## Exercises

```{exercise}
:label: ex-repro-passes

At 30% noise, how many passes (1 to 10) did the tuning run choose for each learner? The
tuning run picks the number of passes by test accuracy: what does the answer say about
multi-pass training under label noise?
```

```{solution} ex-repro-passes
:class: dropdown

The cell below counts them from the stored table. For every learner the median is a few
passes and 10 passes are chosen on fewer than 10% of the tasks (last column): after a few passes the learners
mostly keep fitting the flipped labels, and the test accuracy of the tuning run stops
improving.
```
"""),
    hidden(r"""
noisy = t1[t1["noise"] == 0.3]
passes = noisy.groupby("learner")["passes"].describe()[["mean", "50%", "max"]]
passes["share at 10"] = noisy.groupby("learner")["passes"].apply(lambda s: (s == 10).mean())
assert (passes["share at 10"] < 0.1).all() and (passes["50%"] <= 4).all()
passes.round(2)
"""),
    md(r"""
## Closing note: the paper beside ours

**Table 1** (mean rank out of 4; paper, ours, deviation) is the table above, over
{glue:text}`n_tasks:.0f` tasks in place of the paper's {glue:text}`n_paper_tasks:.0f` (task
counts per family in the family table); with plain PA in place of PA-I the second table.
**Theorem 2** (reconstructed, see the previous page) holds on every stream, value of $r$ and
competitor we tried; the cell below re-checks one stream. **Throughput** is measured by
`benchmarks/second_order.py` (not in a test); its last stored run is shown below.
"""),
    code(r"""
# a compact re-check of Theorem 2 (the full table is on the previous page)
from olearn.bounds import arow_bound, svm_competitor
usps = load("usps-3-vs-5")
run = AROW(r=1.0).fit(usps.X, usps.y)
checks = {label: arow_bound(run, usps.X, usps.y, u) for label, u in
          (("SVM", svm_competitor(usps.X, usps.y)), ("final mu", run.coef_.ravel()))}
assert all(c.holds for c in checks.values())
pd.DataFrame({k: {"M": c.observed, "U": c.terms["U"], "bound": round(c.bound, 1), "holds": c.holds}
              for k, c in checks.items()}).T
"""),
    hidden(r"""
from IPython.display import Markdown, display

bench = Path("../../benchmarks/second_order.md")
bench = bench if bench.exists() else Path("benchmarks/second_order.md")
text = bench.read_text()
text = text[text.index("Machine"):]


def pipe_table(lines):
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
    frame = pd.DataFrame(rows[2:], columns=rows[0])
    return frame.set_index(rows[0][0])


block, tables = [], 0
for line in text.splitlines() + [""]:
    if line.startswith("|"):
        block.append(line)
        continue
    if block:
        display(pipe_table(block))
        tables += 1
        block = []
    if line.startswith("### "):
        display(Markdown("**" + line[4:] + "**"))
    elif line.strip():
        display(Markdown(line))
assert tables >= 3
"""),
]


def write(name, cells):
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, HERE / f"{name}.ipynb")


if __name__ == "__main__":
    write("intuition", INTUITION)
    write("derivation", DERIVATION)
    write("family", FAMILY)
    write("bound", BOUND)
    write("reproduction", REPRODUCTION)
