"""book/_ext/olearn_tables.py lets a table's identifiers break after their underscores.

A computed table's column names are often identifiers (``bcw_l1_minus_dcd_error``); with no
break opportunity such a heading is one word as wide as several columns and pushed tables past
the text column at a 1280-px window (issue 27). The extension puts ``<wbr>`` after each
underscore of a table cell's text, never inside a tag or a formula.
"""
import importlib.util
from pathlib import Path

EXT = Path(__file__).resolve().parents[1] / "book" / "_ext" / "olearn_tables.py"
spec = importlib.util.spec_from_file_location("olearn_tables", EXT)
olearn_tables = importlib.util.module_from_spec(spec)
spec.loader.exec_module(olearn_tables)


def test_underscores_of_cell_text_become_break_opportunities():
    html = ('<table><tr><th>bcw_l1_minus</th><td><a href="a_b.html">page_x</a></td>'
            '<td><span class="math notranslate">\\(a_b\\)</span></td></tr></table>'
            '<p>not_a_cell</p>')
    out = olearn_tables.breakable_cells(html)
    assert "<th>bcw_<wbr>l1_<wbr>minus</th>" in out
    assert 'href="a_b.html">page_<wbr>x</a>' in out            # the link target unchanged
    assert "\\(a_b\\)" in out and "<p>not_a_cell</p>" in out     # math and prose unchanged


def test_colons_of_a_long_row_id_become_break_opportunities():
    # the scoreboard's ids (paper:section:short-name) are one word as wide as a column
    html = ("<table><tr><td>carvalho2006:4.3.3:voted-perceptron-more-mistakes</td>"
            "<td>ratio 1:2</td><td>time 10:30</td></tr></table>")
    out = olearn_tables.breakable_cells(html)
    assert "<td>carvalho2006:<wbr>4.3.3:<wbr>voted-perceptron-more-mistakes</td>" in out
    assert "<td>ratio 1:2</td>" in out and "<td>time 10:30</td>" in out   # short words kept


def test_tables_of_eight_or_more_columns_are_marked():
    row = "<tr>" + "<td>1</td>" * 8 + "</tr>"
    out = olearn_tables.mark_wide_tables(f'<table class="dataframe">{row}</table>'
                                         '<table><tr><td>1</td></tr></table>')
    assert '<table class="olearn-many-columns dataframe">' in out
    assert "<table><tr><td>1</td></tr></table>" in out
