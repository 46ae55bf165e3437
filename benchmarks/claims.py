"""The speed headlines, read from the recorded tables ``benchmarks/*.md``.

``headline(bench_dir)`` builds one Markdown table of every headline figure, each
copied from a cell of a table written by the last ``benchmarks/run_all.py`` run
(or, where it says "computed", a ratio of two cells of one table), with the file
it comes from; it goes to ``benchmarks/README.md``.  ``summary(bench_dir)`` folds
that table into one row per comparison (how many rows, the lowest and highest
figure, the CPU), the short table of the top-level README.  ``update_readme``
writes both between their ``<!-- BEGIN benchmarks/claims.py ... -->`` markers;
``tests/test_benchmark_claims.py`` recomputes them and compares.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import host  # noqa: E402

BEGIN = "<!-- BEGIN benchmarks/claims.py: generated from benchmarks/*.md, do not edit -->"
END = "<!-- END benchmarks/claims.py -->"
SHORT_BEGIN = ("<!-- BEGIN benchmarks/claims.py summary: generated from benchmarks/*.md, "
               "do not edit -->")
SHORT_END = "<!-- END benchmarks/claims.py summary -->"
LEADING_NUMBER = re.compile(r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)")
TIE_RULE = "olearn mistakes, SOL's tie rule"
RUN_ID = re.compile(r"Recorded run `([^`]+)`")


def tables(text):
    """Every pipe table of ``text``: a list of rows, each a dict column -> cell."""
    found, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            block.append([c.strip() for c in line.strip().strip("|").split("|")])
            continue
        if len(block) >= 2:
            header = block[0]
            rows = [dict(zip(header, r)) for r in block[1:]
                    if not all(set(c) <= set("-: ") for c in r)]
            found.append(rows)
        block = []
    return found


def table_with(text, column):
    """The first table of ``text`` that has ``column``."""
    for rows in tables(text):
        if rows and column in rows[0]:
            return rows
    return []


def run_ids(bench_dir):
    """``{file name: run id}`` of every stamped ``benchmarks/*.md``."""
    ids = {}
    for md in sorted(Path(bench_dir).glob("*.md")):
        if md.name == "README.md":
            continue
        match = RUN_ID.search(md.read_text())
        ids[md.name] = match.group(1) if match else None
    return ids


def _read(bench_dir, name):
    path = Path(bench_dir) / name
    return path.read_text() if path.is_file() else ""


def headline_rows(bench_dir):
    rows = []  # (file, comparison, learner, data, figure)
    text = _read(bench_dir, "throughput.md")
    for r in table_with(text, "ratio olearn/peer"):
        if r["ratio olearn/peer"] != "n/a":
            rows.append(("throughput.md", "olearn / scikit-learn, `fit` ex/s",
                         r["learner"], r["stream"], r["ratio olearn/peer"]))
    text = _read(bench_dir, "sol_peer.md")
    for r in table_with(text, "olearn fit / SOL pass"):
        rows.append(("sol_peer.md", "olearn `fit` / SOL's learning pass (data preloaded)",
                     r["learner"], r["stream"],
                     f"{r['olearn fit / SOL pass']} (mistakes {r['SOL mistakes']} SOL, "
                     f"{r[TIE_RULE]} olearn)"))
    for r in table_with(text, "olearn / sol_train time"):
        rows.append(("sol_peer.md", "command line end to end: olearn time / sol_train time",
                     r["learner"], r["stream"], r["olearn / sol_train time"]))
    text = _read(bench_dir, "second_order.md")
    for r in table_with(text, "fit ex/s"):
        rows.append(("second_order.md", "`fit` examples/s", r["learner"],
                     "sparse 200k x 50k", r["fit ex/s"]))
    for r in table_with(text, "olearn / BLAS, equal threads"):
        if r["olearn / BLAS, equal threads"]:
            rows.append(("second_order.md", "full AROW / a dsymv+dsyr loop, equal threads",
                         r["implementation"], "dense 600 x 2000",
                         r["olearn / BLAS, equal threads"]))
    text = _read(bench_dir, "winnow.md")
    winnow = table_with(text, "fit examples/s")
    perceptron = [r for r in winnow if r["learner"].startswith("Perceptron")]
    for r in winnow:
        if perceptron and not r["learner"].startswith(("Perceptron", "score pass")):
            ratio = (float(r["fit examples/s"].replace(",", ""))
                     / float(perceptron[0]["fit examples/s"].replace(",", "")))
            rows.append(("winnow.md", "`fit` ex/s / olearn Perceptron's (computed)",
                         r["learner"], "sparse 200k x 50k, non-negative", f"{ratio:.2f}"))
    text = _read(bench_dir, "kernel.md")
    for r in table_with(text, "paper_seconds"):
        if r.get("speedup") not in (None, "", "nan"):
            rows.append(("kernel.md", "the DUOL paper's time / olearn's", r["learner"],
                         "w7a", r["speedup"]))
    text = _read(bench_dir, "sparse_cw.md")
    for r in table_with(text, "bcw_l2_speedup"):
        if r["learner"] not in ("BCW-L2",):
            rows.append(("sparse_cw.md", "time / BCW-L2's time (test error)", r["learner"],
                         "covtype-shaped 450k x 54", f"{r['bcw_l2_speedup']} "
                         f"({r['test_error']})"))
    text = _read(bench_dir, "cli_stream.md")
    for r in table_with(text, "MB/s per core"):
        rows.append(("cli_stream.md", "LIBSVM reader, MB/s per core", r["reader"],
                     "222 MiB, 200k x 50k", r["MB/s per core"]))
    for r in table_with(text, "peak RSS MB"):
        rows.append(("cli_stream.md", "command line, peak resident memory (MB)",
                     r["command"], f"{r['MB']} MB", r["peak RSS MB"]))
        if "fixed cost" in r["command"]:
            rows.append(("cli_stream.md", "command line on w7a, wall seconds (warm)",
                         r["command"], "w7a", r["wall s"]))
    for r in table_with(text, "/ score-only floor"):
        if "floor" not in r["pass"]:
            rows.append(("cli_stream.md", "learning pass / score-only pass (its floor)",
                         r["pass"], "222 MiB file's rows", r["/ score-only floor"]))
    for r in table_with(text, "olearn / sol_train wall"):
        rows.append(("cli_stream.md", "command line end to end, streamed: olearn wall / "
                     "sol_train wall", r["learner"], "sparse 200k x 50k",
                     f"{r['olearn / sol_train wall']} (CPU "
                     f"{r['olearn / sol_train CPU']})"))
    return rows


def cpu(bench_dir, name):
    """The README's CPU cell of file ``name``: from its stamp (``host.short``)."""
    return host.short(host.parse(_read(bench_dir, name)))


def headline(bench_dir):
    """The generated Markdown block: the run id(s), then the headline table."""
    ids = sorted({i for i in run_ids(bench_dir).values() if i})
    lines = [BEGIN,
             f"Recorded run {', '.join(f'`{i}`' for i in ids) or '(none)'} "
             "(`make bench`; stamps with date, commit, machine and load average in each "
             "file). CPU: the model, the CPU numba compiled for and the widest vector "
             "extension, from each file's stamp:", "",
             "| file | comparison | learner | data | figure | CPU |",
             "|---|---|---|---|---|---|"]
    lines += [f"| `benchmarks/{f}` | {c} | {l} | {d} | {v} | {cpu(bench_dir, f)} |"
              for f, c, l, d, v in headline_rows(bench_dir)]
    lines.append(END)
    return "\n".join(lines)


def _figure(cell):
    """The leading number of a figure cell ('1.29 (mistakes ...)' -> 1.29), or None ('stops')."""
    match = LEADING_NUMBER.match(cell)
    return float(match.group(1).replace(",", "")) if match else None


def summary_rows(bench_dir):
    """One row per (file, comparison) of ``headline_rows``: rows, lowest and highest figure."""
    groups = {}
    for f, c, _, _, v in headline_rows(bench_dir):
        groups.setdefault((f, c), []).append(v)
    rows = []
    for (f, c), cells in groups.items():
        numbers = [x for x in map(_figure, cells) if x is not None]
        if not numbers:
            continue
        low, high = min(numbers), max(numbers)
        digits = 0 if high >= 1000 else 2
        span = (f"{low:,.{digits}f}" if low == high
                else f"{low:,.{digits}f} to {high:,.{digits}f}")
        rows.append((f, c, len(cells), span))
    return rows


def summary(bench_dir):
    """The README's short block: one row per comparison, with the run id and the CPU."""
    ids = sorted({i for i in run_ids(bench_dir).values() if i})
    lines = [SHORT_BEGIN,
             f"Recorded run {', '.join(f'`{i}`' for i in ids) or '(none)'}; every row of "
             "[benchmarks/README.md](benchmarks/README.md#headline-figures) folded into one "
             "line per comparison:", "",
             "| comparison | rows | lowest to highest | CPU |", "|---|---|---|---|"]
    lines += [f"| {c} (`benchmarks/{f}`) | {n} | {span} | {cpu(bench_dir, f)} |"
              for f, c, n, span in summary_rows(bench_dir)]
    lines.append(SHORT_END)
    return "\n".join(lines)


def _replace_block(path, begin, end, block):
    text = Path(path).read_text()
    if begin not in text or end not in text:
        raise ValueError(f"{path} has no generated block ({begin} ... {end})")
    head, rest = text.split(begin, 1)
    Path(path).write_text(head + block + rest.split(end, 1)[1])


def update_readme(readme, bench_dir):
    """The full table into ``bench_dir/README.md``, the summary into ``readme``."""
    _replace_block(Path(bench_dir) / "README.md", BEGIN, END, headline(bench_dir))
    _replace_block(readme, SHORT_BEGIN, SHORT_END, summary(bench_dir))


def readme_block(readme, begin=BEGIN, end=END):
    text = Path(readme).read_text()
    if begin not in text or end not in text:
        return None
    return begin + text.split(begin, 1)[1].split(end, 1)[0] + end
