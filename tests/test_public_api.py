"""The public surface: pinned names, documented, with examples that run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import langchain_jsonrecover

if TYPE_CHECKING:
    from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]

EXPECTED_ALL = [
    "Continue",
    "Extraction",
    "Halt",
    "InvalidJsonError",
    "JsonFenceOutputParser",
    "JsonRecoveryError",
    "JsonRetryChain",
    "NoJsonFoundError",
    "RegexJsonOutputParser",
    "ReplyTooLargeError",
    "RetryExhaustedError",
    "SchemaValidationError",
    "TruncationRecoveringOutputParser",
    "UnknownToolError",
    "extract_json",
    "partial_model",
    "recover_frame",
    "recover_record",
    "recover_tool_calls",
    "structured_output",
]


def test_version_is_the_one_the_build_reads() -> None:
    # pyproject takes the version from __init__.py (hatch's dynamic version).
    assert re.fullmatch(r"\d+\.\d+\.\d+", langchain_jsonrecover.__version__)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == (
        "langchain_jsonrecover/__init__.py"
    )


def test_all_is_pinned() -> None:
    assert sorted(langchain_jsonrecover.__all__) == sorted(EXPECTED_ALL)


def test_all_names_import() -> None:
    for name in langchain_jsonrecover.__all__:
        assert getattr(langchain_jsonrecover, name) is not None


@pytest.mark.parametrize("name", EXPECTED_ALL)
def test_public_name_documented_with_example(name: str) -> None:
    doc = inspect.getdoc(getattr(langchain_jsonrecover, name)) or ""
    assert doc, f"{name} has no docstring"
    assert "Example" in doc, f"{name}'s docstring has no example"


def _modules() -> list[ModuleType]:
    # Every folder: a module moved into a wing keeps its doctests run.
    names = [
        info.name
        for info in pkgutil.walk_packages(
            langchain_jsonrecover.__path__, prefix="langchain_jsonrecover."
        )
        if not info.name.endswith("__main__")
    ]
    return [langchain_jsonrecover, *(importlib.import_module(n) for n in sorted(names))]


@pytest.mark.parametrize("module", _modules(), ids=lambda m: m.__name__)
def test_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


CORE = [m for m in _modules() if m.__name__.startswith("langchain_jsonrecover._core")]


def test_core_modules_found() -> None:
    # Pinned in tests/test_layout.py; here: the walk reaches into the folders.
    assert len(CORE) >= 50


@pytest.mark.parametrize("module", CORE, ids=lambda m: m.__name__)
def test_core_modules_do_not_import_langchain(module: ModuleType) -> None:
    assert "langchain_core" not in inspect.getsource(module)
