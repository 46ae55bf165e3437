"""Experiments: the progressive-validation runner (:mod:`olearn.experiments.runner`)
and one module per paper for its own protocol (:mod:`olearn.experiments.regularized`).

The runner's public names are imported here and listed in ``__all__`` (the API page
documents them as ``olearn.experiments.<name>``, and the two constants ``TABLE_COLUMNS`` and
``CACHE_FORMAT`` under the modules that define them, where their ``#:`` comments are)."""
from .runner import (CACHE_FORMAT, TABLE_COLUMNS, CacheFolderError, Env, Result, TaskCache,
                     checkpoint_rounds,
                     compare_to_stored, corrected_resampled_t, curve_band, data_fingerprint,
                     default_cache_dir,
                     git_commit, git_dirty, load_result, n_permutations, provenance_table,
                     quick_mode,
                     run, run_dataset, save_result, source_digest, summarize,
                     t_interval, task_key, UncacheableError)

__all__ = [
    # running learners over permutations of a stream, and the result
    "run", "run_dataset", "Result", "save_result", "load_result", "compare_to_stored",
    "TABLE_COLUMNS",
    # summaries and noise
    "summarize", "t_interval", "corrected_resampled_t", "curve_band", "checkpoint_rounds",
    # quick mode and the number of permutations
    "quick_mode", "n_permutations",
    # the task cache and provenance
    "TaskCache", "CacheFolderError", "UncacheableError", "CACHE_FORMAT", "default_cache_dir",
    "task_key", "source_digest", "data_fingerprint", "Env", "git_commit", "git_dirty",
    "provenance_table",
]
