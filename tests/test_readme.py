"""The README's examples work as written from a fresh clone (issue 34, item 3).

Every ```python block of README.md runs in a fresh interpreter; every ```bash block runs line by
line in a temporary folder with the environment's ``bin`` first on PATH (so ``olearn`` is the
installed command), except the lines that install or build the project (``git clone``,
``python3 -m venv``, ``. .venv/bin/activate``, ``pip install``, ``make ...``): those are checked
instead against what they name (the extras in pyproject.toml, the Makefile's targets; `.ci/run`
runs ``make test``, ``make book`` and ``make pdf`` themselves). The first screen is the first 60
lines: it must hold the install, a Python example, an ``olearn train`` line and the two make
commands.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCK = re.compile(r"^```(python|bash)\n(.*?)^```", re.S | re.M)
BLOCKS = [(lang, code) for lang, code in BLOCK.findall(README)]
SETUP = re.compile(r"^(git clone|python3 -m venv|\. \.venv/bin/activate|pip install|make )")


def _env(tmp_path):
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"],
            "MPLBACKEND": "Agg", "HOME": os.environ.get("HOME", str(tmp_path))}


def _commands(code):
    """Lines of a bash block, continuation lines joined, comments and blanks dropped."""
    joined = code.replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.strip().startswith("#")]


@pytest.mark.parametrize("index", [i for i, (lang, _) in enumerate(BLOCKS) if lang == "python"])
def test_readme_python_block_runs(index, tmp_path):
    code = BLOCKS[index][1]
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("index", [i for i, (lang, _) in enumerate(BLOCKS) if lang == "bash"])
def test_readme_shell_block_runs(index, tmp_path):
    makefile = (ROOT / "Makefile").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()
    for command in _commands(BLOCKS[index][1]):
        if command.startswith("make "):
            target = command.split()[1]
            assert re.search(rf"^{re.escape(target)}:", makefile, re.M), command
        elif command.startswith("pip install"):
            extra = re.search(r"\[(\w+)\]", command)
            assert extra is None or re.search(rf"^{extra[1]} = \[", pyproject, re.M), command
        elif SETUP.match(command):
            continue
        else:
            done = subprocess.run(command, shell=True, executable="/bin/bash", cwd=tmp_path,
                                  env=_env(tmp_path), capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{command}\n{done.stdout[-1500:]}{done.stderr[-1500:]}"


def test_the_first_screen_holds_what_a_newcomer_needs():
    first = "\n".join(README.splitlines()[:60])
    assert "pip install -e ." in first
    assert "```python" in first and "olearn train " in first
    assert "make book" in first and "make test" in first
    assert "OLEARN_DATA_HOME" in first
    for link in ("book/scoreboard.ipynb", "book/algorithms.md"):
        assert link in first and (ROOT / link).exists(), link


def test_every_relative_link_of_the_readme_exists():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), target
