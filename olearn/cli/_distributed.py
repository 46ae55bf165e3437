"""``olearn train shard-*.svm --dask-scheduler ADDRESS`` (or ``--local-workers N``):
iterative parameter mixing across a Dask cluster, one shard per file, each file read
by a worker (:class:`olearn.distributed.IterativeParameterMixing`).  ``--n-epochs`` is
the number of mixing epochs; the learner keeps ``n_epochs=1``.  The options that need
the rows on this machine (``--shuffle``, ``--stream``, ``--save-record``, ``--test``
read here) are refused or say so."""
import time

from ._learners import UsageError, make_learner, parse_params


def wanted(args):
    return bool(args.dask_scheduler or args.local_workers or args.shards)


def train_distributed(args, out):
    from olearn.distributed import (IterativeParameterMixing, SchedulerUnreachableError,
                                    get_client)
    from ._train import save
    files = [args.file, *args.shards]
    for option, value in (("--shuffle", args.shuffle), ("--stream", args.stream),
                          ("--save-record", args.save_record)):
        if value:
            raise UsageError(f"{option} is not available with shards on a Dask "
                             "cluster: permute the rows before splitting them into "
                             f"shard files, or train one file without --dask-scheduler "
                             f"and --local-workers")
    if args.dask_scheduler and args.local_workers:
        raise UsageError("give --dask-scheduler or --local-workers, not both")
    learner = make_learner(args.learner, parse_params(args.param))
    try:
        est = IterativeParameterMixing(
            learner, n_epochs=args.n_epochs, mixing=args.mixing,
            scheduler=args.dask_scheduler, n_workers=args.local_workers,
            file_format=args.format, n_features=args.n_features,
            zero_based={"auto": "auto", "true": True, "false": False}[args.zero_based],
            progress=None if args.quiet else (lambda line: print(line, file=out,
                                                                 flush=True)))
        est._template()   # an unmixable learner: refused before connecting
        start = time.perf_counter()
        client = get_client(None, args.dask_scheduler, args.local_workers)
        print(f"IterativeParameterMixing({learner!r}, mixing={args.mixing!r}) on "
              f"{len(files)} shards, {len(client.scheduler_info()['workers'])} workers "
              f"at {client.scheduler.address}", file=out, flush=True)
        est.set_params(client=client)
        est.fit([str(f) for f in files])
    except SchedulerUnreachableError as err:
        raise UsageError(str(err).replace("pass client=None and scheduler=None",
                                          "use --local-workers N")) from None
    except (ValueError, TypeError) as err:
        raise UsageError(f"{args.learner}: {err}") from None
    total = time.perf_counter() - start
    rounds, mistakes = est.learner_.n_rounds_, int(est.n_mistakes_.sum())
    print(f"{rounds:,} rounds, {mistakes:,} mistakes ({mistakes / max(rounds, 1):.2%}); "
          f"epochs: compute {est.epoch_seconds_[:, 1].sum():.3f} s, communication "
          f"{est.epoch_seconds_[:, 2].sum():.3f} s; total {total:.3f} s", file=out,
          flush=True)
    est.set_params(client=None, progress=False)   # neither is pickled
    if args.save_model:
        from ._model import save_model
        # the mixed learner (an olearn estimator holding the final mix): the same safe file
        # format as train's, which `olearn predict` reads
        save(args.save_model, "--save-model", lambda f: save_model(f, est.learner_))
        print(f"model (the mixed {type(est.learner_).__name__}) saved to {args.save_model}",
              file=out)
    if args.test:
        from ._data import InputFile
        test = InputFile(args.test, args.format, "test file")
        X, y = _read_test(test, est)
        error = float((est.predict(X) != y).mean())
        print(f"test: {X.shape[0]:,} rows, error {error:.2%}", file=out)
    return est


def _read_test(test, est):
    if test.format == "libsvm":
        from olearn.datasets import read_libsvm
        zb = est.zero_based
        return read_libsvm(test.path, n_features=est.n_features_in_,
                           zero_based=zb if zb != "auto" else False)
    import numpy as np
    data = np.loadtxt(test.path, delimiter=",", ndmin=2)
    return data[:, 1:], data[:, 0]
