"""The README stays true: its commands, its names, its examples."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

import langchain_jsonrecover

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.MULTILINE | re.DOTALL)


def test_every_public_name_is_documented() -> None:
    for name in langchain_jsonrecover.__all__:
        assert f"`{name}" in README, name


def test_layout_names_every_module() -> None:
    layout = README.split("- Layout:", 1)[1].split("\n- ", 1)[0]
    named = set(re.findall(r"`([\w/]+\.py)`", layout)) - {"tests/test_readme.py"}
    package = Path(langchain_jsonrecover.__file__).parent
    modules = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if path.name != "__init__.py"
    }
    assert sorted(modules - named) == []
    assert sorted(named - modules) == []


def test_ci_runs_the_readme_test_command() -> None:
    commands = [b.strip() for b in _blocks("bash") if "pytest" in b]
    assert len(commands) == 1
    test_command = commands[0].replace(" -q", "")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace(" -q", "")
    assert test_command in ci


def test_two_setup_commands_install_and_run() -> None:
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^```bash\n(.*?)\n```", setup, re.MULTILINE | re.DOTALL)
    assert len(commands) == 2
    main_job, tests = commands
    assert "pip install" in main_job
    assert "jsonrecover" in main_job
    assert "pip install" in tests
    assert "pytest" in tests


def _checked(block: str) -> str:
    """Turn each top-level ``expr  # value`` into an assertion on ``repr(expr)``.

    The comment may stand after the expression's last line, so that examples
    the formatter wraps are still checked.
    """
    comments = {
        token.start[0]: token.string[1:].strip()
        for token in tokenize.generate_tokens(io.StringIO(block).readline)
        if token.type == tokenize.COMMENT
    }
    lines = block.splitlines()
    for node in reversed(ast.parse(block).body):
        expected = comments.get(node.end_lineno or 0)
        if not isinstance(node, ast.Expr) or expected is None:
            continue
        source = ast.get_source_segment(block, node) or ""
        check = f"assert repr({source}) == {expected!r}, repr({source})"
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        lines[first : last + 1] = check.splitlines()
    return "\n".join(lines)


@pytest.mark.parametrize(
    "block", _blocks("python"), ids=lambda b: b.split("\n")[0][:40]
)
def test_python_examples_run_and_show_true_results(block: str) -> None:
    code = _checked(block)
    # dont_inherit: run as a user runs it, without this module's __future__.
    exec(compile(code, "README.md", "exec", dont_inherit=True), {})  # noqa: S102
