"""The Dask client IterativeParameterMixing runs on.

In this order: a ``distributed.Client`` passed in; a scheduler address passed in;
``OLEARN_DASK_SCHEDULER`` (:mod:`olearn.experiments.cluster`, whose cached clients are
shared); the default client of the process (one that :func:`olearn.experiments.cluster.use_dask`
or the user made current); else a ``LocalCluster`` on this machine, loopback only, one
single-threaded worker process per core (or ``n_workers``), started once per process
and kept for later fits.
"""
import os

_local = {}


class SchedulerUnreachableError(OSError):
    """The Dask scheduler at the given address does not answer."""


def _connect(address, timeout):
    from distributed import Client
    from ..experiments import cluster
    client = cluster._clients.get(address)
    if client is not None and client.status in ("running", "connecting"):
        return client
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise SchedulerUnreachableError(
            f"cannot reach the Dask scheduler {address}: {err}. Start it with `dask "
            f"scheduler` and workers with `dask worker {address}`, check the address "
            f"(or {cluster.ENV}), or pass client=None and scheduler=None to train on a "
            f"LocalCluster of this machine.") from None
    cluster._clients[address] = client
    return client


def local_client(n_workers=None):
    """A client of this process's LocalCluster of ``n_workers`` single-threaded worker
    processes (default: one per core), on 127.0.0.1, started on first use."""
    from distributed import Client, LocalCluster
    n = int(n_workers or os.cpu_count() or 1)
    client = _local.get(n)
    if client is None or client.status not in ("running", "connecting"):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = _local[n] = Client(cluster, set_as_default=False)
    return client


def get_client(client=None, scheduler=None, n_workers=None, timeout="5s"):
    """The client to train on (see the module docstring)."""
    try:
        import distributed
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "IterativeParameterMixing needs dask.distributed: pip install "
            "'dask[distributed]' (it is in olearn's dev extras)") from None
    if client is not None:
        if not isinstance(client, distributed.Client):
            raise TypeError(f"client must be a distributed.Client or None, got "
                            f"{type(client).__name__}.")
        if client.status not in ("running", "connecting"):
            raise SchedulerUnreachableError(
                f"the client passed is {client.status}; pass a running "
                f"distributed.Client, or client=None.")
        return client
    from ..experiments import cluster
    address = scheduler or cluster.scheduler_address()
    if address:
        return _connect(address, timeout)
    try:
        return distributed.default_client()
    except ValueError:
        return local_client(n_workers)
