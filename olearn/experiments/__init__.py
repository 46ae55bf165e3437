"""Experiments: the progressive-validation runner (:mod:`olearn.experiments.runner`)
and one module per paper for its own protocol (:mod:`olearn.experiments.regularized`)."""
from .runner import (CACHE_FORMAT, TABLE_COLUMNS, CacheFolderError, Env, Result, TaskCache,
                     checkpoint_rounds,
                     compare_to_stored, corrected_resampled_t, curve_band, data_fingerprint,
                     default_cache_dir,
                     git_commit, git_dirty, load_result, n_permutations, quick_mode,
                     run, run_dataset, save_result, source_digest, summarize,
                     t_interval, task_key, UncacheableError)
