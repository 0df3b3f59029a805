"""The cut state read from the text's end (``cut_scan.tail_state``).

``tail_state`` must give the token scan's fields (``outer`` aside) on every
text it settles, and settle none it cannot: a backslash outside the strings,
containers closed deeper than its passes, a ``:`` after no key. With it on
or off, and with the removed member's path read or not (only a schema reads
it), every cut of several documents parses to the same value or the same
error. The work is counted (pattern calls), never timed.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel

from langchain_jsonrecover import TruncationRecoveringOutputParser
from langchain_jsonrecover._core.candidates import find as _find
from langchain_jsonrecover._core.decode import close as _close
from langchain_jsonrecover._core.decode import cut_scan as _cut_scan
from langchain_jsonrecover._core.decode.close import close_truncated
from langchain_jsonrecover._core.decode.cut_scan import (
    CutState,
    _cut_state_tokens,
    cut_state,
    read_tail,
    tail_state,
)
from langchain_jsonrecover.errors import JsonRecoveryError

if TYPE_CHECKING:
    from collections.abc import Iterator

_RECORD = {"id": 7, "name": 'Zoë "Z" Ng', "tags": ["a,b", "{c}", "[d]"], "ok": None}
_DOCUMENTS = [
    json.dumps({"items": [_RECORD, {**_RECORD, "id": 8}], "note": "x\\y: {z}"}),
    json.dumps({"items": [_RECORD], "note": '\u00e9\\"]}'}, indent=2),
    '{"a": {"b": [1, {"c": "x\\"y", "d": [[], {}]}], "e": "z"}, "f": ["q", {"g": 1}]}',
    '[{"id": 1, "tags": ["x", "{y}"]}, {"id": 2, "note": "a\\\\"}, [true, null]]',
    # Closers then words inside strings, at several depths.
    '{"items": [{"id": 1, "name": "/tmp}]} Please confirm.", "tags": ["]}]} ok"]}]}',
]
_PREFIXES = [doc[:cut] for doc in _DOCUMENTS for cut in range(len(doc) + 1)]
# Texts that break what the tail reading assumes, and texts at its edges.
_BREAKING = [
    '\\"{"a": 1',  # a backslash outside the strings
    '{"a": 1} \\\\ {"b": "x',
    "\0" + '{"a": "x',
    '{"a": 1, : ',  # a ':' after no key
    '{"a": "x": ',  # a ':' after a string value
    '{"b": {"c": 1}:',
    "{:",
    "[" * 30 + "]" * 29 + '{"k": 1, "j',  # closed deeper than the passes
    '{"a": ' + "[" * 25 + "]" * 25 + ', "b": 2',
    '{"a": ' + " " * 300 + "12",  # the last token far before the end
    '{"a": "' + "x" * 500,
    '{"k": "' + '\\"' * 40 + '", "v": ',  # escaped quotes before the key's end
    '{"k": "\\\\", "v": "\\\\\\"',
    ']]} {"a": \'x\', "b": 1',
    '{"a": 1 /* c */, "b',
    "",
    "   ",
    "12",
]


def _fields(state: CutState) -> tuple[object, ...]:
    return (state.string_start, state.key_start, state.scalar_start)


def _garbage(seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)  # noqa: S311 - a fixed seed, not a secret
    alphabet = [*'{}[]",: a1\n\\', '\\"', "\\\\", "\u00e9", "'", "/", "\0", " " * 70]
    alphabet += ["9" * 70, "[[" * 13, "]]" * 13, '"k": ', '"v", ']
    for _ in range(count):
        yield "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))


@pytest.mark.parametrize("text", _PREFIXES + _BREAKING)
def test_the_tail_agrees_with_the_token_scan(text: str) -> None:
    tail = tail_state(text)
    tokens = _cut_state_tokens(text)
    if tail is not None:
        assert _fields(tail) == _fields(tokens)
        assert tail.outer == ()
        # Its depth and string start are the end state's, blanks after or not.
        ends = read_tail(text.rstrip())
        assert ends is not None
        assert (ends[1], ends[0].string_start) == _close._end_state(text)
    assert cut_state(text) == tokens
    assert _fields(cut_state(text, path=False)) == _fields(tokens)


def test_the_tail_agrees_on_random_garbage() -> None:
    settled = 0
    for text in _garbage(24, 20_000):
        tail = read_tail(text)
        if tail is not None:
            settled += 1
            assert _fields(tail[0]) == _fields(_cut_state_tokens(text)), text
            assert (tail[1], tail[0].string_start) == _close._end_state(text), text
    assert settled > 5_000  # the check has something to check


@pytest.mark.parametrize(
    "text",
    [
        '\\"{"a": 1',
        "\0" + '{"a": "x',
        '{"a": 1, : ',
        '{"a": "x": ',
        "[" * 30 + "]" * 29 + '{"k": 1, "j',
    ],
)
def test_the_tail_leaves_what_it_cannot_settle_to_the_walk(text: str) -> None:
    assert tail_state(text) is None


@pytest.mark.parametrize("text", _PREFIXES + _BREAKING)
def test_the_walk_alone_still_agrees(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    # With the tail reading off, the bracket walk answers every text.
    monkeypatch.setattr(_cut_scan, "tail_state", lambda _text: None)
    assert cut_state(text) == _cut_state_tokens(text)
    assert _fields(cut_state(text, path=False)) == _fields(_cut_state_tokens(text))


def _records(n: int) -> str:
    records = [
        {"id": i, "name": f"n{i}", "geo": {"lat": 1.5}, "tags": ["a", "b"]}
        for i in range(n)
    ]
    return json.dumps({"items": records})


@pytest.mark.parametrize(
    "cut_from_end",
    [len('"b"]}]}'), len('b"]}]}'), len("]}]}"), len('.5}, "tags": ["a", "b"]}]}')],
)
def test_the_tail_reads_a_fixed_number_of_patterns(
    monkeypatch: pytest.MonkeyPatch, cut_from_end: int
) -> None:
    # Twice the records, the same pattern calls and passes: the records
    # before the cut are read in C, whole.
    calls = 0
    real = _cut_scan._LAST_TOKEN

    class Counting:
        def search(self, string: str, pos: int, endpos: int) -> object:
            nonlocal calls
            calls += 1
            return real.search(string, pos, endpos)

    def counted(n: int) -> int:
        nonlocal calls
        calls = 0
        text = _records(n)[:-cut_from_end]
        with monkeypatch.context() as patch:
            patch.setattr(_cut_scan, "_LAST_TOKEN", Counting())
            assert tail_state(text) is not None
        return calls

    assert 0 < counted(200) == counted(400)


class _Item(BaseModel):
    id: int = 0
    name: str = ""
    tags: list[str] = []
    ok: bool | None = None


class _Doc(BaseModel):
    items: list[_Item] = []
    note: str = ""


def _forms(document: str) -> list[str]:
    value = json.loads(document)
    return [
        json.dumps(value),
        json.dumps(value, indent=2, ensure_ascii=False),
        "Here it is:\n```json\n" + json.dumps(value, indent=2),
    ]


def _answer(
    parser: TruncationRecoveringOutputParser[Any], text: str, *, cut_off: bool
) -> object:
    metadata = {"finish_reason": "length"} if cut_off else {}
    message = AIMessage(content=text, response_metadata=metadata)
    try:
        found = parser.parse_result([ChatGeneration(message=message)])
    except JsonRecoveryError as error:
        return (type(error).__name__, str(error), error.observation)
    return ("value", found)


def _answers(schema: type[BaseModel] | None, repair: object) -> list[object]:
    parser = TruncationRecoveringOutputParser(pydantic_object=schema, repair=repair)
    return [
        _answer(parser, form[:cut], cut_off=cut_off)
        for document in (*_DOCUMENTS[:2], _DOCUMENTS[-1])
        for form in _forms(document)
        for cut in range(1, len(form) + 1)
        for cut_off in (False, True)
    ]


@pytest.mark.parametrize("repair", [False, "safe", True])
@pytest.mark.parametrize("schema", [None, _Doc])
def test_every_cut_parses_as_with_the_walk_and_the_path(
    monkeypatch: pytest.MonkeyPatch, schema: type[BaseModel] | None, repair: object
) -> None:
    # Every cut of compact, pretty and fenced documents, with and without a
    # token-limit stop: the same value or error with the tail reading on, and
    # with it off and the removed member's path read whatever the schema.
    fast = _answers(schema, repair)

    def with_path(*args: Any, **kwargs: Any) -> object:
        return close_truncated(*args, **{**kwargs, "key_path": True})

    for module in (_cut_scan, _close):
        monkeypatch.setattr(module, "read_tail", lambda _text: None)
    monkeypatch.setattr(_find, "close_truncated", with_path)
    assert fast == _answers(schema, repair)
