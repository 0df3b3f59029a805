"""JSON-like prose read without the walk or the decoder: the same answers.

Two shortcuts serve prose full of ``{key: value}`` (issue 24): the span
finder takes a flat object of bare keys at the top level in one C match
(``spans/flat.py``) instead of walking it, and the candidate reader
fails an object whose first key has no quote without decoding it
(``flat.bare_first_key``). Each is checked here against the path it
replaces, on seeded texts made of such objects, the near misses around them
(a digit, a quote, a literal, a comment, a nested bracket; a comma, a key or
a value after them) and real JSON, fences and ``<think>`` blocks: the same
spans, and the same value or error (kind, message, position) from every
entry point and repair level. Work is counted, never timed.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from _entry_points import every_answer

from langchain_jsonrecover._core.candidates import find as candidates_find
from langchain_jsonrecover._core.candidates import order as candidates_order
from langchain_jsonrecover._core.decode.tolerant import DecodeFailure, decode
from langchain_jsonrecover._core.extract import extract
from langchain_jsonrecover._core.found import ReplyFailure
from langchain_jsonrecover._core.spans import flat as spans_flat
from langchain_jsonrecover._core.spans.find import find_spans
from langchain_jsonrecover._core.spans.flat import (
    BARE_KEY_REASON,
    FLAT_BARE_OBJECT,
    bare_first_key,
)

if TYPE_CHECKING:
    from langchain_jsonrecover._core.spans.kinds import Span

_NEVER = re.compile(r"(?!)")

_FLAT = (
    "{name: Ada}",
    "{city: Paris, tags: [a, b]}",
    "{ _k : v w }",
    "{a: b: c}",
    "{Key: [x y], z: [q]}",
    "{\n  name: Ada,\n  age: thirty\n}",
    "{tags: [a:b], c: d}",
    "{True: yes}",
)
_NEAR = (
    "{a: [1, 2]}",
    "{a: []}",
    "{a: [true]}",
    "{a: [True]}",
    "{a: [None, x]}",
    "{a: [-1]}",
    '{a: "b"}',
    "{a: 'b'}",
    "{'a': b}",
    "{a}",
    "{a, b}",
    "{a: b // c}",
    "{a: b # c}",
    "{a: b/c}",
    "{a: b\\c}",
    "{a: {b: c}}",
    "{a: [b, [c]]}",
    "{a: [b, {c: d}]}",
    "{1: a}",
    "{é: b}",
    '{ name": 1}',
    "{a: b",
    "{\u00a0a: b}",
    "{\x0ba: b}",
    "{a: b\ud800}",
    "{tags [a: b]}",
    "{}",
)
_AFTER = (
    "",
    " ",
    ", ",
    "}",
    "]",
    '"',
    '", "k": 1}',
    "[",
    "{",
    " 1",
    " -",
    " true",
    " false]",
    " null",
    " trueish",
    "\n",
    ". ",
    " or ",
    ', "k": 2}',
    ", k: 3}",
)
_BEFORE = ("", '"key": ', "'key': ", "key: ", ": ", "Use ", "[", "{", "x, ")
_JSON = (
    '{"a": 1}',
    "[1, 2]",
    '{"a": [1, {"b": 2}]}',
    '{"a": 1,}',
    '{"a" 1}',
    '[{"a": 1}]',
    '{"a": "}"}',
)


def _piece(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.45:
        body = rng.choice(_FLAT)
    elif roll < 0.75:
        body = rng.choice(_NEAR)
    elif roll < 0.85:
        body = rng.choice(_JSON)
    elif roll < 0.9:
        body = "```json\n" + rng.choice(_JSON + _FLAT) + "\n```"
    elif roll < 0.95:
        body = "<think>" + rng.choice(_FLAT + _JSON) + "</think>"
    else:
        body = rng.choice(("it's", "a word", "\n\n", "x " * 3))
    return rng.choice(_BEFORE) + body + rng.choice(_AFTER)


def _texts(count: int, seed: int = 24) -> list[str]:
    rng = random.Random(seed)  # noqa: S311 - seeded test data, not secrets
    texts = []
    for _ in range(count):
        text = " ".join(_piece(rng) for _ in range(rng.randint(1, 6)))
        if rng.random() < 0.2:
            text = text[: rng.randint(0, len(text))]  # a cut
        texts.append(text)
    return texts


TEXTS = _texts(700)


def _spans(text: str, lo: int, hi: int) -> list[Span]:
    return find_spans(text, lo, hi, max_depth=200, budget=[2 * len(text) + 1024])


def test_the_flat_match_finds_the_spans_of_the_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[int] = []

    class Counted:
        def match(self, text: str, pos: int, endpos: int) -> re.Match[str] | None:
            found = FLAT_BARE_OBJECT.match(text, pos, endpos)
            if found is not None:
                taken.append(pos)
            return found

    for text in TEXTS:
        bounds = [(0, len(text)), (len(text) // 3, len(text)), (0, len(text) // 2)]
        for lo, hi in bounds:
            with monkeypatch.context() as patched:
                patched.setattr(spans_flat, "FLAT_BARE_OBJECT", Counted())
                fast = _spans(text, lo, hi)
            with monkeypatch.context() as patched:
                patched.setattr(spans_flat, "FLAT_BARE_OBJECT", _NEVER)
                walked = _spans(text, lo, hi)
            # The walk does not note a bare first key; where the match does,
            # it is where the decoder fails (bare_first_key, pinned below).
            assert [span._replace(bare=-1) for span in fast] == walked, (text, lo, hi)
            for span in fast:
                if span.bare >= 0:
                    assert span.bare == bare_first_key(text, span.start, span.end)
    assert len(taken) > 250  # the seeded texts exercise the shortcut


def test_the_shortcuts_give_the_answers_of_the_walk_and_the_decoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for text in TEXTS:
        fast = every_answer(text)
        with monkeypatch.context() as patched:
            patched.setattr(spans_flat, "FLAT_BARE_OBJECT", _NEVER)
            patched.setattr(candidates_find, "bare_first_key", lambda *_: -1)
            slow = every_answer(text)
        assert fast == slow, text


@pytest.mark.parametrize(
    "text",
    [
        "{a}",
        "{name: Ada}",
        "{ \t\r\n_k: 1",
        "{Z: [1, 2]}",
        "{a: b, 'c': \"d\"}",
        "{x: 1}, {y: 2}",
    ],
)
def test_a_bare_first_key_fails_where_and_as_the_decoder_says(text: str) -> None:
    failed = decode(text, max_depth=200, allow_trailing=True)
    assert isinstance(failed, DecodeFailure)
    assert (failed.kind, failed.message) == ("invalid_json", BARE_KEY_REASON)
    assert bare_first_key("ab" + text, 2, 2 + len(text)) == 2 + failed.pos


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', "{}", "[a]", "{1: a}", "{é: 1}", "{\u00a0a: 1}", "{a: \ud800}"],
)
def test_anything_else_is_left_to_the_decoder(text: str) -> None:
    assert bare_first_key(text, 0, len(text)) == -1


def test_json_like_prose_is_never_handed_to_the_decoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """benchmarks/_live.py's prose: no decode per brace, whatever its length."""
    unit = "Use {name: Ada} or {city: Paris, tags: [a, b]} as examples. "
    calls: list[int] = []
    real = orjson.loads

    def counted(data: Any) -> Any:
        calls.append(len(data))
        return real(data)

    def decoded(units: int) -> int:
        calls.clear()
        with monkeypatch.context() as patched:
            patched.setattr(orjson, "loads", counted)
            found = extract(unit * units, repair="safe")
        assert isinstance(found, ReplyFailure)
        return len(calls)

    assert decoded(50) == decoded(400)


def test_the_order_and_the_glue_read_in_c_are_those_of_the_loops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spans all objects in text order keep it; no glue found: no run built.

    Checked on the spans as found, reversed, and folded (runs merged at the
    end: out of text order), with and without the C reads.
    """
    fast_order = 0
    for text in TEXTS:
        found = candidates_order.find_prose_spans(text, 0, [], max_depth=200)
        folded, _ = candidates_order.fold_runs(text, found)
        for spans in (found, found[::-1], folded):
            raw = next((i for i, c in enumerate(text) if not c.isspace()), -1)
            for last in (False, True):
                fast = candidates_order.order_spans(text, spans, raw, last=last)
                with monkeypatch.context() as patched:
                    patched.setattr(
                        candidates_order, "_objects_in_text_order", lambda _: False
                    )
                    slow = candidates_order.order_spans(text, spans, raw, last=last)
                assert fast == slow, (text, last)
            fast_order += candidates_order._objects_in_text_order(spans)
            glued = candidates_order.glued_runs(text, spans)
            with monkeypatch.context() as patched:
                patched.setattr(candidates_order, "_any_glued", lambda *_: True)
                assert glued == candidates_order.glued_runs(text, spans), text
    assert fast_order > 300  # the seeded texts exercise the shortcut


def test_the_c_reads_give_the_answers_of_the_loops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for text in TEXTS[::3]:
        fast = every_answer(text)
        with monkeypatch.context() as patched:
            patched.setattr(candidates_order, "_objects_in_text_order", lambda _: False)
            patched.setattr(candidates_order, "_any_glued", lambda *_: True)
            slow = every_answer(text)
        assert fast == slow, text
