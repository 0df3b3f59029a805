"""A value's lead is read only when the text before it may hold a label (issue 24).

``rival_of_example`` asks whether the chosen value's lead (``lead_of``: its
line, else the lines above, fence markers dropped) ends in a format label.
Finding the lead costs a third of decoding a 300-byte reply, and most replies
hold no label word at all before their value: ``_may_be_labelled`` answers
``False`` for them from the text before the value, casefolded, and from the
fence markers in it (a dropped marker can join two halves of a word). These
tests show it never answers ``False`` where the lead is a label (on seeded
texts built to break it: label words split by markers, tags, blanks, CRLF,
tildes, letters that fold to ASCII, heads longer than the checked window),
that ``rival_of_example`` answers as it did without the test, and that the
common fenced reply is answered without reading its lead.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pytest
from test_lone_fence import OPTIONS, _replies

from langchain_jsonrecover._core.candidates import placeholder
from langchain_jsonrecover._core.candidates.mention import lead_of
from langchain_jsonrecover._core.candidates.placeholder import (
    _may_be_labelled,
    is_example,
    rival_of_example,
)
from langchain_jsonrecover._core.extract import extract

if TYPE_CHECKING:
    from collections.abc import Iterator

SEEDS = range(30)
TEXTS_PER_SEED = 200

PIECES = (
    "Format", "format", "for", "mat", "exam", "ple", "e.", "g.", "e.g.", "sam",
    "Sample", "sche", "ma", "temp", "late", "expec", "ted", "output", "is",
    "Output", "Here", "is", "the", "export", "you", "asked", ":", "json",
    "JSON", "in", "requested", "\u017fample", "\u212aey", "tilde", "{x}", "[1]",
    "<think>", "</think>", '"quoted"', "answer", "Answer:", "looks", "like",
)  # fmt: skip
MARKERS = ("```", "````", "```json", "```JSON ", "``` ", "```\t", "~~~", "``", "`")
BLANKS = (" ", " ", "", "\t", "\n", "\n", "\r\n", "\n\n", "  ")
SPLIT_LABELS = (
    ("for", "mat"), ("Output for", "mat"), ("exam", "ple"), ("e", ".g."),
    ("Sam", "ple output"), ("sche", "ma"), ("temp", "late"), ("Expec", "ted"),
)  # fmt: skip
"""Label words cut in two, so that only a dropped marker joins them."""
VALUES = ('{"n": "a"}', '{"name": "Ada", "n": 2}', "[1, 2]")
AFTER = ("", '\nAnswer: {"n": "b"}', '\n```json\n{"n": "c"}\n```', "\n[3]")


def _text(rng: random.Random) -> tuple[str, int, int]:
    """A head of pieces, markers and blanks, a value (often fenced), a tail."""
    parts = []
    for _ in range(rng.randrange(0, 16)):
        roll = rng.random()
        if roll < 0.25:
            parts.append(rng.choice(MARKERS))
        elif roll < 0.35:
            parts.append("word " * rng.randrange(100, 140))  # past the window
        else:
            parts.append(rng.choice(PIECES))
        parts.append(rng.choice(BLANKS))
    if rng.random() < 0.6:
        parts.append(
            rng.choice(("```json", "```", "```JSON")) + rng.choice(("\n", "\r\n"))
        )
    if rng.random() < 0.3:  # a lead whose label a dropped marker joins
        first, second = rng.choice(SPLIT_LABELS)
        marker = rng.choice(MARKERS) + rng.choice(("", " ", "\t"))
        parts.append(f"{first}{marker}{second}:{rng.choice(BLANKS)}")
    head = "".join(parts)
    value = rng.choice(VALUES)
    text = head + value + rng.choice(("\n```", "")) + rng.choice(AFTER)
    return text, len(head), len(head) + len(value)


def _texts() -> Iterator[tuple[str, int, int]]:
    for seed in SEEDS:
        rng = random.Random(seed)  # noqa: S311 - seeded test data
        for _ in range(TEXTS_PER_SEED):
            yield _text(rng)


def test_no_label_is_missed() -> None:
    skipped = 0
    for text, start, _ in _texts():
        if not _may_be_labelled(text, start):
            skipped += 1
            assert not is_example(lead_of(text, start)), text
    # Both answers are drawn: the test skips many leads, and reads others,
    # some of them labels that only a dropped marker joins.
    assert 0.1 * len(SEEDS) * TEXTS_PER_SEED < skipped
    assert skipped < 0.9 * len(SEEDS) * TEXTS_PER_SEED
    joined = [
        text
        for text, start, _ in _texts()
        if not placeholder._may_hold_label_word(text[:start])
        and is_example(lead_of(text, start))
    ]
    assert len(joined) > 10


def test_rivals_are_those_found_without_the_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = list(_texts())
    new = [rival_of_example(t, (s, e), max_depth=64) for t, s, e in texts]

    def always(_text: str, _start: int) -> bool:
        return True

    monkeypatch.setattr(placeholder, "_may_be_labelled", always)
    old = [rival_of_example(t, (s, e), max_depth=64) for t, s, e in texts]
    assert new == old
    assert any(r is not None for r in new)


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_answers_equal_with_the_test_off(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The seeded fenced replies of test_lone_fence (labels and values before
    # and after the block, two fences, tildes, CRLF, tags, <think> blocks,
    # markup tokens in strings), at every repair level, prefer and a schema.
    replies = sorted(set(_replies()))
    new = [_answer(reply, options) for reply in replies]

    def always(_text: str, _start: int) -> bool:
        return True

    monkeypatch.setattr(placeholder, "_may_be_labelled", always)
    old = [_answer(reply, options) for reply in replies]
    for reply, before, after in zip(replies, old, new, strict=True):
        assert after == before, reply


def _answer(reply: str, options: dict[str, Any]) -> Any:
    try:
        return extract(reply, **options)
    except Exception as exc:  # noqa: BLE001 - an exception is an answer to compare
        return type(exc), str(exc)


@pytest.mark.parametrize(
    "reply",
    [
        'Output for``` mat:\n```json\n{"n": "a"}\n```\nAnswer: {"n": "b"}',
        'e``` .g.:\n```json\n{"n": "a"}\n```\nAnswer: {"n": "b"}',
        'Sam```\tple:\r\n```json\r\n{"n": "a"}\r\n```\r\nAnswer: {"n": "b"}',
        'Output \u017fchema:\n```json\n{"n": "a"}\n```\nAnswer: {"n": "b"}',
    ],
    ids=["format split by a marker", "e.g. split", "sample split, CRLF", "long s"],
)
def test_a_label_joined_over_a_marker_is_read(reply: str) -> None:
    start = reply.index('{"n": "a"}')
    assert is_example(lead_of(reply, start))
    assert _may_be_labelled(reply, start)


def test_the_common_fenced_reply_reads_no_lead(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Any] = []

    def counted(text: str, start: int) -> str:
        reads.append(start)
        return lead_of(text, start)

    monkeypatch.setattr(placeholder, "lead_of", counted)
    reply = (
        "Here is the export you asked for:\n\n```json\n"
        '{"records": [{"id": 1, "name": "Zo\u00eb"}]}\n```\n\n'
        "Fields in {curly braces} are placeholders; see [1] for the format."
    )
    assert extract(reply).value == {"records": [{"id": 1, "name": "Zo\u00eb"}]}
    assert reads == []
    labelled = reply.replace("Here is the export", "An example of the export")
    assert extract(labelled).value == {"records": [{"id": 1, "name": "Zo\u00eb"}]}
    assert len(reads) == 1
