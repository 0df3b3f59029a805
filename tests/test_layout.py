"""The package's layout holds: wings walked whole, a pure core, no circles."""

from __future__ import annotations

import ast
import importlib
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import langchain_jsonrecover

PACKAGE = Path(langchain_jsonrecover.__file__).parent
FILES = sorted(PACKAGE.rglob("*.py"))
CORE = PACKAGE / "_core"

# Move a module, add one or split one: change this count with the layout drawing.
MODULE_COUNT = 115


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The package modules ``path`` imports, type-only imports included."""
    name = _name(path)
    modules = {_name(p) for p in FILES}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                if path.name != "__init__.py":
                    parts = parts[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
    return {m for m in found if m in modules and m != name}


GRAPH = {_name(p): _imports(p) for p in FILES}


def test_module_count_is_pinned() -> None:
    assert len(FILES) == MODULE_COUNT


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_over_500_lines(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 500


def test_every_folder_is_a_package() -> None:
    folders = {p.parent for p in FILES}
    assert sorted(f for f in folders if not (f / "__init__.py").exists()) == []


def _cycle() -> list[str]:
    """One import circle (type-only imports included), or ``[]``."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        path.append(module)
        for target in sorted(GRAPH[module]):
            if target == "langchain_jsonrecover":
                continue  # the package's face: it imports everything
            found = visit(target)
            if found:
                return found
        path.pop()
        done.add(module)
        return []

    for module in sorted(GRAPH):
        found = visit(module)
        if found:
            return found
    return []


def test_no_import_circle() -> None:
    assert _cycle() == []


def test_a_circle_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # The finder itself: a type-only back edge is a circle.
    a, b = "langchain_jsonrecover.tools", "langchain_jsonrecover.tools.calls"
    monkeypatch.setitem(GRAPH, b, {*GRAPH[b], a})
    assert _cycle()[0] == _cycle()[-1]


@pytest.mark.parametrize(
    "path",
    sorted(CORE.rglob("*.py")),
    ids=lambda p: p.relative_to(PACKAGE).as_posix(),
)
def test_core_imports_only_the_core(path: Path) -> None:
    outside = {
        m for m in GRAPH[_name(path)] if not m.startswith("langchain_jsonrecover._core")
    }
    assert outside == set()


def test_importing_the_core_imports_no_langchain() -> None:
    # In a fresh interpreter: the package's __init__ must not be the way in.
    names = sorted(_name(p) for p in CORE.rglob("*.py"))
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('langchain_core', 'langchain')))\n"
    )
    # Load the core without running the package's __init__ (which is LangChain's
    # face): a stub parent package whose __path__ is the real folder.
    stub = (
        "import sys, types\n"
        f"pkg = types.ModuleType('langchain_jsonrecover'); pkg.__path__ = [{str(PACKAGE)!r}]\n"
        "sys.modules['langchain_jsonrecover'] = pkg\n"
    )
    out = subprocess.run(  # noqa: S603 (our own code, this interpreter)
        [sys.executable, "-c", stub + code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"
    assert len(names) >= 50


PUBLIC_CLASSES = [
    ("langchain_jsonrecover.errors", "InvalidJsonError"),
    ("langchain_jsonrecover.errors", "JsonRecoveryError"),
    ("langchain_jsonrecover.errors", "NoJsonFoundError"),
    ("langchain_jsonrecover.errors", "ReplyTooLargeError"),
    ("langchain_jsonrecover.errors", "RetryExhaustedError"),
    ("langchain_jsonrecover.errors", "SchemaValidationError"),
    ("langchain_jsonrecover.errors", "UnknownToolError"),
    ("langchain_jsonrecover.outcomes", "Continue"),
    ("langchain_jsonrecover.outcomes", "Halt"),
    ("langchain_jsonrecover.parsers", "JsonFenceOutputParser"),
    ("langchain_jsonrecover.parsers", "RegexJsonOutputParser"),
    ("langchain_jsonrecover.parsers", "TruncationRecoveringOutputParser"),
    ("langchain_jsonrecover.retry", "JsonRetryChain"),
    ("langchain_jsonrecover.tools", "ToolSpec"),
    ("langchain_jsonrecover.agents", "JsonRecoveryMiddleware"),
]


def test_extraction_keeps_its_module_and_pickles() -> None:
    # Defined in the pure core; its __module__ stays the one it had before the
    # move (._extract, which still provides it), so old pickles load.
    cls = langchain_jsonrecover.Extraction
    assert cls.__module__ == "langchain_jsonrecover._extract"
    found = langchain_jsonrecover.extract_json('Here: {"a": 1}')
    assert pickle.loads(pickle.dumps(found)) == found  # noqa: S301 (our own bytes)


@pytest.mark.parametrize(("module", "name"), PUBLIC_CLASSES)
def test_public_class_module_is_pinned(module: str, name: str) -> None:
    # Pickles and LangChain serialization ids name the class by __module__.
    cls = getattr(importlib.import_module(module), name)
    assert cls.__module__ == module


def test_a_parser_pickles_and_keeps_its_serialization_id() -> None:
    parser = langchain_jsonrecover.JsonFenceOutputParser()
    assert pickle.loads(pickle.dumps(parser)).__class__ is type(parser)  # noqa: S301
    assert type(parser).get_lc_namespace()[0] == "langchain_jsonrecover"


# The wings of the adapters and the public face at the top (docs/architecture.md).
WINGS = ["_core", "cli", "parsers", "retry", "tools"]
TOP_LEVEL = [
    "__init__",
    "__main__",
    "_extract",
    "agents",
    "demo",
    "errors",
    "extract",
    "outcomes",
    "partial_models",
    "records",
    "structured",
]
# What each part of the package may import: its own rank or lower.
RANK = {
    "_core": 0,
    "_extract": 1,
    "errors": 1,
    "outcomes": 1,
    "extract": 1,
    "partial_models": 1,
    "parsers": 2,
    "tools": 3,
    "retry": 4,
    "structured": 5,
    "records": 5,
    "agents": 6,
    "demo": 6,
    "cli": 7,
    "__main__": 8,
}


def test_the_top_level_is_the_public_face() -> None:
    top = sorted(p.stem for p in PACKAGE.glob("*.py"))
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert (top, folders) == (TOP_LEVEL, WINGS)


def _rank(module: str) -> int:
    return RANK[module.split(".")[1]]


def _up(module: str) -> set[str]:
    """The modules ``module`` imports from a higher rank (type-only included)."""
    return {
        m
        for m in GRAPH[module]
        if m != "langchain_jsonrecover" and _rank(m) > _rank(module)
    }


@pytest.mark.parametrize(
    "module", sorted(m for m in GRAPH if m != "langchain_jsonrecover")
)
def test_imports_run_down_the_wings(module: str) -> None:
    assert _up(module) == set()


def test_an_import_up_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # The guard itself: the parsers' base importing the retry chain climbs.
    low, high = "langchain_jsonrecover.parsers.base", "langchain_jsonrecover.retry"
    monkeypatch.setitem(GRAPH, low, {*GRAPH[low], high})
    assert _up(low) == {high}
