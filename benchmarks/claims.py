"""The README's speed headlines, read from the recorded tables ``benchmarks/*.md``.

``headline(bench_dir)`` builds one Markdown table of the figures the README
quotes, each copied from a cell of a table written by the last
``benchmarks/run_all.py`` run (or, where it says "computed", a ratio of two
cells of one table), with the file it comes from.  ``update_readme`` writes it
between the README's ``<!-- BEGIN benchmarks/claims.py -->`` markers;
``tests/test_benchmark_claims.py`` recomputes it and compares.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import host  # noqa: E402

BEGIN = "<!-- BEGIN benchmarks/claims.py: generated from benchmarks/*.md, do not edit -->"
END = "<!-- END benchmarks/claims.py -->"
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


def update_readme(readme, bench_dir):
    text = Path(readme).read_text()
    if BEGIN not in text or END not in text:
        raise ValueError(f"{readme} has no generated block ({BEGIN} ... {END})")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    Path(readme).write_text(head + headline(bench_dir) + tail)


def readme_block(readme):
    text = Path(readme).read_text()
    if BEGIN not in text or END not in text:
        return None
    return BEGIN + text.split(BEGIN, 1)[1].split(END, 1)[0] + END
