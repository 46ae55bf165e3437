"""The command line (``python -m olearn train``, the ``olearn`` console script)."""
import gzip
import io
import os
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
from olearn.cli._model import load_model

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
    est = load_model(model)[0]
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
    np.testing.assert_array_equal(load_model(model2)[0].coef_, est.coef_)
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
    assert run(["train", path, "--n-features", "5", "--quiet"])[0] == 0
    code, text = run(["train", path, "--n-features", "8"])   # would not widen a CSV
    assert code == 2 and text == ""


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


# --- issue 26: one convention, outputs kept whole, one clear error, a newcomer's run ---
def lines_of(text):
    return [line for line in text.splitlines() if line.strip()]


def error_line(capsys):
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(lines_of(err)) == 1 and err.startswith("olearn: error: "), err
    return err


def write_svm(path, X, y, zero_based):
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return path


def test_train_and_test_files_read_in_one_convention(tmp_path):
    """Item 2: a zero-based training file (index 0 used) and a zero-based test
    file in which feature 0 never occurs: read alone, "auto" would shift the
    test file's columns by one; read together (load_svmlight_files' rule) they
    line up, and the errors are the model's on the aligned test rows."""
    from sklearn.datasets import load_svmlight_files
    X, y = stream(n=2000, d=12, seed=3)
    X = X.tolil()
    X[:, 0] = 1.0                        # feature 0 in every training row
    X = X.tocsr()
    Xt, yt = stream(n=800, d=12, seed=3)
    Xt = Xt.tolil()
    Xt[:, 0] = 0.0                       # never in the test file
    Xt = Xt.tocsr()
    Xt.eliminate_zeros()
    train = write_svm(tmp_path / "train.svm", X, y, zero_based=True)
    test = write_svm(tmp_path / "test.svm", Xt, yt, zero_based=True)
    Xr, yr, Xtr, ytr = load_svmlight_files([str(train), str(test)])
    ref = Perceptron().fit(Xr, yr)
    wrong = int(np.sum(ref.predict(Xtr) != ytr))
    code, text = run(["train", train, "--test", test, "--quiet"])
    assert code == 0
    assert f"test {test}: 800 rows, {wrong:,} errors" in text
    # the shifted reading (each file alone) gives other errors: the test can tell
    alone = Perceptron().fit(*load_svmlight_files([str(train)]))
    from sklearn.datasets import load_svmlight_file
    Xs, ys = load_svmlight_file(str(test), n_features=Xr.shape[1])
    assert int(np.sum(alone.predict(Xs) != ys)) != wrong


def test_zero_based_option(tmp_path, capsys):
    X, y = stream(n=300, d=6)
    one = write_svm(tmp_path / "one.svm", X, y, zero_based=False)
    code, text = run(["train", one, "--zero-based", "true", "--quiet"])
    assert code == 0 and "300 rows x 7 features" in text     # column 0 left empty
    code, text = run(["train", one, "--zero-based", "false", "--quiet"])
    assert code == 0 and "300 rows x 6 features" in text
    zero = write_svm(tmp_path / "zero.svm", X, y, zero_based=True)
    if sp.csr_matrix(X)[:, 0].nnz:
        code, _ = run(["train", zero, "--zero-based", "false"])
        err = error_line(capsys)
        assert code == 2 and "index 0" in err and "--zero-based true or auto" in err
    code, _ = run(["train", one, "--zero-based", "maybe"])
    assert code == 2 and "--zero-based" in error_line(capsys)


def _fail_midway(monkeypatch, exception):
    """save_model writes part of the model, then the process is stopped."""
    def dump(f, est, reading=None):
        f.write(b"PK partial model")
        raise exception
    monkeypatch.setattr("olearn.cli._train.save_model", dump)


@pytest.mark.parametrize("exception", [SystemExit(143), KeyboardInterrupt(),
                                       OSError(28, "No space left on device")])
def test_interrupted_save_keeps_the_previous_model(svm_file, tmp_path, monkeypatch,
                                                   exception):
    """Item 7: the model is written to a temporary file and renamed: a stop
    while writing leaves the previous model whole, and no temporary file."""
    model = tmp_path / "model.pkl"
    model.write_bytes(b"the previous model")
    _fail_midway(monkeypatch, exception)
    argv = ["train", str(svm_file), "--quiet", "--save-model", str(model)]
    if isinstance(exception, SystemExit):   # what SIGTERM raises in main
        with pytest.raises(SystemExit):
            main(argv, out=io.StringIO())
    else:
        assert main(argv, out=io.StringIO()) == (130 if isinstance(
            exception, KeyboardInterrupt) else 2)
    assert model.read_bytes() == b"the previous model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pkl", "train.svm"]


def test_sigterm_while_saving_keeps_the_previous_model(svm_file, tmp_path):
    """Item 7, with a real SIGTERM in the middle of writing the model."""
    model = tmp_path / "model.pkl"
    model.write_bytes(b"the previous model")
    code = ("import os, signal, sys\n"
            "import olearn.cli._train as t\n"
            "real = t.save_model\n"
            "def dump(f, est, reading=None):\n"
            "    f.write(b'half a model')\n"
            "    f.flush()\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    real(f, est, reading)\n"
            "t.save_model = dump\n"
            "from olearn.cli import main\n"
            f"sys.exit(main(['train', {str(svm_file)!r}, '--quiet', "
            f"'--save-model', {str(model)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env())
    assert done.returncode == 128 + 15, done.stderr
    assert model.read_bytes() == b"the previous model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pkl", "train.svm"]


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))


@pytest.mark.parametrize("option", ["--save-model", "--save-record"])
def test_output_naming_an_input_is_refused(svm_file, tmp_path, capsys, option):
    """Item 7: an output path that is the training or test file, or the other
    output, is refused before anything is read or written."""
    before = svm_file.read_bytes()
    code, text = run(["train", svm_file, option, svm_file])
    assert code == 2 and "input file" in error_line(capsys) and text == ""
    assert svm_file.read_bytes() == before
    test = tmp_path / "test.svm"
    test.write_bytes(before)
    link = tmp_path / "alias.svm"
    link.symlink_to(test)
    code, _ = run(["train", svm_file, "--test", test, option, link])
    assert code == 2 and "input file" in error_line(capsys)
    assert test.read_bytes() == before
    same = tmp_path / "out.bin"
    code, _ = run(["train", svm_file, "--save-model", same, "--save-record", same])
    assert code == 2 and "same file" in error_line(capsys) and not same.exists()


@pytest.mark.parametrize("option", ["--save-model", "--save-record"])
def test_unwritable_output_refused_before_learning(svm_file, tmp_path, capsys, option):
    """Item 11: a missing folder or a folder as the path: one line, exit 2,
    before the file is read (no progress, no summary)."""
    for path, message in [(tmp_path / "missing" / "m.pkl", "does not exist"),
                          (tmp_path, "is a folder")]:
        code, text = run(["train", svm_file, option, path])
        assert code == 2 and message in error_line(capsys)
        assert text == ""


def test_record_saved_at_the_given_path(svm_file, tmp_path):
    """Item 11: --save-record rec.out writes rec.out (numpy's savez would
    have written rec.out.npz while the message said rec.out)."""
    record = tmp_path / "rec.out"
    code, text = run(["train", svm_file, "--quiet", "--save-record", record])
    assert code == 0 and f"record saved to {record}" in text
    assert record.is_file() and not (tmp_path / "rec.out.npz").exists()
    assert np.load(record)["mistakes"].shape == (3000,)


def test_nan_in_the_test_file(svm_file, tmp_path, capsys):
    """Item 11: a NaN in the test file is one line naming the row, before learning."""
    test = tmp_path / "test.svm"
    test.write_text("1 1:0.5\n-1 2:nan\n")
    code, text = run(["train", svm_file, "--test", test])
    err = error_line(capsys)
    assert code == 2 and f"{test}: row 2" in err and "NaN" in err
    assert "rounds" not in text
    test.write_text("1 1:0.5\nnan 2:1\n")
    code, _ = run(["train", svm_file, "--test", test])
    assert code == 2 and "row 2 has label" in error_line(capsys)


def test_full_covariance_on_a_wide_file(tmp_path, capsys):
    """Item 11: AROW's default full covariance on 3 million features (72 TB)
    is refused before learning, naming --param covariance=diag."""
    path = tmp_path / "wide.svm"
    path.write_text("1 1:1 3000000:1\n-1 2:1\n")
    code, text = run(["train", path, "--learner", "AROW"])
    err = error_line(capsys)
    assert code == 2 and "--param covariance=diag" in err and "rounds" not in text


def test_full_covariance_out_of_memory_names_the_fix(svm_file, monkeypatch, capsys):
    """A MemoryError while learning (the estimate passed) still names the fix."""
    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 4.00 GiB")
    monkeypatch.setattr(AROW, "partial_fit", no_memory)
    code, _ = run(["train", svm_file, "--learner", "AROW"])
    err = error_line(capsys)
    assert code == 2 and "out of memory" in err and "covariance=diag" in err


def test_random_state_checked_as_an_option(svm_file, capsys):
    """Item 11: --random-state -1 is the option's error (not the learner's),
    and --random-state without --shuffle (which it would not affect) is refused."""
    code, _ = run(["train", svm_file, "--shuffle", "--random-state", "-1"])
    err = error_line(capsys)
    assert code == 2 and "--random-state" in err and "Perceptron" not in err
    code, _ = run(["train", svm_file, "--random-state", "3"])
    err = error_line(capsys)
    assert code == 2 and "--shuffle" in err
    code, _ = run(["train", svm_file, "--shuffle", "--random-state", "3", "--quiet"])
    assert code == 0


def test_test_labels_outside_the_training_labels(svm_file, tmp_path, capsys):
    """Item 11: a test file labelled 0/1 against a -1/+1 training file is
    refused before learning (every 0 would have counted as an error)."""
    test = tmp_path / "test.svm"
    test.write_text("1 1:0.5\n0 2:1\n")
    code, text = run(["train", svm_file, "--test", test])
    err = error_line(capsys)
    assert code == 2 and "labels 0 are not among the training labels" in err
    assert "rounds" not in text


def test_libsvm_file_named_txt(svm_file, tmp_path):
    """Item 15: a LIBSVM file named .txt is read as LIBSVM (told from its first
    line), not as a CSV whose first line is a header."""
    txt = tmp_path / "data.txt"
    txt.write_bytes(svm_file.read_bytes())
    code, text = run(["train", txt, "--quiet"])
    _, ref = run(["train", svm_file, "--quiet"])
    assert code == 0 and "(LIBSVM): 3,000 rows x 40 features" in text
    assert text.splitlines()[-1].split(", learned")[0] == ref.splitlines()[-1].split(
        ", learned")[0]


def test_csv_error_names_format_libsvm(svm_file, tmp_path, capsys):
    path = tmp_path / "data.csv"
    path.write_bytes(svm_file.read_bytes())
    code, _ = run(["train", path, "--format", "csv"])
    err = error_line(capsys)
    assert code == 2 and "--format libsvm" in err


def test_wider_test_file_refused_before_learning(svm_file, tmp_path, capsys):
    """Item 15: a test file with a larger index fails before learning (nothing
    learned, nothing lost), naming --n-features; with it the run succeeds."""
    test = tmp_path / "test.svm"
    test.write_text("1 1:0.5 45:1\n-1 2:1\n")
    model = tmp_path / "m.pkl"
    code, text = run(["train", svm_file, "--test", test, "--save-model", model])
    err = error_line(capsys)
    assert code == 2 and "--n-features 45" in err and "rounds" not in text
    code, text = run(["train", svm_file, "--test", test, "--n-features", "45",
                      "--save-model", model, "--quiet"])
    assert code == 0 and "test " in text and model.is_file()
    code, _ = run(["train", svm_file, "--n-features", "10"])
    assert code == 2 and "--n-features 40" in error_line(capsys)


def test_bad_parameter_reported_before_reading(tmp_path, capsys):
    """Item 15: a bad value is reported before the file is read (here a
    malformed file, whose error would otherwise come first)."""
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:0.5\n-1 oops\n")
    code, _ = run(["train", bad, "--learner", "AROW", "--param", "r=-1"])
    err = error_line(capsys)
    assert code == 2 and "r must be" in err and "line 2" not in err
    code, _ = run(["train", bad, "--learner", "Averaged", "--param",
                   "learner=PA(C=-1)"])
    err = error_line(capsys)
    assert code == 2 and "C" in err and "line 2" not in err


def test_learning_seconds_exclude_compiling(svm_file):
    """Item 15: the summary says apart learning and preparing the compiled code."""
    code, text = run(["train", svm_file, "--quiet"])
    assert code == 0
    summary = text.splitlines()[-1]
    assert "learned in" in summary and "compiling or loading the compiled code" in summary


def test_quiet_prints_no_progress_row(svm_file):
    """Item 15: --quiet prints the header line and the summary, no progress row."""
    code, text = run(["train", svm_file, "--quiet"])
    lines = lines_of(text)
    assert code == 0 and len(lines) == 2, lines
    assert lines[0].startswith("Perceptron(") and "rounds" in lines[1]


def test_saved_model_keeps_the_record_only_when_asked(svm_file, tmp_path):
    """Item 15: the saved model keeps the counts, not the per-round record
    (9 bytes a round), unless --save-record asks for it; --help says so."""
    small, full = tmp_path / "small.pkl", tmp_path / "full.pkl"
    assert run(["train", svm_file, "--learner", "AROW", "--quiet",
                "--save-model", small])[0] == 0
    est = load_model(small)[0]
    assert est.record == "counts" and est.n_rounds_ == 3000
    with pytest.raises(AttributeError, match="record='counts'"):
        est.mistakes_
    assert run(["train", svm_file, "--learner", "AROW", "--quiet", "--save-model", full,
                "--save-record", tmp_path / "r.npz"])[0] == 0
    assert load_model(full)[0].mistakes_.shape == (3000,)
    assert small.stat().st_size < full.stat().st_size
    from olearn.cli import build_parser
    help_text = build_parser()._subparsers._group_actions[0].choices["train"].format_help()
    assert "per-round record" in " ".join(help_text.split())


def test_batch_learner_refuses_options_it_cannot_take():
    """A learner without partial_fit and without an n_epochs parameter is not
    silently given one epoch when --n-epochs 2 is asked (the old command line
    dropped the option)."""
    from olearn.cli import UsageError
    from olearn.cli._train import batch_params

    class BatchOnly:
        def get_params(self, deep=True):
            return {"C": 1.0}

    args = argparse_namespace(n_epochs=2, shuffle=False, random_state=None,
                              learner="BatchOnly")
    with pytest.raises(UsageError, match="--n-epochs"):
        batch_params(BatchOnly(), args)


def argparse_namespace(**kwargs):
    import argparse
    return argparse.Namespace(**kwargs)


# --- issue 30 item 3: streaming, identical to learning the file in memory -----------
@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of 200 bytes / 7 CSV lines: the files below span many blocks."""
    monkeypatch.setattr("olearn.cli._data.BLOCK_BYTES", 200)
    monkeypatch.setattr("olearn.cli._data.BLOCK_ROWS", 7)


@pytest.mark.parametrize("learner, params", [
    ("Perceptron", []), ("AROW", ["covariance='diag'"]), ("PA", ["variant='PA-I'"])])
@pytest.mark.parametrize("n_epochs", [1, 3])
def test_streamed_pass_equals_fit_in_memory(svm_file, tmp_path, tiny_blocks, learner,
                                            params, n_epochs):
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(str(svm_file))
    ref = getattr(olearn, learner)(**{k: eval(v) for k, v in
                                      (p.split("=") for p in params)})
    for _ in range(n_epochs):
        ref.partial_fit(X, y, classes=[-1, 1])
    for mode in ([], ["--in-memory"]):       # read in blocks; read once and kept
        model = tmp_path / "m.pkl"
        argv = ["train", svm_file, "--learner", learner, "--n-epochs", n_epochs,
                "--save-model", model, "--save-record", tmp_path / "r.npz", "--quiet",
                *mode]
        for p in params:
            argv += ["--param", p]
        assert run(argv)[0] == 0
        est = load_model(model)[0]
        for name in ("coef_", "mistakes_", "margins_"):
            if hasattr(ref, name):
                np.testing.assert_array_equal(getattr(est, name), getattr(ref, name))
        assert est.n_updates_ == ref.n_updates_


def test_streamed_csv_equals_fit_in_memory(tmp_path, tiny_blocks):
    X, y = stream(n=500, d=5)
    X = X.toarray()
    path = tmp_path / "data.csv"
    rows = "\n".join(",".join(f"{v:.17g}" for v in [label, *x]) for label, x in zip(y, X))
    path.write_text("label,a,b,c,d,e\n" + rows + "\n")
    model = tmp_path / "m.pkl"
    ref = PA().partial_fit(X, y, classes=[-1, 1]).partial_fit(X, y)
    for mode in ([], ["--in-memory"]):
        assert run(["train", path, "--learner", "PA", "--n-epochs", "2",
                    "--save-model", model, "--quiet", *mode])[0] == 0
        np.testing.assert_array_equal(load_model(model)[0].coef_, ref.coef_)


def test_file_streamed_unless_in_memory(svm_file, monkeypatch):
    """By default a file is streamed: surveyed once (rows, labels, index
    range; its values not parsed), then parsed in blocks once per epoch;
    --in-memory parses it once, whole, and keeps it (unless it does not fit
    in half the memory left: then it is streamed)."""
    from olearn.datasets import libsvm
    whole, streams, surveys = [], [], []
    real_whole, real_blocks = libsvm.parse_block, libsvm.libsvm_blocks
    real_survey = libsvm.libsvm_survey
    monkeypatch.setattr(libsvm, "parse_block",
                        lambda *a, **k: whole.append(1) or real_whole(*a, **k))
    monkeypatch.setattr(libsvm, "libsvm_blocks",
                        lambda *a, **k: streams.append(1) or real_blocks(*a, **k))
    monkeypatch.setattr(libsvm, "libsvm_survey",
                        lambda *a, **k: surveys.append(1) or real_survey(*a, **k))
    for mode, n_whole, n_streams, n_surveys in [([], 0, 2, 1), (["--stream"], 0, 2, 1),
                                                (["--in-memory"], 1, 0, 0)]:
        whole.clear()
        streams.clear()
        surveys.clear()
        assert run(["train", svm_file, "--n-epochs", "2", "--quiet", *mode])[0] == 0
        assert (len(whole), len(streams), len(surveys)) == (n_whole, n_streams,
                                                            n_surveys), mode
    whole.clear()
    surveys.clear()
    monkeypatch.setattr("olearn.cli._train.memory_left", lambda: 10_000)
    assert run(["train", svm_file, "--n-epochs", "2", "--quiet", "--in-memory"])[0] == 0
    assert (len(whole), len(streams), len(surveys)) == (0, 2, 1)


def test_in_memory_and_stream_refused_together(svm_file, capsys):
    code, _ = run(["train", svm_file, "--stream", "--in-memory"])
    assert code == 2 and "choose one" in error_line(capsys)


def test_stream_and_shuffle_refused_together(svm_file, capsys):
    code, _ = run(["train", svm_file, "--stream", "--shuffle"])
    assert code == 2 and "choose one" in error_line(capsys)


def test_streamed_errors_name_the_file_line(tmp_path, tiny_blocks, capsys):
    """An error in a late block names the line in the whole file."""
    lines = [f"{1 if k % 2 else -1} 1:0.5 2:{k}" for k in range(60)]
    lines[47] = "1 2:0.5 1:1"
    path = tmp_path / "late.svm"
    path.write_text("\n".join(lines) + "\n")
    for mode in ([], ["--in-memory"]):
        code, text = run(["train", path, *mode])
        assert code == 2 and f"{path}, line 48:" in error_line(capsys)
        assert "rounds" not in text


@pytest.mark.parametrize("bad, message", [
    ("1 1:0.5 2:abc", "line 48: value 'abc' is not a number"),
    ("1 1:0.5 2:nan", "row 48 has a feature value that is NaN"),
    ("1 1:0.5 3:1e999", "row 48 has a feature value that is NaN"),
    ("1 1:0.5 5:2 3:1", "line 48: feature '3:1' does not come after"),
])
def test_error_deep_in_a_streamed_file_writes_nothing(tmp_path, tiny_blocks, capsys, bad,
                                                      message):
    """A line the survey passes but the values refuse, late in a streamed file:
    found by the learning pass, one line naming the file's line or row, exit
    2, and neither the model nor the record written (the previous files kept)."""
    lines = [f"{1 if k % 2 else -1} 1:0.5 2:{k}" for k in range(60)]
    lines[47] = bad
    path = tmp_path / "late.svm"
    path.write_text("\n".join(lines) + "\n")
    model, record = tmp_path / "m.npz", tmp_path / "r.npz"
    model.write_bytes(b"previous model")
    for mode in ([], ["--in-memory"]):
        code, text = run(["train", path, "--save-model", model, "--save-record", record,
                          *mode])
        err = error_line(capsys)
        assert code == 2 and str(path) in err and message in err, err
        assert "rounds" not in text and "saved" not in text
        assert model.read_bytes() == b"previous model" and not record.exists()


def test_shuffle_reads_the_file_whole_and_memory_error_is_one_line(svm_file, monkeypatch,
                                                                   capsys):
    def no_memory(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr("olearn.cli._data.InputFile.read_all", no_memory)
    code, _ = run(["train", svm_file, "--shuffle"])
    err = error_line(capsys)
    assert code == 2 and "out of memory" in err and "leave it out to stream" in err


def test_compile_subcommand(capsys):
    out = io.StringIO()
    assert main(["compile", "--learner", "Perceptron"], out=out) == 0
    text = out.getvalue()
    assert "LIBSVM reader" in text and "Perceptron" in text
    # SBCW's covariance is a bool: only a learner whose default is "full" is
    # also compiled with covariance="diag"
    assert main(["compile", "--learner", "SBCW", "--learner", "SOP"], out=out) == 0
    assert "failed" not in out.getvalue()
    assert main(["compile", "--learner", "Nope"], out=out) == 2
    assert "unknown learner 'Nope'" in error_line(capsys)


def test_scipy_stats_and_pandas_not_imported_by_train(svm_file):
    """Issue 30 item 2: scikit-learn's start-up imports of scipy.stats, pandas
    and narwhals (about 0.5 s of a 1.4 s run) are deferred; a run that needs
    none of them never loads them, and scikit-learn's references to them
    reach the real modules once they are imported."""
    code = ("import sys\n"
            "from olearn.cli import main\n"
            f"main(['train', {str(svm_file)!r}, '--learner', 'AROW', '--param', "
            "'covariance=\"diag\"', '--quiet'])\n"
            "print(sorted(m for m in ('scipy.stats', 'pandas', 'narwhals') "
            "if m in sys.modules))\n"
            "import pandas, scipy.stats, narwhals.stable.v2 as nw\n"
            "from sklearn.utils import fixes, validation\n"
            "print(type(pandas.DataFrame).__name__, scipy.stats.norm.cdf(0.0),\n"
            "      fixes.pd.DataFrame is pandas.DataFrame, validation.nw.from_native is "
            "nw.from_native, type(sys.modules['pandas']).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-2:] == ["[]", "type 0.5 True True module"]


def test_shuffle_of_a_file_too_large_refused_before_learning(svm_file, monkeypatch,
                                                              capsys):
    """--shuffle holds the file in memory: with less memory than the checking
    pass estimates it needs, refused before learning, naming the way out."""
    monkeypatch.setattr("olearn.cli._train.memory_left", lambda: 1000)
    code, text = run(["train", svm_file, "--shuffle"])   # too large to keep, to shuffle
    err = error_line(capsys)
    assert code == 2 and "GiB available" in err and "leave it out to stream" in err
    assert "rounds" not in text
    code, text = run(["train", svm_file, "--quiet"])    # streamed: not refused
    assert code == 0 and "3,000 rounds" in text


def test_memory_left_sees_an_address_space_limit():
    code = ("import resource\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2**32, resource.RLIM_INFINITY))\n"
            "from olearn.cli._train import memory_left\n"
            "print(memory_left() < 2**32)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize("text, message", [
    ("# only a comment\n\n", "no rows of data"),
    ("label,a,b\n1,0.5,nan\n-1,1,2\n", "row 1 has a feature value that is NaN"),
    ("1,0.5,1\n-1,1\n", "cannot read it as CSV"),
])
def test_csv_and_empty_files_one_line(tmp_path, capsys, text, message):
    path = tmp_path / "data.csv"
    path.write_text(text)
    code, out_text = run(["train", path])
    assert code == 2 and message in error_line(capsys) and out_text == ""


# --- issue 36 item 3: an output path that is a symbolic link ------------------------
@pytest.mark.parametrize("option", ["--save-model", "--save-record"])
def test_an_output_link_writes_the_file_it_points_to(svm_file, tmp_path, option):
    """The check followed the link and the write did not: the link was replaced
    by a regular file and the file it pointed to kept the old model."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "out.bin"
    target.write_bytes(b"the previous file")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    assert run(["train", svm_file, "--quiet", option, link])[0] == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    written = target.read_bytes()
    assert written != b"the previous file"
    if option == "--save-model":
        from olearn.cli._model import load_model
        assert hasattr(load_model(str(target))[0], "coef_")
    else:
        assert "mistakes" in np.load(target)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["out.bin"]   # no temporary left


def test_an_output_link_to_an_input_is_refused(svm_file, tmp_path, capsys):
    link = tmp_path / "model.pkl"
    link.symlink_to(svm_file)
    before = svm_file.read_bytes()
    assert run(["train", svm_file, "--quiet", "--save-model", link])[0] == 2
    assert "is an input file" in capsys.readouterr().err
    assert svm_file.read_bytes() == before and link.is_symlink()


def test_help_says_links_are_followed(capsys):
    try:
        _, text = run(["train", "--help"])
    except SystemExit:
        text = ""
    text += capsys.readouterr().out
    assert " ".join(text.split()).count("symbolic link is followed") == 2


# --- issue 36 item 4: a bzip2ed CSV; a comment line before a CSV header -------------
@pytest.mark.parametrize("kind", ["bz2", "gz", "comment before the header",
                                  "comments and blank lines, bz2"])
@pytest.mark.parametrize("mode", [["--stream"], []])
def test_csv_variants_learn_as_the_plain_file(tmp_path, kind, mode):
    """A .csv.bz2 was read as raw bytes ("'utf-8' codec can't decode byte"); a
    ``#`` line before the header made the header be read as data."""
    import bz2

    X, y = stream(n=300, d=5)
    X = X.toarray()
    rows = "".join(",".join(f"{v:.17g}" for v in [label, *x]) + "\n"
                   for label, x in zip(y, X))
    text = "label,a,b,c,d,e\n" + rows
    if "comment" in kind:
        text = "# exported by a spreadsheet\n" + text
    if "blank" in kind:
        text = "\n  # two comment lines\n\n" + text
    if "bz2" in kind:
        path = tmp_path / "data.csv.bz2"
        path.write_bytes(bz2.compress(text.encode()))
    elif kind == "gz":
        path = tmp_path / "data.csv.gz"
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path = tmp_path / "data.csv"
        path.write_text(text)
    model = tmp_path / "m.pkl"
    code, out = run(["train", path, "--learner", "PA", "--save-model", model, "--quiet",
                     *mode])
    assert code == 0, out
    ref = PA().partial_fit(X, y, classes=[-1, 1])
    from olearn.cli._model import load_model
    np.testing.assert_array_equal(load_model(str(model))[0].coef_, ref.coef_)


# --- issue 36 item 2: a signal while compiled code runs -----------------------------
def _interrupted_in_compiled_code(signal_exception):
    """What CPython raises when a signal handler's exception is set while a
    numba-compiled function returns (the battery's SIGINT during ``_parse``)."""
    def call(*args, **kwargs):
        try:
            raise signal_exception
        except BaseException as exc:
            raise SystemError("CPUDispatcher(<function _parse>) returned a result "
                              "with an exception set") from exc
    return call


@pytest.mark.parametrize("where", ["reader", "pass"])
@pytest.mark.parametrize("stream_mode", [["--stream"], []])
def test_sigint_in_compiled_code_ends_cleanly(svm_file, tmp_path, monkeypatch, capsys,
                                              where, stream_mode):
    model = tmp_path / "m.pkl"
    model.write_bytes(b"the previous model")
    if where == "reader":       # the reading before learning: a survey, or a full parse
        for method in ("scan", "survey"):
            monkeypatch.setattr(f"olearn.cli._data.InputFile.{method}",
                                _interrupted_in_compiled_code(KeyboardInterrupt()))
    else:
        monkeypatch.setattr(Perceptron, "partial_fit",
                            _interrupted_in_compiled_code(KeyboardInterrupt()))
    code, _ = run(["train", svm_file, "--quiet", "--save-model", model, *stream_mode])
    err = capsys.readouterr().err
    assert code == 130 and err.strip().endswith("olearn: interrupted"), err
    assert "Traceback" not in err and "SystemError" not in err
    assert model.read_bytes() == b"the previous model"


def test_sigterm_in_compiled_code_exits_with_its_status(svm_file, monkeypatch, capsys):
    import signal
    monkeypatch.setattr(Perceptron, "partial_fit", _interrupted_in_compiled_code(
        SystemExit(128 + signal.SIGTERM)))
    with pytest.raises(SystemExit) as stopped:
        run(["train", svm_file, "--quiet"])
    assert stopped.value.code == 128 + signal.SIGTERM
    assert "olearn: interrupted" in capsys.readouterr().err


def test_sigint_in_a_real_compiled_parse_ends_cleanly(tmp_path):
    """A real SIGINT sent to ``olearn train --stream`` while it reads a large file."""
    import signal
    import time
    path = tmp_path / "big.svm"
    rng = np.random.default_rng(0)
    line = " ".join(f"{j}:{v:.6f}" for j, v in zip(range(1, 201), rng.random(200)))
    pair = f"-1 {line}\n1 {line}\n".encode()
    # about 220 MB, written in blocks: the second read (the learning pass's) takes
    # long enough on any host for the signal sent a few ms into it to arrive first
    with open(path, "wb") as f:
        for _ in range(16):
            f.write(pair * 2_800)
    env = {**os.environ, "PYTHONPATH": str(Path(olearn.__file__).parent.parent)}
    # SIGINT back to its default in the child: a test run started as a background job of
    # a non-interactive shell (`make test &`) ignores SIGINT, a child inherits an ignored
    # signal across exec, and Python then installs no handler, so the run went on to the
    # end (this test skipped, then failed, on this session's background runs)
    proc = subprocess.Popen([sys.executable, "-m", "olearn", "train", str(path),
                             "--stream", "--quiet"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(0.5)
    deadline = time.time() + 120
    # wait until the learning pass's reader parses: the survey reads the file once
    # (no value parsed), then the reader thread reads it again
    size = path.stat().st_size
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/io") as io_stats:
                read = int(next(x for x in io_stats if x.startswith("rchar")).split()[1])
        except OSError:
            break
        if read > size + size // 8:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode != 0, "the run ended before the signal arrived (SIGINT ignored?)"
    assert proc.returncode == 130 and err.strip().endswith("olearn: interrupted"), err
    assert "Traceback" not in err
