"""Model files of the command line: arrays and parameters, loaded without running code.

``olearn train --save-model PATH`` writes a numpy ``.npz`` archive (a zip
of ``.npy`` arrays) holding every numeric array of the fitted estimator
and one JSON document, ``model.json``: the format and olearn's version,
the estimator's class (a name of ``olearn.__all__``), its parameters and
its other attributes (numbers, strings, lists, dicts, arrays by
reference; a nested estimator, or a plain object of one of olearn's own
classes, likewise), and how the command line read the
training file (its index convention).  :func:`load_model` reads it with
``numpy.load(allow_pickle=False)`` and ``json``: nothing in the file is
executed, a class is only looked up by name in ``olearn.__all__`` (or, for
a plain object, in a module of olearn, created without ``__init__``), and a
pickle, a zip that is not an olearn model, an object array, or a model of
another format or olearn version is refused with an error that says so.
(A pickle runs whatever a crafted file contains when it is loaded:
models travel with papers and between people.  ``pickle`` stays available
from Python for those who want it.)
"""
import json
import numbers
import zipfile

import numpy as np

FORMAT = "olearn-model"
#: bumped when the layout changes; a file of another version is refused
FORMAT_VERSION = 1
_HEADER = "model.json"


class ModelFileError(ValueError):
    """A model file that is not one olearn wrote, or cannot be read; the message says why."""


def _olearn_version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("olearn")
    except PackageNotFoundError:  # pragma: no cover - a source tree not installed
        return "unknown"


def _estimator_class(name):
    import olearn
    cls = getattr(olearn, name, None) if name in olearn.__all__ else None
    if isinstance(cls, type) and hasattr(cls, "fit") and hasattr(cls, "get_params"):
        return cls
    return None


class _Encoder:
    """The JSON form of a value; arrays go to ``self.arrays`` by name."""

    def __init__(self):
        self.arrays = {}

    def array(self, value):
        if value.dtype.hasobject or value.dtype.kind not in "biufc":
            raise ModelFileError(f"an array of dtype {value.dtype} cannot be stored "
                                 "without pickle")
        key = f"a{len(self.arrays)}"
        self.arrays[key] = value
        return {"__array__": key}

    def __call__(self, value, where):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, np.ndarray):
            return self.array(value)
        if isinstance(value, np.generic):
            return {"__scalar__": value.dtype.str, "value": value.item()}
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            return float(value)
        if isinstance(value, tuple):
            return {"__tuple__": [self(v, where) for v in value]}
        if isinstance(value, list):
            return [self(v, where) for v in value]
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"__dict__": {k: self(v, f"{where}[{k!r}]") for k, v in value.items()}}
        if hasattr(value, "get_params") and _estimator_class(type(value).__name__):
            return self.estimator(value, where)
        if isinstance(value, type) and _estimator_class(value.__name__) is value:
            return {"__class__": value.__name__}
        cls = type(value)
        if (cls.__module__.startswith("olearn.") and hasattr(value, "__dict__")
                and not hasattr(cls, "__slots__")):  # olearn's own plain objects
            return {"__object__": f"{cls.__module__}:{cls.__qualname__}",
                    "state": {k: self(v, f"{where}.{k}") for k, v in vars(value).items()}}
        import scipy.sparse as sp
        if sp.issparse(value) and value.format == "csr":
            return {"__csr__": [self.array(value.data), self.array(value.indices),
                                self.array(value.indptr), list(value.shape)],
                    "matrix": isinstance(value, sp.spmatrix)}
        raise ModelFileError(f"{where} is a {type(value).__name__}, which a model file "
                             "cannot hold without pickle; save the estimator with "
                             "pickle from Python instead")

    def estimator(self, est, where="the estimator"):
        params = est.get_params(deep=False)
        state = {k: v for k, v in vars(est).items() if k not in params}
        return {"__estimator__": type(est).__name__,
                "params": {k: self(v, f"{where}'s parameter {k}")
                           for k, v in params.items()},
                "state": {k: self(v, f"{where}'s attribute {k}")
                          for k, v in state.items()}}


def save_model(f, est, reading=None):
    """Write ``est`` to the binary file ``f`` (``reading``: how the training
    file was read, e.g. ``{"shift": 1}``).  Raises :class:`ModelFileError`
    for an attribute that only pickle can store."""
    encode = _Encoder()
    header = {"format": FORMAT, "format_version": FORMAT_VERSION,
              "olearn_version": _olearn_version(),
              "estimator": encode.estimator(est), "reading": reading or {}}
    text = json.dumps(header).encode()
    np.savez(f, **{_HEADER.removesuffix(".json"): np.frombuffer(text, np.uint8)},
             **encode.arrays)


def _decode(value, arrays):
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        return arrays[value["__array__"]]
    if "__scalar__" in value:
        return np.dtype(value["__scalar__"]).type(value["value"])
    if "__tuple__" in value:
        return tuple(_decode(v, arrays) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v, arrays) for k, v in value["__dict__"].items()}
    if "__csr__" in value:
        import scipy.sparse as sp
        data, indices, indptr, shape = (_decode(v, arrays) for v in value["__csr__"])
        kind = sp.csr_matrix if value.get("matrix") else sp.csr_array
        return kind((data, indices, indptr), shape=tuple(shape))
    if "__class__" in value:
        cls = _estimator_class(value["__class__"])
        if cls is None:
            raise ModelFileError(f"names the class {value['__class__']!r}, which is not "
                                 "an olearn estimator")
        return cls
    if "__object__" in value:
        module, _, qualname = value["__object__"].partition(":")
        if not module.startswith("olearn.") or "." in qualname:
            raise ModelFileError(f"names {value['__object__']!r}, not a class of olearn")
        import importlib
        try:
            cls = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError):
            raise ModelFileError(f"names {value['__object__']!r}, which this olearn "
                                 "does not have") from None
        if not isinstance(cls, type) or hasattr(cls, "__slots__"):
            raise ModelFileError(f"names {value['__object__']!r}, not a plain class")
        obj = cls.__new__(cls)  # no __init__: the attributes are put back as stored
        obj.__dict__.update({k: _decode(v, arrays) for k, v in value["state"].items()})
        return obj
    if "__estimator__" in value:
        name = value["__estimator__"]
        cls = _estimator_class(name)
        if cls is None:
            raise ModelFileError(f"names the class {name!r}, which is not an olearn "
                                 "estimator")
        est = cls(**{k: _decode(v, arrays) for k, v in value["params"].items()})
        est.__dict__.update({k: _decode(v, arrays) for k, v in value["state"].items()})
        return est
    raise ModelFileError("holds a JSON object olearn does not write")


_PICKLE = ("is a pickle (or holds pickled objects), not an olearn model file; olearn "
           "refuses to load pickles on the command line because loading one runs any code "
           "it contains (pickle.load it from Python if you trust it, and save it again "
           "with olearn train --save-model)")


def load_model(path):
    """``(estimator, reading)`` of a model file :func:`save_model` wrote.
    Raises :class:`ModelFileError` naming what is wrong."""
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
    except OSError as err:
        raise ModelFileError(f"cannot be read: {err.strerror or err}") from None
    if magic[:1] == b"\x80":  # a pickle's protocol opcode
        raise ModelFileError(_PICKLE)
    if not magic.startswith((b"PK", b"\x93NUMPY")):
        raise ModelFileError("cannot be read as an olearn model file: it is not a numpy "
                             ".npz archive (olearn train --save-model writes one)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ModelFileError("is a single numpy array, not an olearn model file")
            names = set(archive.files)
            key = _HEADER.removesuffix(".json")
            if key not in names:
                raise ModelFileError("is a numpy archive without olearn's model.json: "
                                     "not an olearn model file")
            header = json.loads(archive[key].tobytes())
            arrays = {name: archive[name] for name in names if name != key}
    except ModelFileError:
        raise
    except ValueError as err:
        if "pickle" in str(err):
            raise ModelFileError(_PICKLE) from None
        raise ModelFileError(f"cannot be read as an olearn model file: {err}") from None
    except (OSError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as err:
        raise ModelFileError(f"cannot be read as an olearn model file: {err}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ModelFileError("is not an olearn model file (no olearn-model header)")
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"is an olearn model file of format version "
                             f"{header.get('format_version')}, this olearn reads version "
                             f"{FORMAT_VERSION}: train the model again with this olearn")
    if header.get("olearn_version") != _olearn_version():
        raise ModelFileError(f"was written by olearn {header.get('olearn_version')}, this "
                             f"is olearn {_olearn_version()}: train the model again, or "
                             "predict with the olearn that trained it")
    return _decode(header["estimator"], arrays), header.get("reading", {})
