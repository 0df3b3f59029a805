"""Replies whose JSON goes on after a root closed: a generator and a verdict.

A known original (an object or an array of numbers, strings, literals and
containers), serialized compactly or spaced, gets ONE fault that makes a
value close early or lose its opener, the class where text after a closed
root is JSON going on, not prose:

* ``closer_in``: a ``}`` or ``]`` slipped in outside the strings, between
  tokens or inside a number (``{"a": 1}0, "b": 2}``);
* ``opener_lost``: an opener outside the strings deleted (``[1, 2], "c", [3]]``:
  ``[[1, 2], "c", [3]]`` that lost its first ``[``);
* ``opener_closed``: an opener written as its own closer (``[}, {"a": 1}]``).

Then a wrapper: the body alone, after a line of prose, in a ``json`` fence, or
followed by prose that starts the way JSON does (a number, a comma, a
bracket: ``{...} 2 more items``, ``[1, 2], and then``). The clean rows
(``none``: no fault) are the other side: prose after a value that must stay
prose, so that a rule that reads too much JSON into it loses right answers.

:func:`judge` calls an answer ``right`` (the original, or the value of the
faulty text when it is still valid JSON: a reading the reply allows), an
``error``, or ``wrong`` (any other value: the contract forbids it). Case ``i``
has its own ``random.Random`` seeded by ``(seed, i)``, so a short run is a
prefix of a long one.
"""

from __future__ import annotations

import importlib
import json
import random
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from _json_text import outside_strings
from langchain_core.messages import AIMessage

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

FAULTS: Final = ("none", "closer_in", "opener_lost", "opener_closed")
WRAPPERS: Final = ("bare", "lead", "fence", "tail")
_TAILS: Final = (
    " 2 more items are pending.",
    ", and then we stop.",
    "\n\n1. The first key is the name.",
    " [1]",
    ", 3 of them empty.",
    "\n\n(2) see above",
    " {see the note}",
    "... 10 in all.",
)
_STRINGS: Final = ("a", "x y", "10", "[1]", "}", "{", "a, b", 'q"uote', "")
_KEYS: Final = ("a", "b", "name", "id", "tags", "n")
_NUMBERS: Final = (0, 1, 10, 25, -3, 2.5, 100, 7)


def _leaf(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(_NUMBERS)
    if roll < 0.8:
        return rng.choice(_STRINGS)
    return rng.choice((True, False, None))


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 2 or roll < 0.45:
        return _leaf(rng)
    if roll < 0.75:
        keys = rng.sample(_KEYS, rng.randrange(4))
        return {key: _value(rng, depth + 1) for key in keys}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def original(rng: random.Random) -> Any:
    """A root with at least two members or items: an object or an array."""
    if rng.random() < 0.55:
        keys = rng.sample(_KEYS, 2 + rng.randrange(3))
        return {key: _value(rng, 1) for key in keys}
    return [_value(rng, 1) for _ in range(2 + rng.randrange(3))]


def fault_of(rng: random.Random, text: str, fault: str) -> str | None:
    """The text with the named fault, or ``None`` when it has no place for it."""
    outside = outside_strings(text)
    if fault == "none":
        return text
    if fault == "closer_in":
        places = [i for i in range(1, len(text)) if outside[i] and outside[i - 1]]
        digits = [i for i in places if text[i - 1].isdigit() and text[i].isdigit()]
        if digits and rng.random() < 0.4:
            places = digits  # inside a number: the glued digits go on
        if not places:
            return None
        at = rng.choice(places)
        return text[:at] + rng.choice("}]") + text[at:]
    openers = [i for i, c in enumerate(text) if c in "[{" and outside[i]]
    if not openers:
        return None
    at = rng.choice(openers)
    if fault == "opener_lost":
        return text[:at] + text[at + 1 :]
    closer = "}" if text[at] == "{" else "]"
    return text[:at] + closer + text[at + 1 :]


def canonical(value: Any) -> str:
    """Equal for equal JSON, types included (``1``, ``1.0`` and ``True`` differ)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


@dataclass(frozen=True, slots=True)
class Case:
    """A reply, its fault and wrapper, and the values that count as right."""

    text: str
    fault: str
    wrapper: str
    original: Any
    allowed: frozenset[str]


def _strict(text: str) -> str | None:
    try:
        return canonical(json.loads(text))
    except ValueError:
        return None


def make_case(seed: int, index: int) -> Case:
    """Case ``index`` of the run seeded by ``seed``."""
    rng = random.Random(f"{seed}/{index}")  # noqa: S311 - seeded test data
    fault = FAULTS[index % len(FAULTS)]
    while True:
        value = original(rng)
        spaced = rng.random() < 0.5
        body = json.dumps(value, separators=(", ", ": ") if spaced else (",", ":"))
        faulty = fault_of(rng, body, fault)
        if faulty is not None:
            break
    wrapper = rng.choice(WRAPPERS)
    allowed = {canonical(value)}
    if wrapper == "lead":
        text = f"Here is the JSON:\n{faulty}"
    elif wrapper == "fence":
        text = f"```json\n{faulty}\n```"
    elif wrapper == "tail":
        tail = rng.choice(_TAILS)
        text = faulty + tail
        if tail == " [1]":  # a citation: a candidate of its own
            allowed.update(map(canonical, ([1], [value, [1]])))
    else:
        text = faulty
    read = _strict(faulty)
    if read is not None:
        allowed.add(read)  # the fault left JSON: its value is a reading
    return Case(text, fault, wrapper, value, frozenset(allowed))


def generate(seed: int, count: int) -> list[Case]:
    """``count`` cases, the faults in turn (a short run is a prefix of a long one)."""
    return [make_case(seed, index) for index in range(count)]


def judge(case: Case, answer: Any, *, failed: bool) -> str:
    """``right``, ``error`` or ``wrong`` (a value the reply does not allow)."""
    if failed:
        return "error"
    return "right" if canonical(answer) in case.allowed else "wrong"


Answer = tuple[Any, bool]
"""A value and whether the entry point failed (then the value is ``None``)."""


def _answer(call: Callable[[], Any]) -> Answer:
    try:
        result = call()
    except ValueError:  # OutputParserException, JsonRecoveryError
        return None, True
    name = type(result).__name__
    if name == "ReplyFailure":
        return None, True
    if name == "Extraction":
        return result.value, False
    if name == "AIMessage":
        calls = result.tool_calls
        return (calls[0]["args"], False) if calls else (None, True)
    return result, False


class Reader:
    """One tree's entry points, by name (``package``: that tree's package)."""

    def __init__(self, package: ModuleType) -> None:
        """Build the parsers and schemas once."""
        name = package.__name__
        self.extract = importlib.import_module(f"{name}._core.extract").extract
        schema = importlib.import_module(f"{name}._core.schema.validate").Schema
        self.schemas: dict[bool, Any] = {
            True: schema(dict[str, Any]),
            False: schema(list[Any]),
        }
        self.recover = package.recover_tool_calls
        fence = package.JsonFenceOutputParser
        trunc = package.TruncationRecoveringOutputParser
        self.parsers = {
            "fence_off": fence(repair=False),
            "fence_safe": fence(),
            "fence_on": fence(repair=True),
            "trunc_safe": trunc(),
            "trunc_on": trunc(repair=True),
        }

    def answers(self, case: Case) -> dict[str, Answer]:
        """Each entry point's answer to the case's reply."""
        text, out = case.text, {}
        schema = self.schemas[isinstance(case.original, dict)]
        extract = self.extract
        for repair in (False, "safe", True):
            for prefer in ("first", "last"):
                out[f"extract_{repair}_{prefer}"] = _answer(
                    partial(extract, text, repair=repair, prefer=prefer)
                )
            out[f"schema_{repair}"] = _answer(
                partial(extract, text, repair=repair, schema=schema)
            )
        out["extract_close"] = _answer(
            partial(extract, text, close_truncated=True, repair=False)
        )
        for name, parser in self.parsers.items():
            out[name] = _answer(partial(parser.parse, text))
        if isinstance(case.original, dict):
            for repair in ("safe", True):
                bad = {"name": "f", "args": text, "id": "c1"}
                message = AIMessage("", invalid_tool_calls=[bad])
                out[f"tool_args_{repair}"] = _answer(
                    partial(self.recover, message, repair=repair)
                )
        return out
