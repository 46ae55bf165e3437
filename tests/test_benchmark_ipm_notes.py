"""benchmarks/ipm.py's lines under the size-sweep table (review 30, finding 4): every limit
against the serial cost per row of the same size, and the recorded note's lines are what the
function prints for the note's own table."""
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
import ipm  # noqa: E402


def test_recorded_note_lines_are_the_functions_output_for_its_table():
    text = (BENCH / "notes" / "ipm.md").read_text()
    lines = ipm.lines_from_notes(BENCH / "notes" / "ipm.md")
    assert len(lines) == len(ipm.SWEEP_LEARNERS)
    for line in lines:
        assert line in text.splitlines()


def test_limits_divide_by_the_serial_cost_of_the_largest_size():
    # serial per row 1000 ns at the small size, 2000 ns at the large one; a worker's compute
    # (epochs less 5 overheads) 1.2 s over 1,000,000 rows in 2 shards: 2400 ns per row of its
    # shard, 1.2 c_n, so the epochs tend to 0.600x (against 1.20x with the small size's c)
    rows = []
    for name in ipm.SWEEP_LEARNERS:
        rows += [dict(n=100_000, name=name, serial=0.1, epochs=0.2, overhead=0.01, sent=0.5,
                      files=1.0),
                 dict(n=1_000_000, name=name, serial=2.0, epochs=1.25, overhead=0.01, sent=3.25,
                      files=5.25)]
    line = ipm.sweep_lines(rows, [])[-1]
    assert "c_n = 2000 ns per row" in line and "2400 ns per row of its shard" in line
    assert "(1.20 c_n: slower" in line and "c_w / (S c_n) = 0.600x" in line
    # 0.65 c_n > c_w / S: the epochs reach the target, from E o / (0.65 c_n - c_w / S)
    assert f"{5 * 0.01 / (0.65 * 2e-6 - 1.2e-6):,.0f} rows" in line
    # placing 2 s sent, 4 s from files per 1,000,000 rows: (1200 + 2000) / 2000 = 1.60x
    assert "placing costs 2000 ns per row sent and 4000 ns" in line
    assert "1.60x (sent) and 2.60x (files)" in line
    # per size, the compute against the serial fit of that size
    assert "100,000: compute 1.500x serial" in line and "1,000,000: compute 0.600x serial" in line


def test_a_note_without_a_sweep_table_is_refused(tmp_path):
    note = tmp_path / "ipm.md"
    note.write_text("# IPM\n\n## Size sweep\n\nno table\n")
    with pytest.raises(ValueError, match="--write"):
        ipm.lines_from_notes(note)
