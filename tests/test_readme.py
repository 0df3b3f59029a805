"""The README and the docs site stay true: their commands, names and examples."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest
from _shipped import needs

import langchain_jsonrecover

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
# The site's pages written by hand: the API reference and the changelog page
# are generated or included, so a name must be documented in a guide.
PAGES = {
    path.relative_to(DOCS).as_posix(): path.read_text(encoding="utf-8")
    for path in sorted(DOCS.rglob("*.md"))
    if path.parts[len(DOCS.parts)] != "notes"
}
GUIDES = "\n".join(
    text for name, text in PAGES.items() if name not in {"reference.md", "changelog.md"}
)
MAX_README_LINES = 300


def _blocks(language: str, text: str = README) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_every_public_name_is_documented() -> None:
    for name in langchain_jsonrecover.__all__:
        assert f"`{name}" in GUIDES, name


def test_the_api_reference_covers_the_package_and_the_agents() -> None:
    reference = PAGES["reference.md"]
    assert "::: langchain_jsonrecover\n" in reference
    assert "::: langchain_jsonrecover.agents\n" in reference


def test_the_changelog_page_includes_the_changelog() -> None:
    assert PAGES["changelog.md"].strip() == '--8<-- "CHANGELOG.md"'


def test_every_page_is_in_the_site_navigation() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = set(re.findall(r"^ +- [^:]+: (\S+\.md)$", config, re.MULTILINE))
    assert nav == set(PAGES)


def test_readme_fits_on_a_few_screens() -> None:
    lines = README.splitlines()
    assert len(lines) <= MAX_README_LINES
    first_screen = "\n".join(lines[:40])
    assert "JsonOutputParser" in first_screen
    assert "pip install langchain-jsonrecover\n" in first_screen


@pytest.mark.parametrize(
    ("name", "text"),
    [("README.md", README)]
    + [(name, text) for name, text in PAGES.items() if name != "changelog.md"],
)
def test_the_manual_speaks_to_users(name: str, text: str) -> None:
    # No issue numbers, no revisions, no unexplained verdicts or project names.
    assert re.search(r"\bissue \d+", text, re.IGNORECASE) is None, name
    revision = re.search(r"\b(?=[0-9]*[a-f])[0-9a-f]{7,40}\b", text)
    assert revision is None, (name, revision)
    for word in ("FAIL", "Normandy", "AgentSea", "Elixir", "HEAD"):
        assert word not in text, (name, word)


def test_readme_links_lead_to_files() -> None:
    links = re.findall(r"\]\(([^)]+)\)", README)
    assert links
    for link in links:
        assert "://" not in link, link
        assert (ROOT / link.split("#", 1)[0]).is_file(), link


def test_layout_names_every_module() -> None:
    layout = PAGES["architecture.md"].split("- Layout:", 1)[1].split("\n- ", 1)[0]
    named = set(re.findall(r"`([\w/]+\.py)`", layout)) - {"tests/test_readme.py"}
    package = Path(langchain_jsonrecover.__file__).parent
    modules = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if path.name != "__init__.py"
    }
    assert sorted(modules - named) == []
    assert sorted(named - modules) == []


@needs(".ci/run")
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


EXAMPLES = [("README.md", block) for block in _blocks("python")] + [
    (f"docs/{name}", block)
    for name, text in PAGES.items()
    for block in _blocks("python", text)
]


@pytest.mark.parametrize(
    ("source", "block"),
    EXAMPLES,
    ids=[f"{source}:{block.split(chr(10))[0][:40]}" for source, block in EXAMPLES],
)
def test_python_examples_run_and_show_true_results(source: str, block: str) -> None:
    code = _checked(block)
    # dont_inherit: run as a user runs it, without this module's __future__.
    exec(compile(code, source, "exec", dont_inherit=True), {})  # noqa: S102
