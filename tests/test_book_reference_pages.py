"""What book/api.md and book/notation.md state, checked against the library (issue 40, referee 26).

- api.md: a bare ``automodule ... :members:`` documents a module's ``__all__`` or, without one,
  only what the module defines itself, and of those only what has a docstring (a data member:
  a ``#:`` comment in the documented module); olearn.experiments documented nothing (its names
  are imported from the runner) until it got an ``__all__``, and then not its two constants.
  The page's eval-rst blocks are built with Sphinx and every name of such an ``__all__`` must
  appear in the text, and each such directive, built apart from the page's explicit
  ``autodata``/``autoclass`` lines (the 17 bare directives together), must render a member of
  its own module; what the pages import from the runner must be in its ``__all__``.
  Every ``olearn.plotting`` submodule a page names has a directive; the record the page says is documented on olearn.base is in
  the docstring the page renders; SBCW's ``r`` is the group size (the budget is m_iter * r).
- notation.md: what an all-zero row does, per kind of learner.
"""
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import olearn

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
API = (BOOK / "api.md").read_text()


@pytest.fixture(scope="module")
def api_build(tmp_path_factory):
    """The text Sphinx renders from api.md, with the book's autodoc settings (autodoc renders a
    data member only with a ``#:`` comment in the module it documents, and a function or class
    only with a docstring: reading ``__all__`` cannot tell): ``index``, every eval-rst block of
    the page; ``bare``, the page's bare ``automodule ... :members:`` directives alone (with
    their options), so that what such a directive renders is not mistaken for what a
    submodule's directive or an explicit ``autodata`` line renders."""
    config = yaml.safe_load((BOOK / "_config.yml").read_text())["sphinx"]["config"]
    keys = ("autodoc_member_order", "autodoc_default_options", "napoleon_numpy_docstring")
    src = tmp_path_factory.mktemp("api")
    (src / "conf.py").write_text(
        "extensions = ['sphinx.ext.autodoc', 'sphinx.ext.napoleon']\n"
        + "".join(f"{key} = {config[key]!r}\n" for key in keys))
    blocks = re.findall(r"^```\{eval-rst\}\n(.*?)^```", API, re.S | re.M)
    assert len(blocks) >= 10
    (src / "index.rst").write_text("API\n===\n\n" + "\n\n".join(blocks))
    bare = [f".. automodule:: {name}\n{options}   :no-index:\n"
            for name, options in automodule_directives() if is_bare(options)]
    (src / "bare.rst").write_text(":orphan:\n\nBare\n====\n\n" + "\n".join(bare))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT),
                                                      os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-E", "-b", "text", str(src),
                    str(src / "_out")], check=True, env=env)
    return {doc: (src / "_out" / f"{doc}.txt").read_text() for doc in ("index", "bare")}


@pytest.fixture(scope="module")
def rendered_api(api_build):
    return api_build["index"]


def rendered_objects(text):
    """The dotted paths of the objects a text build documents (its signature lines)."""
    return set(re.findall(r"^(?:class |exception )?(olearn(?:\.\w+)+)", text, re.M))


def resolve(path):
    """The object at a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            value = getattr(value, part)
        return value
    raise ImportError(path)


def automodule_directives():
    """(module, option lines) of every ``automodule`` directive of api.md."""
    return re.findall(r"\.\. automodule:: (\S+)\n((?:   :[^\n]*\n)*)", API)


def is_bare(options):
    """A ``:members:`` option without a list: the directive renders what autodoc finds."""
    return re.search(r"^   :members:\s*\n", options, re.M) is not None


def bare_automodules():
    return [name for name, options in automodule_directives() if is_bare(options)]


def test_every_bare_automodule_renders_members(api_build):
    """Built apart from the explicit directives (all bare ones together), each bare
    ``automodule`` renders at least one member of its own: an object
    whose parent path is the module (a submodule's member or an explicit ``autodata`` line
    does not count)."""
    modules = bare_automodules()
    assert {"olearn.experiments", "olearn.distributed", "olearn.plotting",
            "olearn.catalog"} <= set(modules)
    shown = rendered_objects(api_build["bare"])
    assert not shown - rendered_objects(api_build["index"])   # nothing the page lacks
    empty = [name for name in modules
             if not any(path.rsplit(".", 1)[0] == name for path in shown)]
    assert not empty, f"bare automodule directives that render no member of their own: {empty}"


def test_every_name_of_all_is_rendered(rendered_api):
    """Each name of the ``__all__`` of a module the page renders with ``:members:`` appears in
    the build as a documented object (under that module or the one defining it)."""
    shown = rendered_objects(rendered_api)
    modules = [name for name in bare_automodules()
               if hasattr(importlib.import_module(name), "__all__")]
    assert "olearn.experiments" in modules
    missing = []
    for name in modules:
        module = importlib.import_module(name)
        for member in module.__all__:
            value = getattr(module, member)
            if not any(path.rsplit(".", 1)[-1] == member and resolve(path) is value
                       for path in shown):
                missing.append(f"{name}.{member}")
    assert not missing, f"in __all__, rendered by no directive: {missing}"


def test_no_rendered_constant_shows_its_type_docstring(rendered_api):
    """A data member documented where its ``#:`` comment is not gets the docstring of its
    type ("Built-in mutable sequence." for a list) in place of its own."""
    for path in rendered_objects(rendered_api):
        value = resolve(path)
        if inspect.isclass(value) or callable(value) or inspect.ismodule(value):
            continue
        first = (type(value).__doc__ or "").strip().splitlines()[0]
        assert not first or f"\n   {first}" not in rendered_api.split(path, 1)[1][:400], path


def imported_names(source, module):
    """Names a source imports with ``from <module> import ...``."""
    names = set()
    for group in re.findall(rf"from {re.escape(module)} import (\([^)]*\)|[^\n]*)", source):
        names |= {part.split(" as ")[0].strip() for part in group.strip("()").split(",")}
    return names - {""}


def test_the_runner_names_the_pages_import_are_in_all():
    import olearn.experiments

    imported = set()
    for page in BOOK.rglob("*.ipynb"):
        if "_build" in page.parts:
            continue
        cells = json.loads(page.read_text())["cells"]
        source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        imported |= imported_names(source, "olearn.experiments.runner")
        imported |= {name for name in imported_names(source, "olearn.experiments")
                     if not importlib.util.find_spec(f"olearn.experiments.{name}")}
    assert {"provenance_table", "run_dataset", "quick_mode"} <= imported
    assert imported <= set(olearn.experiments.__all__), \
        imported - set(olearn.experiments.__all__)


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


def test_the_package_docstring_names_the_functions_of_all():
    """olearn's docstring: the names of ``__all__`` that are not classes are the three scoring
    functions, the selection function (it returns feature indices) and ``__version__``."""
    doc = " ".join(olearn.__doc__.split())
    functions = {name for name in olearn.__all__
                 if name != "__version__" and not inspect.isclass(getattr(olearn, name))}
    named = set(re.findall(r"``(\w+)``", doc.split("feature-scoring functions", 1)[1]
                           .split("__version__", 1)[0]))
    assert named == functions, (named, functions)
    M = np.array([[1.0, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.9]])
    selected = olearn.game_theoretic_selection(M, 2)
    assert selected.dtype.kind == "i" and len(selected) == 2 and set(selected) <= {0, 1, 2}
