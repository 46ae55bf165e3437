"""Run the experiments on a Dask cluster, given the scheduler's address.

Every experiment runs its tasks through joblib (:func:`olearn.experiments.run`
and the per-paper modules), so joblib's ``dask`` backend spreads them over a
``dask.distributed`` cluster unchanged.  With the environment variable

    OLEARN_DASK_SCHEDULER=tcp://host:8786

importing :mod:`olearn.experiments` connects a client to that scheduler and
makes the ``dask`` backend joblib's default in the importing thread, so a
notebook or script runs its experiments on the cluster without a code change
(``make results DASK_SCHEDULER=tcp://host:8786`` sets it for every page and
script).  With the ``dask`` backend joblib uses every worker whatever
``n_jobs`` says.  The workers need the same olearn (the same commit, installed
or on a shared file system) and the data are sent to them by joblib (large
arrays are scattered once).  The results do not depend on where a task ran:
each task is a pure function of its learner, data and seed
(``tests/test_dask_cluster.py`` checks a cluster run against the serial one).
"""
import os

ENV = "OLEARN_DASK_SCHEDULER"
_clients = {}


def scheduler_address():
    """The address in ``OLEARN_DASK_SCHEDULER``, or None when it is unset or empty."""
    return os.environ.get(ENV, "").strip() or None


def _inside_worker():
    try:
        from distributed import get_worker
        get_worker()
        return True
    except (ImportError, ValueError):
        return False


def use_dask(address=None, timeout="30s"):
    """Send joblib's tasks in this thread to the Dask scheduler at ``address``.

    ``address`` defaults to ``OLEARN_DASK_SCHEDULER``; without one nothing
    changes and None is returned, else the (cached) ``distributed.Client``.
    Inside a Dask worker (where the experiment's own tasks run) it does nothing.
    """
    address = address or scheduler_address()
    if address is None or _inside_worker():
        return None
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            f"{ENV}={address} needs dask.distributed: pip install "
            "'dask[distributed]' (it is in olearn's dev extras)") from None
    from joblib import parallel_config
    client = _clients.get(address)
    if client is None or client.status not in ("running", "connecting"):
        try:
            client = _clients[address] = Client(address, timeout=timeout)
        except OSError as err:
            raise OSError(f"cannot reach the Dask scheduler {address} ({ENV}): "
                          f"{err}. Start it with `dask scheduler` and workers with "
                          f"`dask worker {address}`, or unset {ENV}.") from None
    parallel_config(backend="dask")  # this thread's default from now on
    return client
