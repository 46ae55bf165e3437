"""The book's convention for notebook outputs in the repository, and the tool that applies it.

Convention (checked by tests/test_book_outputs.py): a committed page stores **no outputs**
and no execution counts, except the code cells tagged ``nbval-check-output``, which keep the
output that ``pytest --nbval-lax`` compares with a fresh run. Why: ``make book`` re-executes
every page (``execute_notebooks: force``), so a stored output is never what a reader sees;
under ``--nbval-lax`` only the tagged cells' outputs are ever compared, so any other stored
output is unchecked and goes stale silently, and it makes every diff of a page unreadable
(HTML tables, base64 figures, timings). A tagged cell must store its output: nbval passes a
tagged cell with nothing stored without comparing anything.

    python -m olearn._nbtools strip book/              # apply the convention (make strip-outputs)
    python -m olearn._nbtools fill book/duol/theory.ipynb   # run a page, store its tagged outputs

``strip`` also turns a first line ``# NBVAL_CHECK_OUTPUT`` into the cell tag (nbval reads
both; the tag keeps the line out of the reader's view) and drops the per-cell execution
timestamps; it then lists the tagged cells that store no output, to be filled with ``fill``
(which executes the page in quick mode and keeps only the tagged cells' outputs).
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

TAG = "nbval-check-output"
MARKER = "# NBVAL_CHECK_OUTPUT"


def notebooks(paths):
    """Every ``.ipynb`` under ``paths`` (files or folders), without build or checkpoint copies."""
    out = []
    for path in map(Path, paths):
        found = [path] if path.suffix == ".ipynb" else sorted(path.rglob("*.ipynb"))
        out += [p for p in found if not {"_build", ".ipynb_checkpoints"} & set(p.parts)]
    return out


def tagged(cell):
    return TAG in cell.get("metadata", {}).get("tags", [])


def violations(nb):
    """What breaks the convention in notebook ``nb``: a list of ``(cell index, problem)``."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.source.lstrip().startswith(MARKER):
            problems.append((i, f"first line {MARKER} (use the {TAG} tag)"))
        if tagged(cell):
            if not cell.get("outputs"):
                problems.append((i, f"tagged {TAG} but stores no output (nothing is compared)"))
        elif cell.get("outputs"):
            problems.append((i, "stores outputs (only tagged cells may)"))
        if cell.get("execution_count") is not None and not tagged(cell):
            problems.append((i, "stores an execution count"))
    return problems


def strip_notebook(nb):
    """Apply the convention to ``nb`` in place; returns the number of cells changed."""
    changed = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        before = (cell.source, list(cell.get("outputs", [])), cell.get("execution_count"),
                  dict(cell.metadata))
        lines = cell.source.split("\n")
        if lines and lines[0].strip() == MARKER:
            cell.source = "\n".join(lines[1:]).lstrip("\n")
            tags = cell.metadata.setdefault("tags", [])
            if TAG not in tags:
                tags.append(TAG)
        cell.metadata.pop("execution", None)
        if not tagged(cell):
            cell.outputs = []
            cell.execution_count = None
        if before != (cell.source, list(cell.get("outputs", [])), cell.get("execution_count"),
                      dict(cell.metadata)):
            changed += 1
    return changed


def strip(paths):
    """Strip every notebook under ``paths``; print what changed and what still needs ``fill``."""
    missing = []
    for path in notebooks(paths):
        nb = nbformat.read(path, as_version=4)
        if strip_notebook(nb):
            nbformat.write(nb, path)
            print(f"stripped {path}")
        missing += [f"{path} cell {i}" for i, problem in violations(nb)
                    if "stores no output" in problem]
    if missing:
        print("tagged cells without a stored output (run `python -m olearn._nbtools fill "
              "<page>`):\n  " + "\n  ".join(missing))
    return missing


def fill(path, timeout=1200):
    """Execute page ``path`` (quick mode, from its folder) and store the tagged cells' outputs."""
    import os

    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    run = nbformat.reads(nbformat.writes(nb), as_version=4)
    os.environ.setdefault("OLEARN_QUICK", "1")
    NotebookClient(run, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell, done in zip(nb.cells, run.cells):
        if cell.cell_type == "code" and tagged(cell):
            cell.outputs = done.outputs
            cell.execution_count = done.execution_count
    strip_notebook(nb)
    nbformat.write(nb, path)
    print(f"filled {path}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] not in ("strip", "fill", "check"):
        sys.exit("usage: python -m olearn._nbtools strip|fill|check PATH...")
    command, paths = argv[0], argv[1:]
    if command == "strip":
        strip(paths)
    elif command == "fill":
        for path in notebooks(paths):
            fill(path)
    else:
        bad = [f"{p} cell {i}: {problem}" for p in notebooks(paths)
               for i, problem in violations(nbformat.read(p, as_version=4))]
        print("\n".join(bad) or "every notebook follows the output convention")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
