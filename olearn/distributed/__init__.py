"""Online learners trained across a Dask cluster.

:class:`IterativeParameterMixing` (McDonald, Hall and Mann 2010): every worker passes
its shard once from the same model, the models are mixed, the mix starts the next
epoch.  The shards stay on their workers; only models cross the network.  The mixing
rules and the learners that can be mixed are in :mod:`olearn.distributed._mixing`.
"""
from ._cluster import SchedulerUnreachableError, get_client, local_client
from ._mixing import MIXINGS, UnmixableLearnerError, mix, model_of, set_model, weights
from .ipm import IterativeParameterMixing

__all__ = ["IterativeParameterMixing", "MIXINGS", "SchedulerUnreachableError",
           "UnmixableLearnerError", "get_client", "local_client", "mix", "model_of",
           "set_model", "weights"]
