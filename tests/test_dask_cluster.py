"""The experiments on a Dask cluster give the serial results (issue 19, item 4)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from distributed import LocalCluster, get_task_stream

from olearn import AROW, PA, Perceptron
from olearn.experiments import cluster as dask_cluster
from olearn.experiments import run

ROOT = Path(__file__).resolve().parents[1]
N_PERM = 3


def data():
    rng = np.random.default_rng(0)
    X = sp.random(400, 30, density=0.3, random_state=1, format="csr")
    y = np.where(X @ rng.standard_normal(30) > 0, 1, -1)
    return X, y


def learners():
    return {"Perceptron": Perceptron(), "PA-I": PA(C=0.5, variant="PA-I"),
            "AROW diag": AROW(r=0.5, covariance="diag")}


def summary(result):
    """Everything a run returns except the wall times."""
    table = result.table.drop(columns=["seconds"])
    return {"table": json.loads(table.to_json(orient="split")),  # NaN -> None
            "curves": {k: v.tolist() for k, v in result.curves.items()},
            "packed": {k: v.tolist() for k, v in result.packed_mistakes.items()}}


@pytest.fixture(scope="module")
def local_cluster():
    # two small workers in this process, reachable over TCP (for the subprocess test)
    with LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                      protocol="tcp://", dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def serial():
    X, y = data()
    return summary(run(learners(), X, y, N_PERM, n_jobs=1, cache=False, progress=False))


def test_cluster_results_equal_serial(local_cluster, serial, monkeypatch):
    monkeypatch.setenv(dask_cluster.ENV, local_cluster.scheduler_address)
    X, y = data()
    with joblib.parallel_config(backend="sequential"):  # restored on exit
        client = dask_cluster.use_dask()
        assert client is not None
        with get_task_stream(client) as tasks:
            result = run(learners(), X, y, N_PERM, n_jobs=1, cache=False, progress=False)
    # the tasks ran on the workers (joblib may batch several tasks into one Dask task,
    # so the stream holds between 1 and len(learners()) * N_PERM entries)
    assert 1 <= len(tasks.data) <= len(learners()) * N_PERM
    assert {entry["worker"] for entry in tasks.data} <= set(client.scheduler_info()["workers"])
    assert summary(result) == serial


def test_environment_variable_sends_a_script_to_the_cluster(local_cluster, serial):
    """``OLEARN_DASK_SCHEDULER`` alone (no code change) runs a script's experiment there."""
    script = (
        "import json, sys\n"
        "sys.path.insert(0, %r)\n"
        "from test_dask_cluster import data, learners, summary, N_PERM\n"
        "from olearn.experiments import run, cluster\n"
        "client = cluster.use_dask()\n"
        "X, y = data()\n"
        "result = run(learners(), X, y, N_PERM, n_jobs=1, cache=False, progress=False)\n"
        "workers = client.run(lambda: 1)\n"
        "print(json.dumps({'summary': summary(result), 'workers': len(workers)}))\n"
    ) % str(Path(__file__).parent)
    env = dict(os.environ, **{dask_cluster.ENV: local_cluster.scheduler_address})
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]]
                                                       if env.get("PYTHONPATH") else []))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["workers"] == 2
    assert out["summary"] == json.loads(json.dumps(serial))


def test_no_address_changes_nothing(monkeypatch):
    monkeypatch.delenv(dask_cluster.ENV, raising=False)
    assert dask_cluster.scheduler_address() is None
    assert dask_cluster.use_dask() is None


def test_unreachable_scheduler_says_how_to_fix():
    with joblib.parallel_config(backend="sequential"):
        with pytest.raises(OSError, match="cannot reach the Dask scheduler .*dask worker"):
            dask_cluster.use_dask("tcp://127.0.0.1:9", timeout="2s")
