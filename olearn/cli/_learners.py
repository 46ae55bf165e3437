"""The learner of ``olearn train``: named, parameterised and validated before any file is read."""
import ast
import inspect


class UsageError(Exception):
    """A mistake on the command line or in the input; printed, exit status 2."""


def _estimator_class(name):
    """``olearn.<name>`` if it is an estimator class, else None (imports only
    that name's family: olearn's names are imported on first use)."""
    import olearn
    obj = getattr(olearn, name, None) if name in olearn.__all__ else None
    if inspect.isclass(obj) and hasattr(obj, "fit") and hasattr(obj, "get_params"):
        return obj
    return None


def learner_names():
    import olearn
    return [name for name in olearn.__all__ if _estimator_class(name) is not None]


def make_learner(name, params):
    """``olearn.<name>(**params)``; a clear error for an unknown name or parameter."""
    cls = _estimator_class(name)
    if cls is None:   # only now is every family imported, to list the names
        names = learner_names()
        close = [n for n in names if n.lower() == name.lower()]
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(f"unknown learner {name!r}{hint}; choose one of: "
                         + ", ".join(names))
    est = cls()
    valid = est.get_params(deep=False)
    for key in params:
        if key not in valid:
            raise UsageError(f"{name} has no parameter {key!r}; its parameters: "
                             + ", ".join(sorted(valid)))
    return est.set_params(**params)


def parse_value(text):
    """A Python literal, a learner call such as ``Perceptron()``, else the string."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.args:
            raise UsageError(f"{text}: give the learner's parameters by name, "
                             "e.g. Perceptron(n_epochs=2)")
        kwargs = {kw.arg: parse_value(ast.unparse(kw.value)) for kw in node.keywords}
        return make_learner(node.func.id, kwargs)
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError):
        return text


def parse_params(pairs):
    params = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--param {pair!r}: write KEY=VALUE, e.g. --param r=0.5")
        params[key.strip()] = parse_value(value.strip())
    return params


def _learners_within(est):
    """``est`` and the learners nested in its parameters (``Averaged(learner=PA())``)."""
    yield est
    for value in est.get_params(deep=False).values():
        if hasattr(value, "get_params") and hasattr(value, "fit"):
            yield from _learners_within(value)


def check_learner(name, est):
    """The hyper-parameters' own checks, run before any file is read (olearn's
    learners check them at every ``fit``; a bad value is reported now rather
    than after parsing a large file)."""
    for learner in _learners_within(est):
        for method in ("_check_run_params", "_check_params"):
            check = getattr(learner, method, None)
            if check is None:
                continue
            try:
                check()
            except AttributeError:  # a learner without the common run parameters
                continue
            except (ValueError, TypeError) as err:
                raise UsageError(f"{name}: {err}") from None
            break


def check_memory(name, est, n_features):
    """Refuse before learning a full covariance matrix that cannot fit
    (``d x d`` float64), naming ``--param covariance=diag``."""
    for learner in _learners_within(est):
        if learner.get_params(deep=False).get("covariance") != "full":
            continue
        from olearn.second_order.core import check_full_fits
        try:
            check_full_fits(type(learner).__name__, n_features)
        except MemoryError as err:
            raise UsageError(f"{name}: {err} On the command line: "
                             "--param covariance=diag") from None


def choose_record(est, params, wanted):
    """Keep the per-round record (``record="full"``: 9 bytes a round, kept in
    the saved model too) only when ``--save-record`` asks for it; otherwise
    ``record="counts"``: memory flat on a long file, a small saved model.  A
    ``record`` given with ``--param`` is kept.  Returns the record kept (None
    for a learner without one)."""
    if "record" not in est.get_params(deep=False):  # e.g. a meta-estimator
        return None
    if "record" in params:
        if wanted and params["record"] == "counts":
            raise UsageError("--save-record needs the per-round record: drop "
                             "--param record=counts")
        return params["record"]
    record = "full" if wanted else "counts"
    est.set_params(record=record)
    return record
