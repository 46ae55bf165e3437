"""The distributed learner imports flat without making ``import olearn`` import dask (issue 40).

``from olearn import IterativeParameterMixing`` resolves through the package's lazy
``__getattr__``; the name stays out of ``olearn.__all__``, whose estimators
tests/test_contract.py runs without a cluster.
"""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys
import olearn
loaded = lambda: sorted(m for m in sys.modules
                        if m.split(".")[0] in ("dask", "distributed") or m == "olearn.distributed")
after_import = loaded()
star = {}
exec("from olearn import *", star)
after_star = loaded()
from olearn import IterativeParameterMixing
import olearn.distributed
print(json.dumps({"after_import": after_import, "after_star": after_star,
                  "in_star": "IterativeParameterMixing" in star,
                  "in_dir": "IterativeParameterMixing" in dir(olearn),
                  "same": IterativeParameterMixing is olearn.distributed.IterativeParameterMixing,
                  "module": IterativeParameterMixing.__module__}))
"""


def test_import_olearn_does_not_import_dask_and_the_flat_import_works():
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True,
                         text=True, cwd=ROOT).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["after_import"] == [], result["after_import"]
    assert result["after_star"] == [], result["after_star"]   # not pulled in by `import *`
    assert not result["in_star"]
    assert result["in_dir"]
    assert result["same"] and result["module"] == "olearn.distributed.ipm"


def test_the_distributed_learner_is_not_in_all():
    import olearn

    assert "IterativeParameterMixing" not in olearn.__all__
    assert "IterativeParameterMixing" in olearn._EXPORTS_NOT_IN_ALL


def test_unknown_names_still_raise():
    import pytest

    import olearn

    with pytest.raises(AttributeError, match="no attribute 'NotALearner'"):
        olearn.NotALearner  # noqa: B018
