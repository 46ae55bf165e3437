"""Cache keys of the experiment runner: what a task computes, as JSON.

A task's key hashes the learner's class and parameters, the data's values, the
permutation seed, the stream length and olearn's version (:func:`task_key`).
Code is keyed by what it computes, wherever it comes from:

* olearn's classes and modules: their qualified name and a hash of the source
  of every olearn module they reach (:func:`source_digest`);
* installed libraries (the standard library, site-packages): the qualified name
  and the package's ``__version__``;
* the user's code (a notebook, a script, a module beside it): *what it is now*,
  not its name -- a function by its bytecode, constants, defaults, closure and
  the globals it reads (:func:`callable_key`); a class by the keys of its bases
  and of everything its body defines (methods recursively, so the helpers they
  call are in the key); a module by the attributes the code that reads it names
  (``mykernels.k`` in ``lambda A, B: mykernels.k(A, B)``: the key of ``k``).
  Editing any of these (and reloading it, or running in a new process) changes
  the key.

What cannot be keyed reliably (a callable object with hidden state, a bound
method, an empty closure cell, a value with no stable description, a user
module passed as a value) raises :class:`UncacheableError`, and the runner runs
that learner uncached with a warning that says why.
"""
import builtins
import functools
import hashlib
import inspect
import json
import numbers
import os
import site
import sys
import sysconfig
import types
from functools import lru_cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp

CACHE_FORMAT = 1


def data_fingerprint(X, y):
    """sha256 of the values of ``(X, y)`` (layout, shape, dtype and bytes)."""
    digest = hashlib.sha256()
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        parts = [X.data, X.indices, X.indptr]
        digest.update(f"csr{X.shape}".encode())
    else:
        parts = [np.asarray(X)]
    y = np.asarray(y)
    if y.dtype == object:
        y = np.array([repr(v) for v in y])
    for part in parts + [y]:
        part = np.ascontiguousarray(part)
        digest.update(f"{part.dtype.str}{part.shape}".encode())
        digest.update(part.data if part.size else b"")
    return digest.hexdigest()


class UncacheableError(ValueError):
    """A parameter value that no cache key can describe reliably."""


def _jsonable(value, key=False):
    """A stable, JSON-serialisable description of a parameter value.

    ``key=True`` (cache keys): callables are described by what they compute
    (:func:`callable_key`) and a value with no stable description raises
    :class:`UncacheableError`; otherwise (provenance) they are named.
    """
    if hasattr(value, "get_params") and not isinstance(value, type):
        return {"class": class_key(type(value)) if key else _qualname(type(value)),
                "params": _jsonable(value.get_params(deep=False), key)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v, key)
                for k, v in sorted(value.items(), key=str)}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, key) for v in value]
    if isinstance(value, np.random.RandomState):
        return {"RandomState": _jsonable(value.get_state(legacy=False))}
    if isinstance(value, np.random.Generator):
        return {"Generator": _jsonable(value.bit_generator.state)}
    if isinstance(value, np.ndarray):
        return {"array": hashlib.sha256(
            f"{value.dtype.str}{value.shape}".encode()
            + np.ascontiguousarray(value).tobytes()).hexdigest()}
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if key and isinstance(value, types.ModuleType):
        return module_key(value)
    if key and callable(value):
        return callable_key(value)
    if callable(value) and hasattr(value, "__qualname__"):
        return {"callable": f"{getattr(value, '__module__', '')}.{value.__qualname__}"}
    if key:
        raise UncacheableError(
            f"{type(value).__name__} value {_short(value)} has no stable "
            f"description")
    return {"repr": repr(value)}


def _short(value, width=60):
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def _code_key(code):
    """What a code object computes: bytecode, constants (nested code objects
    recursively), the names it uses; not its file or line numbers."""
    return {"code": hashlib.sha256(code.co_code).hexdigest(),
            "consts": [_const_key(c) for c in code.co_consts],
            "names": list(code.co_names),
            "varnames": list(code.co_varnames),
            "freevars": list(code.co_freevars),
            "argcount": [code.co_argcount, code.co_kwonlyargcount,
                         code.co_posonlyargcount, code.co_flags]}


def _const_key(const):
    """A literal of compiled code (frozensets in a stable order)."""
    if isinstance(const, types.CodeType):
        return _code_key(const)
    if isinstance(const, tuple):
        return [_const_key(c) for c in const]
    if isinstance(const, frozenset):
        return {"frozenset": sorted(json.dumps(_const_key(c)) for c in const)}
    return f"{type(const).__name__}:{const!r}"


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


_KEYING = []   # functions, classes and modules being keyed (they may refer to themselves)


def _origin(module_name):
    """Where a module's code lives: "olearn", "library" (the standard library,
    site-packages, built in) or "user" (anything else: a script, a notebook, a
    module beside them, a module made at run time)."""
    if module_name == "olearn" or module_name.startswith("olearn."):
        return "olearn"
    if module_name == "__main__":   # a script or a notebook (whatever file runs it)
        return "user"
    if module_name in sys.builtin_module_names:
        return "library"
    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None)
    if not path:
        return "user"
    return "library" if _under_library(os.path.realpath(path)) else "user"


@lru_cache(maxsize=None)
def _library_roots():
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    try:
        roots.update(site.getsitepackages())
        roots.add(site.getusersitepackages())
    except AttributeError:          # a virtualenv's old site module
        pass
    return tuple(sorted({os.path.realpath(r) + os.sep for r in roots if r}))


def _under_library(path):
    return path.startswith(_library_roots())


def _library_version(module_name):
    top = sys.modules.get(module_name.split(".")[0])
    version = getattr(top, "__version__", None)
    return version if isinstance(version, str) else None


def _recursion_guard(obj, name, make):
    """``make()``, or a reference by name when ``obj`` is already being keyed."""
    if any(obj is other for other in _KEYING):
        return {"recursive": name}
    _KEYING.append(obj)
    try:
        return make()
    finally:
        _KEYING.pop()


def module_key(module, names=None):
    """A JSON description of a module as code reading it sees it.

    olearn's modules: the name and :func:`source_digest`; a library's: the name
    and the package's version; the user's: the values of its attributes named
    in ``names`` (the names the reading code uses: ``k`` in ``mykernels.k``),
    each keyed as a parameter value (:func:`callable_key` for functions and
    classes).  A user module with no such names (a module passed as a value)
    raises :class:`UncacheableError`: nothing says which of its attributes are
    used.
    """
    name = module.__name__
    origin = _origin(name)
    if origin == "olearn":
        return {"module": name, "source": _modules_digest((name,))}
    if origin == "library":
        return {"module": name, "version": _library_version(name)}
    if names is None:
        raise UncacheableError(
            f"module {name} is a value the cache key cannot describe (pass the "
            f"function it holds)")

    def make():
        attributes = []
        for attribute in sorted(names):
            if attribute in vars(module):
                value = vars(module)[attribute]
                attributes.append([attribute, module_key(value, names)
                                   if isinstance(value, types.ModuleType)
                                   else _jsonable(value, key=True)])
        return {"module": name, "attributes": attributes}

    return _recursion_guard(module, name, make)


#: entries of a class's ``__dict__`` that say nothing about what it computes
_CLASS_BOOKKEEPING = frozenset({
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
    "__firstlineno__", "__static_attributes__", "__annotations__",
    "__abstractmethods__", "_abc_impl", "__parameters__", "__orig_bases__"})


def _member_key(value):
    """A class body's entry: methods (also static, class, property) by their code."""
    if isinstance(value, (staticmethod, classmethod)):
        return {type(value).__name__: callable_key(value.__func__)}
    if isinstance(value, property):
        return {"property": [None if f is None else callable_key(f)
                             for f in (value.fget, value.fset, value.fdel)]}
    if isinstance(value, functools.cached_property):
        return {"cached_property": callable_key(value.func)}
    if isinstance(value, types.FunctionType):
        return callable_key(value)
    if type(value).__name__ == "RequestMethod":     # scikit-learn's set_*_request
        return {"RequestMethod": [getattr(value, "name", None),
                                  sorted(getattr(value, "keys", ()))]}
    try:
        return _jsonable(value, key=True)
    except UncacheableError:
        text = repr(value)              # e.g. scikit-learn's Interval(...) constraints
        if " at 0x" in text:
            raise
        return {"repr": text}


def class_key(cls):
    """A JSON description of what a class computes.

    olearn's classes: the qualified name and :func:`source_digest`; a
    library's: the name and the package's version; the user's: the keys of its
    bases and of every entry of its body (:func:`_member_key`), recursively --
    so a subclass edited in a notebook or a module gets a new key.
    """
    name = _qualname(cls)
    origin = _origin(cls.__module__)
    if origin == "olearn":
        return {"class": name, "source": source_digest(cls)}
    if origin == "library":
        return {"class": name, "version": _library_version(cls.__module__)}

    def make():
        return {"class": name,
                "bases": [class_key(base) for base in cls.__bases__],
                "body": [[k, _member_key(v)] for k, v in sorted(vars(cls).items())
                         if k not in _CLASS_BOOKKEEPING]}

    return _recursion_guard(cls, name, make)


def callable_key(fn):
    """A JSON description of what ``fn`` computes, for cache keys.

    The user's Python functions (lambdas, nested functions): :func:`_code_key`
    of the code, the defaults, the closure's values and the values of the
    globals the code reads, each described the same way (recursively; a module
    among them by the attributes the code names, :func:`module_key`).
    Functions compiled by numba are keyed by their Python function.  Classes:
    :func:`class_key`.  olearn's and installed libraries' functions, builtins and
    numpy ufuncs: their qualified name with olearn's source digest or the
    library's version.  ``functools.partial``: its function, arguments and
    keywords.  Raises :class:`UncacheableError` (saying why) for anything
    else: a callable object or bound method, whose state the key cannot see,
    or a closure cell not yet filled.
    """
    fn = getattr(fn, "py_func", fn)              # numba dispatchers
    if isinstance(fn, types.ModuleType):
        return module_key(fn)
    if isinstance(fn, functools.partial):
        return {"partial": callable_key(fn.func),
                "args": _jsonable(list(fn.args), key=True),
                "keywords": _jsonable(dict(fn.keywords), key=True)}
    if isinstance(fn, type):
        return class_key(fn)
    if isinstance(fn, (types.BuiltinFunctionType, np.ufunc)):
        module = getattr(fn, "__module__", None) or type(fn).__module__
        return {"builtin": f"{module}.{getattr(fn, '__qualname__', fn.__name__)}"}
    if not isinstance(fn, types.FunctionType) and _named_library_function(fn):
        return {"function": f"{fn.__module__}.{fn.__qualname__}",
                "version": _library_version(fn.__module__)}
    if not isinstance(fn, types.FunctionType):
        raise UncacheableError(
            f"{_short(fn)} is a {type(fn).__name__}, whose state the cache key "
            f"cannot see (pass a plain function)")
    name = f"{fn.__module__}.{fn.__qualname__}"
    origin = _origin(fn.__module__ or "")
    if origin == "olearn":
        return {"function": name, "source": _modules_digest((fn.__module__,))}
    if origin == "library":
        return {"function": name, "version": _library_version(fn.__module__)}
    return _recursion_guard(fn, name, lambda: _function_key(fn, name))


def _named_library_function(fn):
    """A library's module-level function wrapped in an object (numpy's
    ``_ArrayFunctionDispatcher``): the module names it, so it holds no state
    of the caller's."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not (isinstance(module, str) and isinstance(qualname, str)):
        return False
    if _origin(module) != "library" or _origin(type(fn).__module__) != "library":
        return False
    return getattr(sys.modules.get(module), qualname, None) is fn


def _function_key(fn, name):
    code = fn.__code__
    names = _global_names(code)

    def value_key(value):
        if isinstance(value, types.ModuleType):
            return module_key(value, names)
        return _jsonable(value, key=True)

    closure = []
    for var, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            content = cell.cell_contents
        except ValueError:
            raise UncacheableError(
                f"{name} reads {var!r} from a closure cell that is still "
                f"empty") from None
        closure.append([var, value_key(content)])
    global_values = []
    for var in sorted(names):
        if var in fn.__globals__:
            global_values.append([var, value_key(fn.__globals__[var])])
        elif hasattr(builtins, var):
            global_values.append([var, "builtin"])
    return {"function": name, "code": _code_key(code),
            "defaults": _jsonable(list(fn.__defaults__ or ()), key=True),
            "kwdefaults": _jsonable(dict(fn.__kwdefaults__ or {}), key=True),
            "closure": closure, "globals": global_values}


def _qualname(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_library_module(name):
    return (name.startswith("olearn.") and not name.startswith("olearn.experiments")
            and name != "olearn.plotting")


def source_digest(cls):
    """sha256 of the source of the class's module and of every olearn module
    its code reaches (through the classes of its MRO and their globals)."""
    return _modules_digest(tuple(dict.fromkeys(c.__module__ for c in cls.__mro__)))


@lru_cache(maxsize=None)
def _modules_digest(start):
    """sha256 of the source of the modules ``start`` and of every olearn
    library module they reach through their globals."""
    seen, stack = set(), list(start)
    while stack:
        name = stack.pop()
        if name in seen or not (_is_library_module(name) or name in start):
            continue
        seen.add(name)
        module = sys.modules.get(name)
        if module is None:
            continue
        for value in list(vars(module).values()):
            try:
                ref = (value.__name__ if inspect.ismodule(value)
                       else getattr(value, "__module__", None))
            except Exception:
                continue
            if isinstance(ref, str) and _is_library_module(ref):
                stack.append(ref)
    digest = hashlib.sha256()
    for name in sorted(seen):
        path = getattr(sys.modules.get(name), "__file__", None)
        if path and os.path.isfile(path):
            digest.update(name.encode() + Path(path).read_bytes())
    return digest.hexdigest()


def deterministic(estimator):
    """Whether a task's outcome is a function of its key.

    False if the estimator, or one nested in it (``learner__shuffle``...),
    has ``shuffle=True`` without an integer ``random_state``: such a learner
    draws new permutations on every run, and replaying a cached run would
    present one draw as the result.
    """
    params = estimator.get_params(deep=True)
    for name, value in params.items():
        if name.rsplit("__", 1)[-1] == "shuffle" and value:
            prefix = name[:-len("shuffle")]
            seed = params.get(prefix + "random_state")
            if not (isinstance(seed, numbers.Integral)
                    and not isinstance(seed, bool)):
                return False
    return True


def task_key(estimator, fingerprint, seed, n_rounds):
    """The cache key of one task and the description it hashes."""
    from .. import __version__

    cls = type(estimator)
    description = {
        "format": CACHE_FORMAT,
        "olearn": __version__,
        "learner": _qualname(cls),
        # the user's classes by what they are now (olearn's by their source)
        "source": (class_key(cls) if _origin(cls.__module__) == "user"
                   else source_digest(cls)),
        "params": _jsonable(estimator.get_params(deep=True), key=True),
        "data": fingerprint,
        "seed": list(seed),
        "n_rounds": n_rounds,
    }
    text = json.dumps(description, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest(), text


