"""A reply whose one fenced block is its only candidate is answered at once (issue 24).

``read_candidates`` hands ``extract`` the candidate itself when the text is
read from its outer fence guess and the block holds nothing after its value
(and no tool call is written as markup). Without a schema and with
``prefer="first"`` there is then nothing to compare, so ``extract`` checks the
value (``recheck``) and returns it, without the machinery that chooses among
candidates. These tests show the answers are those of the general path (the
shortcut off: the candidates always handed over as an iterator) on seeded
replies built around a fence: prose with braces or values before and after,
two fences, a broken body, a ``<think>`` block, tildes, language tags, labels
and placeholders, a reply opening with a quote or a key, call markup; at
every ``repair`` level and both ``prefer`` values, with and without a schema.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel

from langchain_jsonrecover._core import extract as extract_module
from langchain_jsonrecover._core.candidates import choice
from langchain_jsonrecover._core.candidates.kinds import Candidate
from langchain_jsonrecover._core.candidates.read import iter_candidates, read_candidates
from langchain_jsonrecover._core.extract import Extraction, ReplyFailure, extract
from langchain_jsonrecover._core.schema.validate import Schema

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_jsonrecover._core.candidates.kinds import Scan
    from langchain_jsonrecover._core.reply.markup import Prepared

SEEDS = range(12)
REPLIES_PER_SEED = 120

BEFORE = (
    "",
    "Here is the export you asked for:\n\n",
    "Sure! ",
    "Format:\n",
    "Output format:\n",
    "For example:\n",
    "Reply in the requested format:\n",
    'Draft {"a": 1} then:\n',
    "See [1] and {curly} braces.\n",
    "<think>\nThe user wants {id, name}.\n</think>\n\n",
    "[THINK]plan {x}[/THINK]\n",
    '"quoted" start\n',
    '"a": 1}\n',
    'name": "x"}\n',
    'Answer: {"a": 1, "b" 2}\n',
    "[TOOL_CALLS]search[ARGS]",
    "<tool_call>\n",
    '~~~\n{"t": 1}\n~~~\n',
    "    ",
)
AFTER = (
    "",
    "\n\nFields in {curly braces} are placeholders; see [1] for the format.",
    '\nAnswer: {"sentiment": "positive"}',
    '\n{"name": "Ada", "n": 2}',
    '\n```json\n{"b": 2}\n```',
    "\n```\n[1, 2]\n```",
    "\n```python\nprint('x')\n```",
    "\n</tool_call>",
    "<|im_end|>",
    " Anything else?",
    "\n[2.5, 0.1]",
)
TAGS = ("json", "JSON", "jsonc", "json5", "", "python", "xml", "json ")
BODIES = (
    '{"name": "Ada", "n": 2}',
    '{"name": "...", "n": 0}',
    '{"name": "<name>"}',
    '{"sentiment": "neutral", "summary": "ok"}',
    "[1, 2, 3]",
    '{"a": {"b": [1, {"c": "x ``` y"}]}}',
    '{"a": 1,}',
    '{"a": 1}\n{"b": 2}',
    '{"a": 1} trailing note',
    '{"a": 1}]',
    '{"a": "line\nbreak"}',
    '{"a": 1',
    'json\n{"a": 1}',
    '{"note": "[THINK] inside [/THINK]", "t": "<think>"}',
    '{"big": 123456789012345678901234}',
    '"just a string"',
    "",
    '{"name": "Ada", "name": "Bob"}',
    '{"tool": "search", "args": {"q": "x"}}',
)
FENCES = (("```", "```"), ("````", "````"), ("~~~", "~~~"), ("```", ""), ("```", "`"))


class Person(BaseModel):
    name: str
    n: int = 0


def _reply(rng: random.Random) -> str:
    if rng.random() < 0.5:  # a well-formed block: the shortcut's own ground
        opening, closing = "```", "```"
        newline = rng.choice(("\n", "\r\n"))
    else:
        opening, closing = rng.choice(FENCES)
        newline = rng.choice(("\n", "\n", "\r\n", " ", ""))
    body = rng.choice(BODIES)
    indent = rng.choice(("", "", "  "))
    fence = f"{indent}{opening}{rng.choice(TAGS)}{newline}{body}{newline}{closing}"
    return rng.choice(BEFORE) + fence + rng.choice(AFTER) + rng.choice(AFTER)


def _replies() -> Iterator[str]:
    for seed in SEEDS:
        rng = random.Random(seed)  # noqa: S311 - seeded test data
        for _ in range(REPLIES_PER_SEED):
            yield _reply(rng)


def _general(prepared: Prepared, scan: Scan) -> Iterator[Candidate]:
    """The shortcut off: the same candidates, never handed over alone."""
    return iter_candidates(prepared, scan)


def _answers(reply: str, options: dict[str, Any]) -> Any:
    try:
        return extract(reply, **options)
    except Exception as exc:  # noqa: BLE001 - an exception is an answer to compare
        return type(exc), str(exc)


OPTIONS = [
    {"repair": repair, "prefer": prefer}
    for repair in (False, "safe", True)
    for prefer in ("first", "last")
] + [
    {"repair": "safe", "schema": Schema(Person)},
    {"repair": True, "close_truncated": True},
    {"repair": False, "max_depth": 2},
]


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_answers_equal_with_the_shortcut_off(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = sorted(set(_replies()))
    taken = 0
    real = read_candidates
    lone: list[bool] = []

    def noting(prepared: Prepared, scan: Scan) -> Any:
        read = real(prepared, scan)
        lone.append(isinstance(read, Candidate))
        return read

    new = []
    monkeypatch.setattr(extract_module, "read_candidates", noting)
    for reply in replies:
        lone.clear()
        new.append(_answers(reply, options))
        taken += any(lone)
    monkeypatch.setattr(extract_module, "read_candidates", _general)
    old = [_answers(reply, options) for reply in replies]
    for reply, before, after in zip(replies, old, new, strict=True):
        assert after == before, reply
    # Both paths are exercised: some replies are one lone block (about one
    # in six), most are not.
    assert 0.1 * len(replies) < taken < 0.9 * len(replies)


LONE = [
    'Here is the export you asked for:\n\n```json\n{"a": [1, 2]}\n```\n\nBye {x}.',
    '```\n{"a": 1}\n```',
    'Sure!\r\n  ```JSON\r\n  {"a": 1}\r\n  ```\r\n',
]


@pytest.mark.parametrize("reply", LONE)
@pytest.mark.parametrize("repair", [False, "safe", True])
def test_a_lone_block_is_not_compared_with_anything(
    reply: str, repair: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = choice.read_all

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(extract_module, "read_all", counted)
    found = extract(reply, repair=repair)
    assert isinstance(found, Extraction)
    assert found.value == ({"a": [1, 2]} if "[1, 2]" in reply else {"a": 1})
    assert calls == []


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ('Format:\n```json\n{"n": "a"}\n```\nAnswer: {"n": "b"}', "a labelled format"),
        ('```json\n{"name": "..."}\n```\nHere: {"name": "Ada"}', "a placeholder"),
    ],
)
def test_a_lone_block_is_still_checked_for_a_rival(reply: str, why: str) -> None:
    found = extract(reply)
    assert isinstance(found, ReplyFailure)
    assert found.kind == "invalid_json", why
    assert "two readings" in found.reason
