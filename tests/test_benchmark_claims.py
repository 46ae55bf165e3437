"""Every speed figure of the README comes from one recorded benchmark run (issue 19, item 3).

``benchmarks/run_all.py`` (``make bench``) writes ``benchmarks/*.md``, stamps each file
with the run id, and regenerates the README's headline table from them
(``benchmarks/claims.py``).  These tests fail when a table was regenerated alone, when
the README was edited by hand, or when a speed figure is written outside the table.
"""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))
import claims  # noqa: E402
import run_all  # noqa: E402


def performance_section():
    text = (ROOT / "README.md").read_text()
    start = text.index("## Performance")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_readme_table_is_generated_from_the_recorded_tables():
    block = claims.readme_block(BENCH / "README.md")
    assert block is not None, "benchmarks/README.md lost its generated table (benchmarks/claims.py)"
    assert block == claims.headline(BENCH), (
        "benchmarks/README.md's headline table differs from benchmarks/*.md: run `make bench` "
        "(or benchmarks/claims.py's update_readme) instead of editing it")
    short = claims.readme_block(ROOT / "README.md", claims.SHORT_BEGIN, claims.SHORT_END)
    assert short is not None, "README.md lost its generated speed summary (benchmarks/claims.py)"
    assert short == claims.summary(BENCH), (
        "README.md's speed summary differs from benchmarks/*.md: run `make bench`")


def test_the_summary_folds_every_headline_row():
    rows = claims.headline_rows(BENCH)
    folded = claims.summary_rows(BENCH)
    numbered = {r[:2] for r in rows if claims._figure(r[4]) is not None}
    assert {(f, c) for f, c, _, _ in folded} == numbered
    assert sum(n for _, _, n, _ in folded) == sum(1 for r in rows if r[:2] in numbered)
    for f, c, n, span in folded:
        numbers = [claims._figure(r[4]) for r in rows if r[:2] == (f, c)]
        numbers = [x for x in numbers if x is not None]
        digits = 0 if max(numbers) >= 1000 else 2
        assert span.startswith(f"{min(numbers):,.{digits}f}"), (c, span)
        assert span.endswith(f"{max(numbers):,.{digits}f}"), (c, span)
    assert claims._figure("1.29 (mistakes 64,746 SOL)") == 1.29
    assert claims._figure("6,624,251") == 6624251 and claims._figure("stops") is None


#: Scripts added since the last full `make bench`, with where their first run is kept and why
#: it is not in the recorded run; the next full run records them with the others.
NOT_YET_RECORDED = {}   # every script of run_all.SCRIPTS is in the recorded run


def test_every_table_comes_from_one_recorded_run():
    ids = claims.run_ids(BENCH)
    for name, where in NOT_YET_RECORDED.items():
        assert (ROOT / where.split()[0]).is_file(), where
    expected = {f"{name}.md" for name in run_all.present() if name not in NOT_YET_RECORDED}
    assert expected <= set(ids), f"missing tables: {sorted(expected - set(ids))}"
    unstamped = [name for name, run in ids.items() if run is None]
    assert not unstamped, f"{unstamped} not written by benchmarks/run_all.py: run `make bench`"
    assert len(set(ids.values())) == 1, f"tables from different runs: {ids}"
    for name in expected:
        text = (BENCH / name).read_text()
        assert "FAILED" not in text.split(run_all.STAMP_END)[0], f"{name}: its script failed"
        assert "--quick" not in text.split(run_all.STAMP_END)[0], f"{name}: a quick run"


# A measured figure: a decimal number, a ratio such as 1.2x or 10-12x, or a count
# with thousands separators. The prose of the speed section may contain none.
FIGURE = re.compile(r"\d+\.\d+|\b\d+(?:-\d+)?x\b|\d{1,3}(?:,\d{3})+")


def test_no_speed_figure_outside_the_generated_table():
    text = performance_section()
    block = claims.readme_block(ROOT / "README.md", claims.SHORT_BEGIN, claims.SHORT_END)
    prose = text.replace(block, "") if block else text
    assert FIGURE.findall(prose) == [], (
        "the README's speed section quotes figures outside the generated table; "
        "put them in a benchmark's table")


@pytest.mark.parametrize("stale", ["1.70", "1.77", "2.53", "10-12x", "1.22 and 1.27"])
def test_stale_claims_are_gone(stale):
    text = (ROOT / "README.md").read_text()
    short = claims.readme_block(ROOT / "README.md", claims.SHORT_BEGIN, claims.SHORT_END)
    assert stale not in text.replace(short or "", "")


def test_stamp_replaces_itself():
    block = run_all.stamp("RUN", False, "machine: m", "0.1/0.2/0.3", "0.4/0.5/0.6", 12, 0)
    once = run_all.with_stamp("# Title\n\nbody\n", block)
    assert once.startswith("# Title\n\n" + run_all.STAMP_BEGIN) and once.endswith("body\n")
    again = run_all.with_stamp(once, block.replace("RUN", "RUN2"))
    assert again.count(run_all.STAMP_BEGIN) == 1 and "RUN2" in again and "`RUN`" not in again
    assert claims.RUN_ID.search(again).group(1) == "RUN2"


def test_tables_parser():
    text = "x\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\ny\n"
    assert claims.tables(text) == [[{"a": "1", "b": "2"}, {"a": "3", "b": "4"}]]


# --- the CPU of every figure (issue 30, items 1 and 6; benchmarks/host.py) ------------------
import host  # noqa: E402

XEON = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 85
model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz
stepping\t: 7
flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx avx2 avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni

processor\t: 1
model name\t: another
"""


def test_a_stamp_names_the_cpu_model_target_and_vector_extensions():
    line = f"machine: {host.describe(XEON, 'cascadelake')}, 2 logical cores, BLAS openblas"
    block = run_all.stamp("RUN", False, line, "0/0/0", "0/0/0", 1, 0)
    assert host.parse(block) == {
        "model": "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz",
        "ident": "GenuineIntel family 6 model 85 stepping 7", "target": "cascadelake",
        "vector": "sse4_2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni"}
    assert host.short(host.parse(block)) == ("Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz "
                                             "(cascadelake; avx2, avx512f)")
    # this host, as run_all.py stamps it
    here = host.parse(f"machine: {run_all.cpu_model()}, 2 logical cores")
    info = host.cpuinfo()
    if info:
        assert here["model"] == info["model name"]
        assert ("avx2" in here["vector"].split()) == ("avx2" in info["flags"].split())


def test_a_stamp_without_a_cpu_description_says_not_recorded():
    # the runs recorded before the stamp named the vector extensions: no invented CPU
    cpu = host.parse("machine: AMD EPYC, 2 logical cores, BLAS openblas")
    assert cpu["model"] == "AMD EPYC" and cpu["vector"] == cpu["target"] == host.NOT_RECORDED
    assert "not recorded" in host.short(cpu)


def test_every_row_of_the_readme_table_names_the_cpu_of_its_file():
    block = claims.readme_block(BENCH / "README.md")
    rows = claims.tables(block)[0]
    assert rows and all("CPU" in r for r in rows)
    for r in rows:
        name = r["file"].strip("`").split("/")[-1]
        stamped = host.parse((BENCH / name).read_text())
        assert stamped is not None, name
        assert r["CPU"] == host.short(stamped), name
        if stamped["vector"] == host.NOT_RECORDED:
            assert "not recorded" in r["CPU"]
