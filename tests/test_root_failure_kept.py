"""A root the span finder failed to decode is not decoded again: the same answers.

The span finder hands a plainly-JSON root to the decoder from its opener to
the scan's limit; when that fails, the span it then finds for the root keeps
the failure when it spans that very text (``Span.failed``), and the
candidate reader fails the candidate with it instead of decoding the text a
second time (issue 24: the error of one slip). Checked here against the
decode it replaces: every span's candidate, and every entry point's value or
error, on seeded replies with one slip (the oracle's faults, the speed rows'
slips, scattered ones) and on replies that break the shortcut's assumption
(a span that ends before the limit, text after it, a fence, a broken span,
a nesting too deep, a cut). Work is counted, never timed.
"""

from __future__ import annotations

import pytest
from _entry_points import every_answer
from _slips import records, scattered, seeded_texts

from langchain_jsonrecover._core.candidates import find as candidates_find
from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.decode.tolerant import DecodeFailure, decode, stop_in
from langchain_jsonrecover._core.spans import find as spans_find
from langchain_jsonrecover._core.spans.find import find_spans
from langchain_jsonrecover._core.spans.frames import Frame
from langchain_jsonrecover._core.spans.kinds import JSON, Span

_DEEP = "[" * 201 + "]" * 201
_EDGES = (
    '{"a": 1,}',
    '{"a": 1,}\n',
    '  {"a": 1,}  ',
    '{"a": 1,} and more',
    'Here: {"a": 1,}',
    '{"a": 1,}\n```json\n{"b": 2}\n```',
    '```json\n{"a": 1,}\n```',
    '```\n{"a": 1,}\n```\nthen {"b": 2,}',
    '[{"a": 1}}',
    '{"a": 1]',
    '{"a": [1, 2}',
    '{"a": 1}}, "b": 2}',
    '{"a": 1} {"b": 2,}',
    '{"a": 1,} {"b": 2}',
    '{"a": 1,}, {"b": 2,}',
    "[1, 2,] [3]",
    '{"a": "x\ny"}',
    '{"a": "\\q"}',
    '{"a": 1, // note\n"b": 2}',
    "{\"a\": 'b'}",
    '{"a": 1,',
    '{"a": [1, 2,',
    '{"a": ' + _DEEP + ', "b": 1,}',
    '{"a": ' + _DEEP + "}",
    _DEEP + " ]",
    _DEEP + " x",
    '<think>{"a": 1,}</think>{"b": 2,}',
    '{"a": 1,}\ud800',
    '{":\n]"}"  \n"',  # the span ends before the limit: other failures
)


def _texts() -> list[str]:
    texts = list(_EDGES)
    for text in (*seeded_texts()[::3], *scattered(3, 20, seed=24)):
        texts.extend((text, text + "\n", "Sure: " + text + " Done."))
    texts.append(records(2)[:-3])  # a cut
    return texts


TEXTS = _texts()
ANSWERED = [*_EDGES, *TEXTS[len(_EDGES) :: 3]]
"""Every entry point is asked on these: the edge cases, a third of the rest."""


def _spans(text: str) -> list[Span]:
    stop = stop_in(text)
    return find_spans(
        text, 0, len(text), max_depth=200, budget=[4 * len(text)], stop=stop
    )


def test_a_span_that_keeps_its_failure_reads_as_its_decode() -> None:
    kept = 0
    for text in TEXTS:
        for span in _spans(text):
            if span.failed is None:
                continue
            kept += 1
            assert span.failed == decode(
                text[span.start : span.end], max_depth=200, allow_trailing=True
            )
            for step in ("raw", "prose"):
                read = candidates_find._read_span(text, span, step, (), Scan(200))
                again = span._replace(failed=None)
                assert read == candidates_find._read_span(
                    text, again, step, (), Scan(200)
                ), text
    assert kept > 200  # the seeded replies exercise the shortcut


def test_a_broken_span_too_deep_is_decoded_whole() -> None:
    """Read as a root that may go on, the text nests too deeply; read whole,
    it has text after its value: a broken span does not keep that failure."""
    text = _DEEP + " ]"
    as_root = decode(text, max_depth=200, allow_trailing=True)
    assert isinstance(as_root, DecodeFailure)
    assert as_root.kind == "too_deep"
    span = Span(0, len(text), True, False, False, broken=True)
    read = candidates_find._read_span(text, span, "raw", (), Scan(200))
    assert read.failure is not None
    assert read.failure.kind == "invalid_json"
    frame = Frame(0, "[", JSON, empty=False, mark=0, in_json=False, strings=True)
    frame.failed = (len(text), as_root)
    assert spans_find._failed(frame, len(text)) is as_root
    frame.broken = True
    assert spans_find._failed(frame, len(text)) is None


@pytest.mark.parametrize("part", range(2))
def test_every_entry_point_answers_as_with_the_second_decode(
    monkeypatch: pytest.MonkeyPatch, part: int
) -> None:
    for text in ANSWERED[part::2]:
        fast = every_answer(text)
        with monkeypatch.context() as patched:
            patched.setattr(spans_find, "_failed", lambda *_: None)
            slow = every_answer(text)
        assert fast == slow, text
