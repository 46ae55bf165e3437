"""What book/api.md and book/notation.md state, checked against the library (issue 40, referee 26).

- api.md: a bare ``automodule ... :members:`` documents a module's ``__all__`` or, without one,
  only what the module defines itself; olearn.experiments documented nothing (its names are
  imported from the runner) until it got an ``__all__``. Every ``olearn.plotting`` submodule a
  page names has a directive; the record the page says is documented on olearn.base is in
  the docstring the page renders; SBCW's ``r`` is the group size (the budget is m_iter * r).
- notation.md: what an all-zero row does, per kind of learner.
"""
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import olearn

BOOK = Path(__file__).resolve().parents[1] / "book"
API = (BOOK / "api.md").read_text()


def documented_by_bare_members(module_name):
    """The names autodoc's ``automodule :members:`` renders (documented or not)."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and getattr(value, "__module__", None) == module_name]


def bare_automodules():
    found = re.findall(r"\.\. automodule:: (\S+)\n((?:   :[^\n]*\n)*)", API)
    return [name for name, options in found if re.search(r":members:\s*\n", options)]


def test_every_bare_automodule_documents_members():
    modules = bare_automodules()
    assert "olearn.experiments" in modules and "olearn.distributed" in modules
    for name in modules:
        assert documented_by_bare_members(name), f"{name}: the directive renders no member"


def test_the_runner_names_the_pages_use_are_documented():
    names = documented_by_bare_members("olearn.experiments")
    for name in ("run", "Result", "summarize", "load_result", "corrected_resampled_t",
                 "n_permutations", "quick_mode"):
        assert name in names, name


def test_every_plotting_module_a_page_uses_has_a_directive():
    used = set()
    for page in BOOK.rglob("*.ipynb"):
        if "_build" not in page.parts:
            used |= set(re.findall(r"olearn\.plotting\.([a-z_]+)", page.read_text()))
    modules = {m for m in used if importlib.util.find_spec(f"olearn.plotting.{m}")}
    assert modules >= {"second_order", "kernel", "winnow", "scale"}, modules
    for module in modules:
        assert f".. automodule:: olearn.plotting.{module}\n" in API, module


def test_the_record_the_page_names_is_in_the_rendered_base_docstring():
    assert ".. automodule:: olearn.base\n" in API
    import olearn.base
    for name in ("mistakes_", "margins_", "n_mistakes_", "n_updates_", "n_rounds_",
                 'record="counts"', "FeatureRangeError", "NonFiniteModelError"):
        assert name in API, name
        assert name.replace('"', "") in olearn.base.__doc__.replace('"', ""), name


def test_sbcw_r_is_the_group_size():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 30))
    y = np.where(X @ rng.normal(size=30) > 0, 1, -1)
    for m_iter in (1, 2, 4):
        model = olearn.SBCW(r=3, m_iter=m_iter, tol=0).fit(X, y)
        assert [len(group) for group in model.groups_] == [3] * m_iter   # groups of r
    model = olearn.SBCW(r=3, m_iter=15, tol=0).fit(X, y)    # at most m_iter * r = 45 features
    assert sum(len(group) for group in model.groups_) == 30 and model.n_iter_ == 10
    assert "feature groups of size $r$ (at most $m_{iter}r$ features)" in API


def zero_row_round(estimator, label):
    """Score of an all-zero row and whether the learner updates on it (after a short stream)."""
    rng = np.random.default_rng(3)
    X = (rng.random((40, 6)) < 0.4).astype(float)
    y = np.where(X[:, 0] + X[:, 1] > 0, 1, -1)
    estimator.fit(X, y)
    zero = np.zeros((1, 6))
    score = float(estimator.decision_function(zero)[0])
    before = estimator.n_updates_
    estimator.partial_fit(zero, np.array([label]))
    return score, estimator.n_updates_ - before


@pytest.mark.parametrize("make", [
    olearn.Perceptron, olearn.PA, olearn.ROMMA, olearn.AggressiveROMMA, olearn.ALMA,
    olearn.L1ConstrainedPA, olearn.L2ConstrainedPA, lambda: olearn.Averaged(olearn.PA()),
    olearn.AROW, olearn.CW, olearn.SCW, olearn.SOP, olearn.NAROW])
def test_zero_row_without_shrinkage_scores_zero_and_is_no_update(make):
    for label in (-1, 1):
        assert zero_row_round(make(), label) == (0.0, 0)


@pytest.mark.parametrize("make", [lambda: olearn.NORMA(lam=0.01),
                                  lambda: olearn.ObjectiveRegularizedPA(alpha=0.01)])
def test_zero_row_with_shrinkage_scores_zero_and_is_an_update(make):
    for label in (-1, 1):
        assert zero_row_round(make(), label) == (0.0, 1)


@pytest.mark.filterwarnings("ignore:ModifiedBalancedWinnow. an update with")
@pytest.mark.parametrize("make", [olearn.PositiveWinnow, olearn.BalancedWinnow,
                                  olearn.ModifiedBalancedWinnow])
def test_a_winnow_scores_a_zero_row_and_updates_when_wrong(make):
    score, _ = zero_row_round(make(), 1)
    assert score != 0
    wrong = 1 if score < 0 else -1
    assert zero_row_round(make(), wrong)[1] == 1


def test_a_gaussian_kernel_learner_scores_the_origin():
    updated = 0
    for make in (olearn.DUOL, olearn.KernelPA, olearn.KernelPerceptron):
        score, update = zero_row_round(make(), 1)
        assert score != 0
        updated += update
    assert updated > 0
    assert "the point $\\mathbf{0}$" in (BOOK / "notation.md").read_text()


def test_the_tables_name_exactly_the_flat_names_of_all():
    tabled = set(re.findall(r"\{py:(?:class|func)\}`olearn\.(\w+)`", API))
    assert tabled == set(olearn.__all__) - {"__version__"}
    assert "IterativeParameterMixing" not in olearn.__all__   # flat, but in its own section
    assert "from olearn import IterativeParameterMixing" in API
