"""The repair pass's structure: one step per state, every pattern in one module."""

from __future__ import annotations

import gc
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import langchain_jsonrecover
from langchain_jsonrecover._core.repair import tokens as _repair_tokens
from langchain_jsonrecover._core.repair.state import Pass, State
from langchain_jsonrecover._core.repair.syntax import repair
from langchain_jsonrecover._core.repair.walk import _STEPS, rewrite

REPAIR_MODULES = sorted(
    f"_core.repair.{info.name}"
    for info in pkgutil.iter_modules(
        [str(Path(langchain_jsonrecover.__file__).parent / "_core" / "repair")]
    )
    if not info.name.startswith("single_edit")
)


def test_each_state_has_its_own_step() -> None:
    assert len(_STEPS) == len(State)
    assert len(set(_STEPS)) == len(State)


@pytest.mark.parametrize(
    ("state", "step"),
    [
        (State.KEY_FIRST, "_read_first_key"),
        (State.KEY, "_read_next_key"),
        (State.COLON, "_read_colon"),
        (State.MEMBER, "_read_value"),
        (State.ITEM_FIRST, "_read_first_item"),
        (State.ITEM, "_read_next_item"),
        (State.AFTER, "_read_after_value"),
    ],
)
def test_steps_are_indexed_by_state(state: State, step: str) -> None:
    assert _STEPS[state].__name__ == step


@pytest.mark.parametrize(
    "name", [n for n in REPAIR_MODULES if n != "_core.repair.tokens"]
)
def test_compiled_patterns_live_only_in_the_tokens_module(name: str) -> None:
    # The linear-work tests count the work of every pattern by patching
    # _repair_tokens: a pattern compiled elsewhere would go uncounted.
    module = importlib.import_module(f"langchain_jsonrecover.{name}")
    assert not [k for k, v in vars(module).items() if isinstance(v, re.Pattern)]


def test_tokens_module_holds_the_hot_path_patterns() -> None:
    for name in _repair_tokens.LAZY_PATTERNS:  # compiled on first read
        assert isinstance(getattr(_repair_tokens, name), re.Pattern)
    patterns = {k for k, v in vars(_repair_tokens).items() if isinstance(v, re.Pattern)}
    assert {"_KEY_COLON", "_MEMBERS", "_ITEMS", "SPACE", "DQ_BODY"} <= patterns


@pytest.mark.parametrize(
    ("text", "state"),
    [
        pytest.param("{", State.KEY_FIRST, id="object"),
        pytest.param("[", State.ITEM_FIRST, id="array"),
    ],
)
def test_a_pass_starts_after_its_bracket(text: str, state: State) -> None:
    p = Pass.start(text + " 1", {})
    assert (p.state, p.pos, p.stack, p.out) == (state, 1, [text], [text])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("[1, 2,]", ("[1, 2]", False, 7), id="finished"),
        pytest.param('{"a": [1, tru', ('{"a": [1, ', True, 13), id="cut"),
        pytest.param("{status: ok}", None, id="refused"),
    ],
)
def test_rewrite_finishes_cuts_or_refuses(
    text: str, expected: tuple[str, bool, int] | None
) -> None:
    assert rewrite(text, {}) == expected


@pytest.mark.parametrize(
    "enabled", [True, False], ids=["collector_on", "collector_off"]
)
def test_a_run_of_openers_leaves_the_collector_as_it_found_it(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert repair("[" * 50_000) is None  # nothing closes: no value
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_run_patterns_compile_when_first_used() -> None:
    # A fresh interpreter: importing the core compiles neither run pattern.
    code = (
        "import langchain_jsonrecover._core.extract, langchain_jsonrecover._core.repair.tokens"
        " as t; print(sorted(set(t.LAZY_PATTERNS) & set(vars(t))));"
        " t.take_members('{\"a\": 1}', 5); t.take_items('[1]', 1);"
        " print(sorted(set(t.LAZY_PATTERNS) & set(vars(t))))"
    )
    done = subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.split("\n")[:2] == ["[]", "['_ITEMS', '_MEMBERS']"]


def test_an_unknown_name_of_the_tokens_module_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NO_SUCH_PATTERN"):
        _ = _repair_tokens.NO_SUCH_PATTERN  # type: ignore[attr-defined]
