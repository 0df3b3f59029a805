"""A reply cut inside its one fenced block is read at once (issue 24).

``read_cut_fence`` hands ``extract`` the block's candidate when the reply's
only run of backticks opens it and nothing before it can hold JSON, so that
``extract`` skips the outer-fence guess, the candidate iterator and the
machinery that compares candidates. These tests show the answers are those
of the general reader (the shortcut off) at every cut of seeded replies:
compact and pretty JSON with escapes, non-ASCII text, big integers, surrogate
pairs, literals, empty containers and backticks in strings; in a fence alone,
after prose, after a ``<think>`` block, on one line, with other tags, glued to
a quote, after braces, quotes or backticks in the prose, after another block,
after call markup; at every ``repair`` level, with and without a token-limit
stop, a schema, ``prefer="last"``, and for the parser that does not close
cuts. The work is counted, never timed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover._core import extract as extract_module
from langchain_jsonrecover._core.candidates import cut_fence, find, read
from langchain_jsonrecover._core.candidates.cut_fence import lone_open_block
from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.decode import close as _close
from langchain_jsonrecover._core.decode.close import close_truncated
from langchain_jsonrecover._core.decode.cut_scan import cut_state, read_tail
from langchain_jsonrecover._core.decode.tolerant import decode
from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.reply import fences
from langchain_jsonrecover._core.reply.markup import prepare_reply
from langchain_jsonrecover._core.schema.validate import Schema

_DOCUMENT = {
    "id": 12345678901234567890123,
    "name": 'Zoë "Z" Ng \\ {name} [7]',
    "tags": ["a,b", "😀 (an escaped pair in the ASCII form)", "x: y"],
    "geo": {"lat": -1.5e10, "lon": 0.25},
    "ok": True,
    "none": None,
    "off": False,
    "empty": [{}, []],
    "note": "line\nbreak\ttab \u00e9\u4e2d",
}
_WITH_BACKTICKS = {"code": "run `ls` then ``x``", "n": [1, 2]}
_FORMS = [
    json.dumps(_DOCUMENT),
    json.dumps(_DOCUMENT, ensure_ascii=False, indent=2),
    json.dumps(_WITH_BACKTICKS),
    json.dumps([1, "two", {"three": [3.5, None]}]),
]
_HEADS = [
    "Here is the export you asked for:\n\n```json\n",
    "```json\n",
    "```\n",
    "````json\n",
    "Sure!\r\n  ```JSON\r\n",
    "```json ",  # a one-line block
    "Sure: ```json\n",
    "```python\n",  # another language: the prose is read instead
    '"```json\n',  # glued to a quote: a string's content
    "<think>\nThe user wants {id, name} in `json`.\n</think>\n\n```json\n",
    "Fields in {curly braces}:\n```json\n",
    'The "export":\n```json\n',
    "Use `jq` or ``x``:\n```json\n",
    '```json\n{"draft": 1}\n```\nNow the real one:\n```json\n',
    "[TOOL_CALLS]search[ARGS]```json\n",
    "<tool_call>\n```json\n",
    "<tool_call>f<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>```json\n",
    "Here:\n" + "`" * 20 + "json\n",  # a run longer than the shortcut reads
]


def _replies(stride: int) -> list[str]:
    replies: list[str] = []
    for form_index, form in enumerate(_FORMS):
        for head_index, head in enumerate(_HEADS):
            # Every cut of the compact document after the first three heads,
            # every ``stride``-th elsewhere (with the offset varied).
            step = 1 if form_index == 0 and head_index < 3 else stride
            text = head + form
            start = len(head) + 1 + (form_index + head_index) % step
            replies.extend(text[:cut] for cut in range(start, len(text) + 1, step))
            replies.append(text + "\n```\nDone.")
    return replies


class _Doc(BaseModel):
    id: int
    name: str = ""
    tags: list[str] = []
    ok: bool | None = None


_OPTIONS: list[dict[str, Any]] = [
    {"close_truncated": True, "repair": repair, "cut_off": cut_off}
    for repair in (False, "safe", True)
    for cut_off in (False, True)
] + [
    {"close_truncated": True, "schema": Schema(_Doc)},
    {"close_truncated": True, "prefer": "last"},
    {"close_truncated": True, "trim_runaway_newlines": True, "max_depth": 3},
    {"close_truncated": False},
]


def _answer(reply: str, options: dict[str, Any]) -> object:
    try:
        return extract(reply, **options)
    except Exception as exc:  # noqa: BLE001 - an exception is an answer to compare
        return type(exc), str(exc)


def _noting(real: Any, taken: list[int]) -> Any:
    """``real``, counting in ``taken[0]`` the replies it found a candidate in."""

    def noting(prepared: Any, scan: Scan) -> Any:
        found = real(prepared, scan)
        taken[0] += found is not None
        return found

    return noting


@pytest.mark.parametrize("options", _OPTIONS, ids=repr)
def test_every_cut_reads_as_the_general_reader_reads_it(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = _replies(stride=5)
    counted = [0]
    noting = _noting(cut_fence.lone_open_block, counted)
    monkeypatch.setattr(cut_fence, "lone_open_block", noting)
    new = [_answer(reply, options) for reply in replies]
    monkeypatch.setattr(extract_module, "read_cut_fence", lambda *_: None)
    old = [_answer(reply, options) for reply in replies]
    for reply, before, after in zip(replies, old, new, strict=True):
        assert after == before, reply
    (taken,) = counted
    if options["close_truncated"]:
        # Both paths are exercised: about two cuts in three take the
        # shortcut, the rest break one of its conditions.
        assert 0.3 * len(replies) < taken < 0.9 * len(replies), taken
    else:
        assert taken == 0


@pytest.mark.parametrize(
    "reply",
    [
        'Here:\n```json\n{"a": 1}\n```',  # closed
        'Here:\n```json\n{"a": 1}\n``',  # a backtick after the run
        'Here:\n```json\n{"a": "`"',  # a backtick in the body
        'Here "x":\n```json\n{"a": 1',  # a quote before the fence
        'See [1]:\n```json\n{"a": 1',  # a bracket before the fence
        '"```json\n{"a": 1',  # glued to a quote
        '\'```json\n{"a": 1',
        'Here:\n```xml\n{"a": 1',  # another language
        "Here:\n```json\n   ",  # an empty block
        "Here:\n```json json\n",
        (  # a call written as markup
            "<tool_call>f<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>\n"
            '```json\n{"a": 1'
        ),
        "x`",
        "",
    ],
)
def test_the_shortcut_leaves_other_replies_to_the_general_reader(reply: str) -> None:
    scan = Scan(200, close_truncated=True)
    prepared = prepare_reply(reply)
    if not prepared.tool_calls and "<tool_call>" in reply:
        pytest.fail("the markup case must hold a call written as markup")
    assert lone_open_block(prepared, scan) is None


def test_a_cut_fence_is_walked_once_and_not_compared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = {"outer_fence": 0, "find_fences": 0, "read_all": 0, "decode": 0}

    def counting(module: Any, name: str) -> None:
        real = getattr(module, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    counting(read, "outer_fence")
    counting(read, "find_fences")
    counting(cut_fence, "find_fences")
    counting(extract_module, "read_all")
    counting(find, "decode")
    assert fences.find_fences is not None  # the walk itself is unchanged
    reply = "Here is the export you asked for:\n\n```json\n" + _FORMS[0][:120]
    found = extract(reply, close_truncated=True)
    assert isinstance(found, Extraction)
    assert "truncation_closed" in found.repairs
    assert counts == {"outer_fence": 0, "find_fences": 1, "read_all": 0, "decode": 1}


_BLANKS = ["", " ", "\n  ", "\t\r\n", " " * 70]


@pytest.mark.parametrize("blanks", _BLANKS, ids=repr)
def test_the_tail_read_with_the_blanks_is_the_stripped_one(blanks: str) -> None:
    # The closing reads the tail from the text as the decoder had it (its
    # UTF-8 form cached), not from a copy without its trailing blanks.
    checked = 0
    for form in (*_FORMS, '{"k": "a\\\\", "v": "b\\"c \\u00e9'):
        for cut in range(1, len(form) + 1):
            stripped = form[:cut].rstrip(" \t\r\n")
            text = stripped + blanks
            ends = _close._Ends(text, stripped)
            assert ends._read() == read_tail(stripped), text
            assert ends.of(text) == _close._end_state(text), text
            for path in (False, True):
                assert ends.cut_state(path=path) == cut_state(stripped, path=path)
            checked += 1
    assert checked > 600


def test_a_fence_body_is_closed_from_the_string_the_decoder_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []
    real = close_truncated

    def noting(text: str, **options: Any) -> Any:
        seen.append(text)
        return real(text, **options)

    decoded: list[str] = []
    real_decode = decode

    def decoding(text: str, **options: Any) -> Any:
        decoded.append(text)
        return real_decode(text, **options)

    monkeypatch.setattr(find, "close_truncated", noting)
    monkeypatch.setattr(find, "decode", decoding)
    found = extract("Here:\n```json\n" + _FORMS[1][:150], close_truncated=True)
    assert isinstance(found, Extraction)
    assert len(seen) == len(decoded) == 1
    assert seen[0] is decoded[0]  # the same string: no copy to encode again


def _parsed(parser: Any, reply: str, reason: str) -> str:
    message = AIMessage(reply, response_metadata={"finish_reason": reason})
    try:
        return repr(parser.extract(message))
    except JsonRecoveryError as exc:
        return f"{type(exc).__name__}: {exc} {getattr(exc, 'truncated', None)}"


@pytest.mark.parametrize("reason", ["stop", "length"])
def test_the_parsers_answer_every_cut_as_the_general_reader_does(
    reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through the parsers as users call them: the truncation parser answers
    # each cut as it did with the shortcut off, and the default parser keeps
    # refusing each cut with the typed error that says it was cut.
    heads = _HEADS[:3] + _HEADS[9:10]
    replies = [
        head + form[:cut]
        for head in heads
        for form in _FORMS[:2]
        for cut in range(1, len(form), 3)
    ]
    closing = TruncationRecoveringOutputParser()
    taken = [0]
    with monkeypatch.context() as patch:
        noting = _noting(cut_fence.read_cut_fence, taken)
        patch.setattr(extract_module, "read_cut_fence", noting)
        new = [_parsed(closing, reply, reason) for reply in replies]
    assert taken[0] > 0.9 * len(replies)  # the shortcut answered them
    with monkeypatch.context() as patch:
        patch.setattr(extract_module, "read_cut_fence", lambda *_: None)
        old = [_parsed(closing, reply, reason) for reply in replies]
    assert new == old
    assert sum(answer.startswith("Extraction(") for answer in new) > 0.9 * len(new)
    default = JsonFenceOutputParser()
    for reply in replies:
        with pytest.raises(InvalidJsonError) as caught:
            default.extract(
                AIMessage(reply, response_metadata={"finish_reason": reason})
            )
        assert caught.value.truncated, reply
