"""Replies one slip makes of a known value, and each entry point's answer to them.

``benchmarks/fuzz_readings.py`` runs these at scale (``--seed``, ``--count``);
``test_slip_readings.py`` runs a seeded slice. An original (nested objects whose
inner objects repeat the root's keys, big integers and digits beside brackets,
arrays of objects and scalars, values of any shape) is written compactly or
spaced; :func:`slips` makes every reply one slip gives: a closer too many at
every place between tokens, each closer, opener, quote and comma lost. A
:class:`Reader` reads a reply through ``extract`` at repair ``"safe"`` and
``True``, without a schema and with the root's (``dict[str, Any]``,
``list[Any]``, a pydantic model of the object's keys), and as a tool call's
arguments. The intended value, the reply's own value where the slip left strict
JSON, or an error: anything else is a wrong value.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from _json_text import structural
from langchain_core.messages import AIMessage
from pydantic import ConfigDict, create_model

from langchain_jsonrecover import recover_tool_calls
from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.schema.validate import Schema

if TYPE_CHECKING:
    import random
    from collections.abc import Iterator

_TOOL: Final = {
    "name": "f",
    "description": "A tool.",
    "parameters": {"type": "object", "properties": {}},
}
_BIG: Final = (10**20, -(10**25), 12345678901234567890123)
WRAPS: Final = ("{}", "Result:\n{}\n\nDone.")
ERROR: Final = "error"


def canonical(value: Any) -> str:
    """Equal for equal JSON, types included (``1``, ``1.0`` and ``True`` differ)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


def _leaf(rng: random.Random) -> Any:
    return rng.choice((1, 20, 0, 3.5, "x", "1]", "a}", None, True, rng.choice(_BIG)))


def _nested(rng: random.Random, keys: list[str], depth: int) -> Any:
    """An object whose keys repeat from level to level (false-start lookalikes)."""
    if depth > 2 or rng.random() < 0.3:
        return _leaf(rng) if rng.random() < 0.6 else [_leaf(rng) for _ in range(2)]
    count = 1 + rng.randrange(3)
    return {keys[k]: _nested(rng, keys, depth + 1) for k in range(count)}


def _any(rng: random.Random, depth: int) -> Any:
    """A value of any shape, its keys distinct (``fuzz_shortcuts`` covers markup)."""
    roll = rng.random()
    if depth > 2 or roll < 0.4:
        return _leaf(rng)
    if roll < 0.7:
        keys = rng.sample(("a", "b", "c", "name", "tags", "x y"), 1 + rng.randrange(3))
        return {key: _any(rng, depth + 1) for key in keys}
    return [_any(rng, depth + 1) for _ in range(rng.randrange(4))]


def make_original(rng: random.Random) -> Any:
    """An original value of the kinds the guessing repairs meet."""
    roll = rng.random()
    if roll < 0.4:
        keys = rng.sample(("data", "a", "b", "next", "id"), 3)
        value = _nested(rng, keys, 0)
        return value if isinstance(value, dict) else {keys[0]: value}
    if roll < 0.55:
        return [{"a": _leaf(rng)}, _leaf(rng), [_leaf(rng)], _leaf(rng)]
    value = _any(rng, 0)
    return value if isinstance(value, (dict, list)) and value else [value]


def dumped(rng: random.Random, value: Any) -> str:
    if rng.random() < 0.5:
        return json.dumps(value, separators=(",", ":"))
    return json.dumps(value)


def slips(text: str) -> Iterator[tuple[str, str]]:
    """Every reply one slip makes of ``text``: its name and the text."""
    for at, char in structural(text):
        if char in '{}[]",':
            yield f"lost{char}", text[:at] + text[at + 1 :]
        if at and char in ',}]"' and text[at - 1] not in "[{,: ":
            for closer in "}]":
                yield f"extra{closer}", text[:at] + closer + text[at:]


def strict(text: str) -> str | None:
    try:
        return canonical(json.loads(text))
    except (ValueError, RecursionError):
        return None


class Reader:
    """The entry points, each with its schemas built once per original."""

    def __init__(self, value: Any) -> None:
        """Schemas for ``value``'s shape: as the root is, and a model of its keys."""
        self.schemas: dict[str, Schema] = {}
        if isinstance(value, dict):
            self.schemas["dict"] = Schema(dict[str, Any])
            if value and all(key.isidentifier() for key in value):
                fields: dict[str, Any] = dict.fromkeys(value, (Any, ...))
                model = create_model(
                    "Model", __config__=ConfigDict(extra="forbid"), **fields
                )
                self.schemas["model"] = Schema(model)
        elif isinstance(value, list):
            self.schemas["list"] = Schema(list[Any])
        self.tool = isinstance(value, dict)

    def answers(self, reply: str, body: str) -> Iterator[tuple[str, str]]:
        """Each entry point's name and its answer (canonical value, or ``error``)."""
        for repair in ("safe", True):
            for name, schema in (("none", None), *self.schemas.items()):
                try:
                    found = extract(reply, repair=repair, schema=schema)
                except Exception as exc:  # noqa: BLE001 - a crash is a finding
                    yield f"{name}_{repair}", f"crash {exc!r}"
                    continue
                if not isinstance(found, Extraction):
                    yield f"{name}_{repair}", ERROR
                    continue
                value = found.value
                if hasattr(value, "model_dump"):
                    value = value.model_dump()
                yield f"{name}_{repair}", canonical(value)
        if self.tool:
            message = recover_tool_calls(
                AIMessage(f"[TOOL_CALLS]f[ARGS]{body}"), [_TOOL]
            )
            calls = message.tool_calls
            yield "tool", canonical(calls[0]["args"]) if len(calls) == 1 else ERROR


class Verdict(NamedTuple):
    """One entry point's answer to one slip of an original."""

    slip: str
    entry: str
    verdict: str
    """``right``, ``error`` or ``wrong``."""
    reply: str
    answer: str
    intended: str


def verdicts(rng: random.Random, *, only: str = "") -> Iterator[Verdict]:
    """Every answer to the slips of one seeded original (``only``: slips named so)."""
    value = make_original(rng)
    reader = Reader(value)
    intended = canonical(value)
    text = dumped(rng, value)
    for slip, body in slips(text):
        reply = rng.choice(WRAPS).replace("{}", body)
        if only and slip not in only.split(","):
            continue
        allowed = {intended, strict(body)}
        for entry, answer in reader.answers(reply, body):
            verdict = "right" if answer in allowed else "wrong"
            if answer == ERROR:
                verdict = "error"
            yield Verdict(slip, entry, verdict, reply, answer, intended)
