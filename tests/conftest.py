"""Shared pytest set-up for olearn's tests."""
import os

os.environ.setdefault("MPLBACKEND", "Agg")

from hypothesis import settings  # noqa: E402

# The first call of a numba function compiles it, so per-example deadlines are meaningless.
settings.register_profile("olearn", deadline=None)
settings.register_profile("ci", settings.get_profile("olearn"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "olearn")


# --- real data sets (olearn.datasets) -------------------------------------------------
import pytest  # noqa: E402
from pathlib import Path  # noqa: E402

_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def data_home() -> Path:
    """The data home for tests on real data: $OLEARN_DATA_HOME, else ../shared/datasets."""
    return Path(os.environ.get("OLEARN_DATA_HOME") or _SHARED_DATA)


@pytest.fixture(scope="session")
def require_data(data_home):
    """``require_data(name)``: skip the test if the files of data set ``name`` are not in
    ``data_home`` -- or fail it in CI (``CI`` set), where every data set must be present."""
    from olearn import datasets

    def check(name):
        missing = [rel for rel in datasets.info(name).files if not (data_home / rel).is_file()]
        if missing:
            message = f"data set {name!r}: {', '.join(missing)} not found in data home {data_home}"
            if _in_ci():
                pytest.fail(message + " (CI needs every data set; set OLEARN_DATA_HOME)")
            pytest.skip(message)

    return check


@pytest.fixture(scope="session")
def real_data(data_home, require_data):
    """``real_data(name, **load_options)`` loads a registered data set from ``data_home``
    without downloading (after ``require_data(name)``)."""
    from olearn import datasets

    def load(name, **options):
        require_data(name)
        return datasets.load(name, data_home=data_home, download=False, **options)

    return load
