"""Every linear learner, dense and CSR, under numba's bounds checking (issue 7, section 3).

``ALMA().partial_fit(X, y); set_params(p=3); partial_fit(X, y)`` wrote out of
bounds in the compiled loop (heap corruption).  This test runs every linear
learner in a subprocess with ``NUMBA_BOUNDSCHECK=1`` (an out-of-bounds access
then raises ``IndexError`` instead of corrupting memory), on streams with
empty rows, unsorted CSR entries, ``partial_fit`` chunks, several epochs,
averaging and the mid-stream parameter changes the base refuses.  The
subprocess first checks that bounds checking is really on.
"""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent('''
    import numpy as np, scipy.sparse as sp
    from numba import njit

    @njit
    def _probe(a, i):
        return a[i]
    try:
        _probe(np.zeros(2), 5)
        raise SystemExit("bounds checking is off")
    except IndexError:
        pass

    from olearn import (ALMA, NORMA, PA, AggressiveROMMA, Averaged, FeatureSelected,
                        L1ConstrainedPA, L2ConstrainedPA, ObjectiveRegularizedPA,
                        Perceptron, ROMMA)
    from olearn.base import FrozenParameterError

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 7)) * (rng.random((120, 7)) < 0.5)
    X[::9] = 0.0
    y = np.where(X @ rng.standard_normal(7) > 0, 1, -1)
    y[rng.random(120) < 0.1] *= -1
    Xs = sp.csr_matrix(X)
    Xu = Xs.copy()                        # unsorted column indices
    for i in range(Xu.shape[0]):
        a, b = Xu.indptr[i], Xu.indptr[i + 1]
        Xu.indices[a:b] = Xu.indices[a:b][::-1].copy()
        Xu.data[a:b] = Xu.data[a:b][::-1].copy()
    Xu.has_sorted_indices = False

    learners = [Perceptron(), PA(), PA(variant="PA-I"), PA(variant="PA-II"), PA(gamma=0.5),
                ROMMA(), AggressiveROMMA(), ALMA(), ALMA(p=3), ALMA(p=50, alpha=0.5),
                NORMA(), NORMA(schedule="sqrt"), ObjectiveRegularizedPA(),
                ObjectiveRegularizedPA(update_on="round", truncate_sigma=1e-3),
                L2ConstrainedPA(), L2ConstrainedPA(beta=0.3, update_on="round", truncate_sigma=1e-3),
                L1ConstrainedPA(), L1ConstrainedPA(beta=0.5, update_on="round", truncate_sigma=1e-3)]
    learners += [Averaged(e) for e in learners[:8]]
    learners += [FeatureSelected(PA(), k=3, refresh=10), FeatureSelected(PA(), "game", k=3, refresh=10)]
    runs = 0
    for est in learners:
        for data in (X, Xs, Xu):
            est.set_params(**({"n_epochs": 2} if "n_epochs" in est.get_params() else {}))
            est.fit(data, y)
            est.partial_fit(data[:50], y[:50])
            est.partial_fit(data[50:], y[50:])
            est.decision_function(data)
            runs += 1
    for data in (X, Xs):
        est = ALMA().partial_fit(data, y)
        est.set_params(p=3)
        try:
            est.partial_fit(data, y)
            raise SystemExit("ALMA accepted p=3 mid-stream")
        except FrozenParameterError:
            pass
    print("ok", runs)
''')


def test_every_linear_learner_within_bounds(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1",
               NUMBA_CACHE_DIR=str(Path(os.environ.get("NUMBA_CACHE_DIR", tmp_path))
                                   / "boundscheck"))
    root = Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + ([env["PYTHONPATH"]]
                                                       if env.get("PYTHONPATH") else []))
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert done.stdout.split()[-2:] == ["ok", str(28 * 3)]
