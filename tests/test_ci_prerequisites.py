"""Every system tool a test runs is installed by ``.ci/run`` before ``make test`` (issue 34).

On a fresh machine ``.ci/run`` once failed because TeX Live and poppler were installed only after
``make test``, whose PDF tests need them. This test reads the tests, ``tests/system_tools.py``,
``.ci/system-packages`` and ``.ci/run`` and fails when

- a test runs a program (``subprocess.run(["prog", ...])``, ``shutil.which("prog")``) that is not
  in ``system_tools.TOOLS`` (so nobody knows its Debian package);
- a test file runs a registered tool without declaring it (``needs_tools(...)`` or
  ``system_tools.require(...)``), so that outside CI its absence would crash instead of skipping;
- a registered tool's Debian package is not in ``.ci/system-packages``;
- ``.ci/run`` does not install ``.ci/system-packages`` before the line that runs ``make test``.
The checker is a function of the texts, so the tests below also feed it broken inputs.
"""
import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import system_tools  # noqa: E402

#: programs a test may run that are not system packages (the interpreter, what pip installs)
NOT_SYSTEM = {"python", "python3", "jupyter-book", "jupyter", "olearn", "pytest", "sh", "bash"}
#: a clone of the repository has git; declaring it in every test that reads the history adds nothing
ALWAYS_THERE = {"git"}


def programs_run(source: str) -> set[str]:
    """Literal program names a Python source runs or looks up on PATH."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        if name == "which" and node.args and isinstance(node.args[0], ast.Constant):
            found.add(node.args[0].value)
        elif name in ("run", "Popen", "check_output", "check_call", "call") and node.args \
                and (name == "Popen" or getattr(node.func, "value", None) is not None
                     and getattr(node.func.value, "id", "") == "subprocess"):
            first = node.args[0]
            if isinstance(first, (ast.List, ast.Tuple)) and first.elts \
                    and isinstance(first.elts[0], ast.Constant) \
                    and isinstance(first.elts[0].value, str):
                found.add(first.elts[0].value)
    return found


def tools_declared(source: str) -> set[str]:
    """Tools named in ``needs_tools(...)`` or ``require(...)`` calls, or in a TOOLS tuple that a
    ``require(*TOOLS)`` call passes."""
    declared = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in ("needs_tools", "require"):
                declared |= {a.value for a in node.args if isinstance(a, ast.Constant)}
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "TOOLS" for t in node.targets) \
                and isinstance(node.value, (ast.Tuple, ast.List)) and "require(*TOOLS)" in source:
            declared |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return declared


def command_to_tool(command: str):
    return next((name for name, (commands, _) in system_tools.TOOLS.items()
                 if command in commands), None)


def listed_packages(text: str) -> set[str]:
    return {line.split()[0] for line in (raw.split("#")[0].strip() for raw in text.splitlines())
            if line}


def install_precedes_make_test(run_text: str) -> bool:
    """The script calls the install step (which reads .ci/system-packages) before `make test`."""
    lines = [line.split("#")[0].strip() for line in run_text.splitlines()]
    reads = any(".ci/system-packages" in line for line in lines)
    calls = [i for i, line in enumerate(lines) if line == "install_system_packages"]
    tests = [i for i, line in enumerate(lines) if re.fullmatch(r"make test\b.*", line)]
    return reads and bool(calls) and bool(tests) and calls[0] < tests[0]


def problems(test_sources: dict, packages_text: str, run_text: str) -> list[str]:
    found = []
    for path, source in test_sources.items():
        declared = tools_declared(source)
        for command in sorted(programs_run(source) - NOT_SYSTEM):
            tool = command_to_tool(command)
            if tool is None:
                found.append(f"{path}: runs {command!r}, which tests/system_tools.py TOOLS does "
                             "not know (add it with its Debian package)")
            elif tool not in declared and tool not in ALWAYS_THERE \
                    and Path(path).name.startswith("test_"):
                found.append(f"{path}: runs {command!r} without needs_tools({tool!r}) or "
                             f"system_tools.require({tool!r})")
    listed = listed_packages(packages_text)
    for tool, (_, package) in system_tools.TOOLS.items():
        if package not in listed:
            found.append(f"{tool}: Debian package {package!r} is not in .ci/system-packages")
    if not install_precedes_make_test(run_text):
        found.append(".ci/run does not install .ci/system-packages before `make test`")
    return found


def repository_texts():
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "tests").glob("*.py"))}
    return (sources, (ROOT / ".ci" / "system-packages").read_text(),
            (ROOT / ".ci" / "run").read_text())


def test_every_system_tool_of_the_tests_is_installed_before_make_test():
    assert problems(*repository_texts()) == []


def test_the_checker_finds_an_install_after_make_test():
    sources, packages, run = repository_texts()
    moved = run.replace("\ninstall_system_packages\n", "\n") + "\ninstall_system_packages\n"
    assert ".ci/run does not install .ci/system-packages before `make test`" in \
        problems(sources, packages, moved)


def test_the_checker_finds_an_unlisted_package_and_an_unknown_program():
    sources, packages, run = repository_texts()
    without_poppler = packages.replace("\npoppler-utils\n", "\n")
    assert any("poppler-utils" in p for p in problems(sources, without_poppler, run))
    sources = {**sources, "tests/test_new.py":
               "import subprocess\ndef test_x():\n    subprocess.run(['dot', '-V'])\n"}
    assert any("'dot'" in p and "does not know" in p for p in problems(sources, packages, run))


def test_the_checker_finds_an_undeclared_tool():
    sources, packages, run = repository_texts()
    sources = {**sources, "tests/test_new.py":
               "import subprocess\ndef test_x():\n    subprocess.run(['pdfinfo', 'a.pdf'])\n"}
    assert any("test_new.py" in p and "needs_tools('pdfinfo')" in p
               for p in problems(sources, packages, run))


def test_an_absent_tool_skips_with_the_debian_package_outside_ci_and_fails_in_ci(monkeypatch):
    monkeypatch.setitem(system_tools.TOOLS, "nosuchtool", (("olearn-no-such-tool",), "no-such-pkg"))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install no-such-pkg"):
        system_tools.require("nosuchtool")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no-such-pkg"):
        system_tools.require("nosuchtool")
