"""The repair levels read a reply's strict candidates first, at their own cost.

With ``repair="safe"`` (the default) or ``repair=True``, a reply whose JSON
decodes as it stands is answered by the strict candidates alone: no repair
is built, and a reply that is one whole JSON value (after a ``<think>``
block, blanked) is not repaired as one broken value first. The work is
counted (repairs built, texts handed to the repair pass), never timed; the
values are those of ``repair=False``, and the repair of such a reply as one
broken value finds nothing (so reading it first changed no answer).
"""

from __future__ import annotations

import itertools
import random
import re
from typing import TYPE_CHECKING, Any

import orjson
import pydantic
import pytest
from _json_values import SETTINGS, same_value
from hypothesis import given
from hypothesis import strategies as st

import langchain_jsonrecover._core.candidates.repair as repair_module
import langchain_jsonrecover._core.decode.tolerant as tolerant_module
import langchain_jsonrecover._core.extract as extract_module
from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.decode.skip import skip_string
from langchain_jsonrecover._core.decode.tolerant import escape_control_characters
from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.reply.markup import prepare_reply
from langchain_jsonrecover._core.reply.reasoning import _tags, think_bounds
from langchain_jsonrecover._core.strict_gate import may_be_one_broken_value

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_jsonrecover._core.levels import Repair

DOCUMENT: Any = {
    "id": 7,
    "name": "Zoë {x} [y]",
    "tags": ["a", "b"],
    "nested": {"ok": True, "n": None, "f": 1.5},
}
PRETTY = orjson.dumps(DOCUMENT, option=orjson.OPT_INDENT_2).decode()
CLEAN_REPLIES = {
    "fenced in prose": f"Here it is:\n```json\n{PRETTY}\n```\nFields in {{braces}}.",
    "after a think block": f"<think>\nIt is {{id, name}} [1].\n</think>\n\n{PRETTY}",
    "after a closed think tag": f"done</think>\n{PRETTY}\n",
    "prose then an object": f"The answer: {PRETTY} as asked.",
    "clean": PRETTY,
}
LEVELS: tuple[Repair, ...] = ("safe", True)


def _counting(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str
) -> dict[str, int]:
    """Count the calls of ``module.name``, which keeps working as before."""
    calls = {"n": 0}
    real: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", CLEAN_REPLIES)
def test_a_strict_value_builds_no_repair(
    monkeypatch: pytest.MonkeyPatch, name: str, level: Repair
) -> None:
    reply = CLEAN_REPLIES[name]
    strict = extract(reply, repair=False)
    built = _counting(monkeypatch, extract_module, "RepairPass")
    repaired = _counting(monkeypatch, repair_module, "repair_syntax")
    found = extract(reply, repair=level)
    assert isinstance(found, Extraction)
    assert isinstance(strict, Extraction)
    assert same_value(found.value, DOCUMENT)
    assert (found.span, found.step, found.repairs) == (
        strict.span,
        strict.step,
        strict.repairs,
    )
    assert built["n"] == 0
    assert repaired["n"] == 0


@pytest.mark.parametrize("level", LEVELS)
def test_a_broken_value_still_builds_its_repair(
    monkeypatch: pytest.MonkeyPatch, level: Repair
) -> None:
    """The counters see the work where there is some (the guard can fail)."""
    reply = "<think>x</think>\n" + PRETTY.replace('"b"', '"b",', 1)
    built = _counting(monkeypatch, extract_module, "RepairPass")
    repaired = _counting(monkeypatch, repair_module, "repair_syntax")
    found = extract(reply, repair=level)
    assert isinstance(found, Extraction)
    assert same_value(found.value, DOCUMENT)
    assert "trailing_comma_removed" in found.repairs
    assert built["n"] == 1
    assert repaired["n"] >= 1


@pytest.mark.parametrize(
    "reply",
    [
        '{"a": 1}\n]',  # a stray closer, or a lost opener: two readings
        "{'a': 1}",
        '"a": 1,\n"b": 2\n}',  # a brace prefilled
        '<think>x</think> {"a": 1,}',
        '{"a": 1}\u00a0',  # white space orjson does not take
    ],
)
def test_a_reply_not_one_whole_value_is_still_repaired_whole(reply: str) -> None:
    assert may_be_one_broken_value(prepare_reply(reply).text)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(alphabet=st.characters(codec="utf-8"), max_size=6),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@SETTINGS
@given(
    value=st.one_of(
        st.lists(json_values, max_size=4),
        st.dictionaries(st.text(max_size=6), json_values, max_size=4),
    ),
    pretty=st.booleans(),
    before=st.sampled_from(["", "  \n", "<think>{a} [b]</think>\n", "</think>"]),
)
def test_one_whole_value_is_read_as_it_stands(
    value: Any, *, pretty: bool, before: str
) -> None:
    """The claim the fast path rests on, and the same answer at every level."""
    option = orjson.OPT_INDENT_2 if pretty else 0
    reply = before + orjson.dumps(value, option=option).decode() + "\n"
    prepared = prepare_reply(reply)
    if may_be_one_broken_value(prepared.text):
        return  # the blanked reply is not one value (a tag read as data)
    scan = Scan(max_depth=200)
    assert repair_module.RepairPass(prepared, scan).repair_whole() is None
    strict = extract(reply, repair=False)
    for level in LEVELS:
        found = extract(reply, repair=level)
        assert type(found) is type(strict)
        if isinstance(found, Extraction) and isinstance(strict, Extraction):
            assert same_value(found.value, strict.value)
            assert (found.span, found.repairs) == (strict.span, strict.repairs)


# One pattern with both forms as alternatives: what the two patterns replace.
_ONE_PATTERN = re.compile(
    r"<(?=/?[tr])(/?)(think|thinking|reasoning)\s*>|(?-i:\[(/?)(THINK)\])",
    re.IGNORECASE,
)
_PIECES = (
    "<", ">", "/", "[", "]", " ", "\n", '"', "'", "{", "}", "a", "think", "THINK",
    "Thinking", "reasoning", "REASONING", "[THINK]", "[/THINK]", "[think]",
    "<think>", "</think>", "<THINK >", "</Reasoning\n>", "\u212a",
)  # fmt: skip


def test_the_tag_scan_finds_what_one_pattern_finds() -> None:
    rng = random.Random(24)  # noqa: S311 - a fixed seed, not a secret
    for _ in range(20_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 14)))
        expected = [m.span() for m in _ONE_PATTERN.finditer(text)]
        assert [m.span() for m in _tags(text)] == expected, text


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("[THINK]a</think>b[/THINK]{}", [(0, 25)]),
        ("<THINK>a</think>{}", [(0, 16)]),
        ("<think>a[/THINK]b</think>{}", [(0, 25)]),
    ],
)
def test_the_tag_names_pair_as_before(text: str, spans: list[tuple[int, int]]) -> None:
    assert think_bounds(text) == (spans, False)


# --- raw control characters: clean strings are skipped in C --------------------


def _escape_reference(text: str) -> tuple[str, list[int], list[int], int]:
    """What the escaper must give, found string by string the slow way.

    Each string's raw control characters are listed first, then escaped.
    """
    inside: list[int] = []
    dangling = -1
    pos = text.find('"')
    while pos >= 0:
        closed = skip_string(text, pos)
        end = len(text) if closed is None else closed
        raw = [i for i in range(pos + 1, end) if text[i] < " "]
        tail = text[raw[0] : end - 1] if raw else ""
        head = text[pos + 1 : raw[-1] + 1] if raw else ""
        if dangling < 0 and closed is not None and tail in {"\n", "\r\n"}:
            dangling = end - 2  # only a line break, right before the quote
        elif dangling < 0 and closed is not None and head in {"\n", "\r\n"}:
            dangling = pos + 1  # only a line break, right after the quote
        inside.extend(raw)
        pos = -1 if closed is None else text.find('"', end)
    short = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    escapes = [short.get(text[i], f"\\u{ord(text[i]):04x}") for i in inside]
    added = list(itertools.accumulate(len(escape) - 1 for escape in escapes))
    at = [i + grown for i, grown in zip(inside, added, strict=True)]
    bounds = [0, *(i + 1 for i in inside)]
    pieces = [text[lo : hi - 1] for lo, hi in itertools.pairwise(bounds)]
    out = "".join(p + e for p, e in zip(pieces, escapes, strict=True))
    return out + text[bounds[-1] :], at, added, dangling


_RAW_PIECES = ('"', '"', "\\", "\n", "\r", "\t", "\x01", "a", " ", "{", ":", ",")


def test_the_escaper_gives_what_a_string_by_string_read_gives() -> None:
    rng = random.Random(7)  # noqa: S311 - a fixed seed, not a secret
    for _ in range(20_000):
        text = "".join(rng.choice(_RAW_PIECES) for _ in range(rng.randrange(0, 14)))
        escaped = escape_control_characters(text)
        found = (escaped.text, escaped.at, escaped.added, escaped.dangling)
        assert found == _escape_reference(text), repr(text)


def test_the_escaper_reads_only_the_strings_with_a_control_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lost quote's reply: thousands of strings, one broken: one read in Python."""
    records = [{"city": f"Paris {i}", "note": 'say "hi"\\'} for i in range(2_000)]
    text = orjson.dumps(records, option=orjson.OPT_INDENT_2).decode()
    text = text.replace('"Paris 1000"', '"Paris 1000\n"', 1)
    reads = _counting(monkeypatch, tolerant_module, "skip_string")
    escaped = escape_control_characters(text)
    assert reads["n"] == 1
    assert escaped.text == text.replace("1000\n", "1000\\n", 1)


# --- the parser's schema, read without pydantic's private-attribute lookup -------


@pytest.mark.parametrize("schema", [None, {"type": "object"}])
def test_a_parse_reads_no_private_attribute_through_getattr(
    monkeypatch: pytest.MonkeyPatch, schema: Any
) -> None:
    """Pydantic's ``__getattr__`` raises and catches an exception a private read."""
    parser = JsonFenceOutputParser(pydantic_object=schema)
    looked_up = _counting(monkeypatch, pydantic.BaseModel, "__getattr__")
    assert parser.parse(CLEAN_REPLIES["fenced in prose"]) == DOCUMENT
    assert looked_up["n"] == 0
    assert parser._schema_read() is parser._schema
