"""The command line (``python -m olearn train``, the ``olearn`` console script)."""
import gzip
import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import olearn
from olearn import AROW, PA, Perceptron
from olearn.cli import chunks, main

ROOT = Path(__file__).resolve().parents[1]


def stream(n=3000, d=40, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.2, random_state=seed, format="csr")
    y = np.where(X @ rng.standard_normal(d) > 0, 1, -1)
    y[rng.random(n) < 0.05] *= -1
    return X, y


@pytest.fixture
def svm_file(tmp_path):
    X, y = stream()
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def run(argv):
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def test_one_pass_equals_fit(svm_file):
    """Chunked partial_fit (sizes 1024, 2048, ...) is the same online pass as fit."""
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(str(svm_file))
    ref = AROW(r=0.5, covariance="diag").fit(X, y)
    code, text = run(["train", svm_file, "--learner", "AROW", "--param", "r=0.5",
                      "--param", "covariance=diag"])
    assert code == 0
    summary = f"{X.shape[0]:,} rounds, {ref.n_mistakes_:,} mistakes"
    assert summary in text and f"{ref.n_updates_:,} updates" in text
    # progress lines after each chunk: rows seen 1,024 then 3,072 (sizes double)
    assert "1,024" in text and "3,000" in text


@pytest.mark.parametrize("kind", ["csr_matrix", "csr_array", "dense"])
def test_row_block_is_a_view_equal_to_the_slice(kind):
    """The chunks the command line learns from share the file's arrays (no
    copy, the int64 indices kept) and equal scipy's row slices."""
    from olearn.cli import row_block
    rng = np.random.default_rng(0)
    dense = rng.standard_normal((300, 20)) * (rng.random((300, 20)) < 0.2)
    dense[7] = 0.0    # an empty row
    if kind == "dense":
        X = dense
    else:
        X = getattr(sp, kind)(dense)
        X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    for a, b in [(0, 1), (0, 300), (5, 9), (7, 8), (299, 300), (100, 100)]:
        block = row_block(X, a, b)
        assert type(block) is type(X) and block.shape == (b - a, 20)
        if kind == "dense":
            assert b == a or np.shares_memory(block, X)
            continue
        assert block.indices.dtype == np.int64 and block.indptr.dtype == np.int64
        if block.nnz:
            assert np.shares_memory(block.data, X.data)
            assert np.shares_memory(block.indices, X.indices)
        np.testing.assert_array_equal(block.toarray(), dense[a:b])
        assert (block != X[a:b]).nnz == 0


def test_chunks_double_then_stay():
    assert list(chunks(5000, 2048)) == [(0, 1024), (1024, 3072), (3072, 5000)]
    assert list(chunks(10, 4)) == [(0, 4), (4, 8), (8, 10)]


def test_epochs_shuffle_record_model_and_test(svm_file, tmp_path):
    model, record = tmp_path / "m.pkl", tmp_path / "rec.npz"
    argv = ["train", svm_file, "--learner", "PA", "--param", "variant=PA-I",
            "--param", "C=0.5", "--n-epochs", "2", "--shuffle", "--random-state", "3",
            "--test", svm_file, "--save-model", model, "--save-record", record]
    code, text = run(argv)
    assert code == 0 and "test " in text and "errors" in text
    est = pickle.loads(model.read_bytes())
    assert isinstance(est, PA) and est.variant == "PA-I" and est.C == 0.5
    rec = np.load(record)
    n = 3000
    assert rec["mistakes"].shape == (2 * n,) and rec["margins"].shape == (2 * n,)
    assert int(rec["n_mistakes"]) == est.n_mistakes_ == rec["mistakes"].sum()
    # every epoch is a permutation of the rows, and they differ
    first, second = rec["rows"][:n], rec["rows"][n:]
    assert sorted(first) == list(range(n)) == sorted(second)
    assert not np.array_equal(first, second)
    # the same seed gives the same run
    model2 = tmp_path / "m2.pkl"
    assert run(argv[:-4] + ["--save-model", model2])[0] == 0
    np.testing.assert_array_equal(pickle.loads(model2.read_bytes()).coef_, est.coef_)
    # and it is the pass over those rows, in that order
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(str(svm_file))
    ref = PA(C=0.5, variant="PA-I")
    ref.partial_fit(X[first], y[first], classes=[-1, 1]).partial_fit(X[second], y[second])
    np.testing.assert_allclose(ref.coef_, est.coef_, rtol=0, atol=1e-12)


def test_csv_with_header(tmp_path):
    X, y = stream(n=500, d=5)
    X = X.toarray()
    path = tmp_path / "data.csv"
    rows = "\n".join(",".join(f"{v:.17g}" for v in [label, *x]) for label, x in zip(y, X))
    path.write_text("label,a,b,c,d,e\n" + rows + "\n")
    code, text = run(["train", path, "--learner", "Perceptron"])
    ref = Perceptron().fit(X, y)
    assert code == 0 and f"500 rounds, {ref.n_mistakes_:,} mistakes" in text


@pytest.mark.parametrize("argv, message", [
    (["train", "missing.svm"], "no such file: missing.svm"),
    (["train", "{svm}", "--learner", "arow"], "unknown learner 'arow' (did you mean AROW?)"),
    (["train", "{svm}", "--learner", "AROW", "--param", "rr=1"],
     "AROW has no parameter 'rr'"),
    (["train", "{svm}", "--learner", "AROW", "--param", "r=-1"],
     "AROW: r must be a finite number > 0, got -1"),
    (["train", "{svm}", "--param", "oops"], "write KEY=VALUE"),
])
def test_clear_errors(argv, message, svm_file, capsys):
    code, _ = run([a.format(svm=svm_file) for a in argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("olearn: error: ") and message in err
    assert "Traceback" not in err


def test_malformed_libsvm_names_the_line(tmp_path, capsys):
    """The compiled reader's error reaches the user as one line with the line number."""
    path = tmp_path / "bad.svm"
    path.write_text("1 1:0.5 2:1\n# a comment\n-1 3:1 2:0.5\n")
    code, _ = run(["train", path])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"{path}, line 3:" in err and "sorted and unique" in err
    truncated = tmp_path / "cut.svm.gz"
    truncated.write_bytes(gzip.compress(b"1 1:0.5\n" * 100)[:-12])
    code, _ = run(["train", truncated])
    err = capsys.readouterr().err
    assert code == 2 and "cannot decompress" in err and "Traceback" not in err


def test_every_learner_of_all_is_offered():
    from olearn.cli import learner_names
    names = learner_names()
    for name in ("Perceptron", "PA", "AROW", "CW", "SOP", "Averaged", "BCW", "DUOL"):
        assert name in names
    assert "chi_square" not in names and "__version__" not in names
    assert set(names) <= set(olearn.__all__)


def test_a_named_learner_imports_only_its_family(svm_file):
    """The command line imports the family of the learner it is given, not
    every family to list the names (0.2 s of a 2 s run on w7a); the list is
    built only for an unknown name."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    code = ("import sys\n"
            "from olearn.cli import main\n"
            f"main(['train', {str(svm_file)!r}, '--learner', 'Perceptron', '--quiet'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "(['olearn', 'kernel'], ['olearn', 'second_order'], ['olearn', 'selection'])))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_meta_estimator_param(svm_file):
    code, text = run(["train", svm_file, "--learner", "Averaged", "--param",
                      "learner=PA(C=0.5)", "--quiet"])
    assert code == 0 and "Averaged(learner=PA(C=0.5))" in text


def test_python_m_olearn_subprocess(svm_file):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    done = subprocess.run([sys.executable, "-m", "olearn", "train", str(svm_file),
                           "--learner", "SOP", "--param", "covariance=diag", "--quiet"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "3,000 rounds" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "olearn", "train", "nope.svm"],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "no such file" in bad.stderr


def test_console_script_declared():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["olearn"] == "olearn.cli:main"
