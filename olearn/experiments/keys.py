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

Every name the user's code reads is accounted for, or the task is not cached:

* a global the function reads that is neither defined in its module nor a
  builtin raises :class:`UncacheableError` (it is never dropped silently);
* an ``import`` inside a function (``def k(A, B): from mykernels import k``)
  is keyed through ``sys.modules`` like a module the function reads as a
  global (importing it if it is not loaded yet);
* ``getattr(module, "k")`` names ``k`` by a string constant: string constants
  count as attribute names; a function that reads attributes it may not name
  (``getattr``, ``hasattr``, ``vars``, ``globals``, ``__dict__``) has every
  attribute of the user's modules it reaches keyed;
* code that imports or evaluates by a name known only at run time
  (``importlib.import_module``, ``__import__``, ``eval``, ``exec``,
  ``compile``) raises :class:`UncacheableError`;
* a dataclass instance is keyed by its class and the values of its fields;
* olearn's data sets (:mod:`olearn.datasets`), reached by the code, are keyed
  by the registered sha256 of every file (``load`` checks them).

What the code reads from outside Python -- a file, an environment variable, a
database, the clock -- is *not* keyed: name it in the runner's ``depends_on=``
(files by their content, :class:`Env` by the variable's value,
:func:`dependencies_key`).  What cannot be keyed reliably (a callable object
with hidden state, a bound method, an empty closure cell, a value with no
stable description, a user module passed as a value) raises
:class:`UncacheableError`, and the runner runs that learner uncached with a
warning that says why.
"""
import builtins
import dataclasses
import dis
import functools
import importlib
import importlib.util
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

#: The version of the cache key's layout, hashed into every key (:func:`task_key`):
#: a new value changes every key, so no stored task is reused.
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


@dataclasses.dataclass(frozen=True)
class Env:
    """An environment variable a task depends on (``run(..., depends_on=[Env("X")])``):
    keyed by its value (unset is a value of its own)."""

    name: str


def dependencies_key(depends_on):
    """A JSON description of what the code reads from outside Python.

    ``depends_on`` lists paths (``str`` or ``os.PathLike``: a file by the
    sha256 of its content, a folder by the relative paths and contents of
    every file under it) and :class:`Env` variables (by their value).  A path
    that does not exist raises ``FileNotFoundError``; anything else raises
    ``TypeError``.
    """
    if depends_on is None:
        return []
    if isinstance(depends_on, (str, os.PathLike, Env)):
        depends_on = [depends_on]
    described = []
    for item in depends_on:
        if isinstance(item, Env):
            described.append({"env": item.name, "value": os.environ.get(item.name)})
        elif isinstance(item, (str, os.PathLike)):
            path = Path(item)
            if path.is_file():
                described.append({"file": str(path), "sha256": _file_sha256(path)})
            elif path.is_dir():
                files = sorted(p for p in path.rglob("*") if p.is_file())
                described.append({"folder": str(path), "files": [
                    [str(p.relative_to(path)), _file_sha256(p)] for p in files]})
            else:
                raise FileNotFoundError(
                    f"depends_on names {str(path)!r}, which does not exist: give "
                    f"the path of the file or folder the code reads.")
        else:
            raise TypeError(
                f"depends_on takes paths and olearn.experiments.Env(name), got "
                f"{type(item).__name__} {_short(item)}; pass a value the code "
                f"reads as a learner parameter instead.")
    return described


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    if isinstance(value, (set, frozenset)):
        return {type(value).__name__: sorted(
            (_jsonable(v, key) for v in value), key=lambda v: json.dumps(v, sort_keys=True))}
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
    if key and dataclasses.is_dataclass(value) and not isinstance(value, type):
        state = (vars(value) if hasattr(value, "__dict__")
                 else {f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
        return {"dataclass": class_key(type(value)),
                "fields": [[k, _jsonable(v, key)] for k, v in sorted(state.items())]}
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


#: builtins that read attributes or namespaces by a name the code may compute
_DYNAMIC_READS = frozenset({"getattr", "hasattr", "vars", "globals", "locals", "dir"})
#: names that import or evaluate code chosen at run time: nothing to key
_UNKEYABLE = frozenset({"eval", "exec", "compile", "__import__", "import_module",
                        "reload", "run_path", "run_module"})


def _global_names(code):
    """The names ``code`` (nested code objects too) may use as attributes:
    ``co_names`` and the string constants that are identifiers."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
        elif isinstance(const, str) and const.isidentifier():
            names.add(const)
        elif isinstance(const, tuple):
            names |= {c for c in const if isinstance(c, str) and c.isidentifier()}
    return names


_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL"})


def _reads(code):
    """``(globals, imports)``: the global names ``code`` loads and the modules
    it imports, ``(name, level, fromlist)``, nested code objects included (a
    class body's names it defines itself are not globals)."""
    loads, imports = set(), set()
    instructions = list(dis.get_instructions(code))
    stored = {ins.argval for ins in instructions if ins.opname == "STORE_NAME"}
    for i, ins in enumerate(instructions):
        if ins.opname in _GLOBAL_OPS and not (ins.opname == "LOAD_NAME"
                                             and ins.argval in stored):
            loads.add(ins.argval)
        elif ins.opname == "IMPORT_NAME":
            level = instructions[i - 2].argval if i >= 2 else 0
            fromlist = instructions[i - 1].argval if i >= 1 else None
            imports.add((ins.argval, level if isinstance(level, int) else 0,
                         tuple(fromlist) if isinstance(fromlist, tuple) else ()))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            inner_loads, inner_imports = _reads(const)
            loads |= inner_loads
            imports |= inner_imports
    return loads, imports


def _co_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _co_names(const)
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


#: ``module_key(module, EVERY)``: all the attributes of a user's module
EVERY = "every attribute"
#: entries of a module's namespace that say nothing about what it computes
_MODULE_BOOKKEEPING = frozenset({
    "__name__", "__qualname__", "__doc__", "__file__", "__cached__", "__loader__",
    "__spec__", "__package__", "__path__", "__builtins__", "__annotations__",
    "__warningregistry__"})


def _olearn_key(kind, name, digest, module_name):
    """olearn's code: its source digest, and the registered sha256 of every
    data file when the code is (or reaches) :mod:`olearn.datasets`."""
    described = {kind: name, "source": digest}
    if module_name.startswith("olearn.datasets") or module_name == "olearn":
        described["data"] = registered_checksums()
    return described


def registered_checksums():
    """``{path: sha256}`` of every file of olearn's data registry."""
    from ..datasets._registry import FILES

    return {path: entry.sha256 for path, entry in sorted(FILES.items())}


def module_key(module, names=None):
    """A JSON description of a module as code reading it sees it.

    olearn's modules: the name and :func:`source_digest`; a library's: the name
    and the package's version; the user's: the values of its attributes named
    in ``names`` (the names the reading code uses: ``k`` in ``mykernels.k``),
    or of all its attributes when ``names`` is :data:`EVERY`, each keyed as a
    parameter value (:func:`callable_key` for functions and classes).  A user
    module with no such names (a module passed as a value) raises
    :class:`UncacheableError`: nothing says which of its attributes are used.
    """
    name = module.__name__
    origin = _origin(name)
    if origin == "olearn":
        return _olearn_key("module", name, _modules_digest((name,)), name)
    if origin == "library":
        return {"module": name, "version": _library_version(name)}
    if names is None:
        raise UncacheableError(
            f"module {name} is a value the cache key cannot describe (pass the "
            f"function it holds)")

    def make():
        attributes = []
        wanted = ([k for k in vars(module) if k not in _MODULE_BOOKKEEPING]
                  if names == EVERY else names)
        for attribute in sorted(wanted):
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
    if isinstance(value, dict) and value and all(
            isinstance(v, dataclasses.Field) for v in value.values()):
        return {"dataclass_fields": [[k, _field_key(v)] for k, v in sorted(value.items())]}
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


def _field_key(field):
    """A dataclass field: its default (or default factory) and its options."""
    missing = dataclasses.MISSING
    return {"default": None if field.default is missing else _jsonable(field.default, key=True),
            "factory": None if field.default_factory is missing
            else callable_key(field.default_factory),
            "options": [field.init, field.repr, field.compare, repr(field.hash),
                        repr(getattr(field, "kw_only", None))]}


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
        return _olearn_key("class", name, source_digest(cls), cls.__module__)
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
        return _olearn_key("function", name, _modules_digest((fn.__module__,)),
                           fn.__module__)
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
    loads, imports = _reads(code)
    used = loads | _co_names(code)
    unkeyable = sorted(used & _UNKEYABLE)
    if unkeyable:
        raise UncacheableError(
            f"{name} calls {unkeyable[0]}, which runs or imports code the cache "
            f"key cannot see")
    # getattr(module, name), vars(module)...: any attribute may be read
    every = EVERY if (used & _DYNAMIC_READS or "__dict__" in used) else names

    def value_key(value):
        if isinstance(value, types.ModuleType):
            return module_key(value, every)
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
    for var in sorted(names | loads):
        if var in fn.__globals__:
            global_values.append([var, value_key(fn.__globals__[var])])
        elif var in loads and hasattr(builtins, var):
            global_values.append([var, "builtin"])
        elif var in loads:
            raise UncacheableError(
                f"{name} reads the global {var!r}, which its module does not "
                f"define, so the cache key cannot say what it is (define it "
                f"before running, or pass it as a parameter)")
    imported = []
    for module_name, level, fromlist in sorted(imports):
        resolved = _imported_name(fn, name, module_name, level)
        modules = [resolved] + [f"{resolved}.{a}" for a in fromlist
                                if f"{resolved}.{a}" in sys.modules]
        if not fromlist and "." in resolved:
            modules.append(resolved.split(".")[0])   # `import a.b` binds a
        for each in modules:
            imported.append([each, value_key(_import(name, each))])
    return {"function": name, "code": _code_key(code),
            "defaults": _jsonable(list(fn.__defaults__ or ()), key=True),
            "kwdefaults": _jsonable(dict(fn.__kwdefaults__ or {}), key=True),
            "closure": closure, "globals": global_values, "imports": imported}


def _imported_name(fn, name, module_name, level):
    if not level:
        return module_name
    package = fn.__globals__.get("__package__") or ""
    try:
        return importlib.util.resolve_name("." * level + (module_name or ""), package)
    except (ImportError, ValueError) as error:
        raise UncacheableError(f"{name} imports a relative module the cache key "
                               f"cannot resolve ({error})") from None


def _import(name, module_name):
    """The module an ``import`` inside ``name`` gets: from ``sys.modules``,
    else imported now (as the function would)."""
    module = sys.modules.get(module_name)
    if module is not None:
        return module
    try:
        return importlib.import_module(module_name)
    except Exception as error:
        raise UncacheableError(
            f"{name} imports {module_name}, which cannot be imported here "
            f"({type(error).__name__}: {error})") from None


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


def task_key(estimator, fingerprint, seed, n_rounds, depends_on=None):
    """The cache key of one task and the description it hashes.

    ``depends_on``: :func:`dependencies_key` of what the code reads from
    outside Python (left out of the description when empty).
    """
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
    if depends_on:
        description["depends_on"] = depends_on
    text = json.dumps(description, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest(), text


