"""A cut right after a closer is refused before any repair runs.

``cut_at_a_closer`` lets the repair pass skip a candidate that is strict JSON
cut right after a closer (its refusal: a cut there, or a closer lost before
it): no repair reads such a text, so the answer is the same refusal. These
tests hold the answer with the check equal to the answer without it, on
every cut position of seeded documents (compact, pretty, in an unclosed
fence, after a sentence; and with a slip before the cut), with and without
``finish_reason="length"``, at every repair level; and count the work.
"""

from __future__ import annotations

import json
import random
import re
from typing import TYPE_CHECKING, Any

import pytest
from _random_json import random_value
from langchain_core.messages import AIMessage

import langchain_jsonrecover._core.candidates.repair as repair_module
import langchain_jsonrecover._core.repair.syntax as syntax_module
from langchain_jsonrecover import JsonRecoveryError, TruncationRecoveringOutputParser
from langchain_jsonrecover._core.candidates.after_closer import cut_at_a_closer
from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.candidates.repair import RepairPass
from langchain_jsonrecover._core.repair import splice as splice_module
from langchain_jsonrecover._core.repair import walk as walk_module
from langchain_jsonrecover._core.reply.markup import prepare_reply

if TYPE_CHECKING:
    from langchain_jsonrecover._core.levels import Repair

# Strings that look like the repairs' triggers: escaped quotes before
# closers, brackets, comments, Python words, single quotes, a tuple, and
# quotes the pass reads as a string's end (the check leaves those alone).
_WORDS = (
    "a",
    "é€",
    "it's",
    "{x}",
    "[7]",
    'q"uote',
    'x\\"}',
    '"}]',
    "# not a comment",
    "// nor this",
    "True",
    "(1, 2)",
    "back\\slash",
    '", "k": 1',
    "\u201ccurly\u201d",
    "\uff02wide\uff02",
)
_SEEDS = (0, 9, 11, 13, 20, 29)
"""Documents of 100 to 400 characters, arrays and objects at the root."""
_LEVELS: tuple[Repair, ...] = (False, "safe", True)


def _document(seed: int) -> Any:
    rng = random.Random(seed)  # noqa: S311 - test data
    records = [
        {"id": i, "name": rng.choice(_WORDS), "data": random_value(rng, 2, _WORDS)}
        for i in range(rng.randrange(1, 4))
    ]
    return records if seed % 3 == 0 else {"records": records, "n": [1, {}]}


def _slipped(text: str) -> str:
    """The text with its first comma before a ``{`` dropped (a lost comma).

    No word holds a comma before a brace, so that comma is outside strings.
    """
    return re.sub(r",(?=\s*\{)", "", text, count=1)


def _replies(seed: int) -> list[str]:
    """Every cut of the document in each form, after its first character."""
    document = _document(seed)
    compact = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    pretty = json.dumps(document, indent=2, ensure_ascii=seed % 2 == 0)
    forms = [
        ("", compact),
        ("", pretty),
        ("Here is the export:\n\n```json\n", pretty),
        ("Sure. The JSON: ", compact),
        ("", _slipped(pretty)),
    ]
    return [
        head + body[:cut] for head, body in forms for cut in range(1, len(body) + 1)
    ]


def _answer(reply: str, repair: Repair, *, length: bool) -> str:
    """What the truncation parser gives: the extraction, or the error."""
    parser = TruncationRecoveringOutputParser(repair=repair)
    reason = "length" if length else "stop"
    message = AIMessage(reply, response_metadata={"finish_reason": reason})
    try:
        return repr(parser.extract(message))
    except JsonRecoveryError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("seed", _SEEDS)
def test_answers_are_those_of_the_repair_pass(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies = _replies(seed)
    settings = [(level, length) for level in _LEVELS for length in (False, True)]
    new = [_answer(r, lv, length=ln) for lv, ln in settings for r in replies]
    with monkeypatch.context() as patch:
        patch.setattr(repair_module, "refused_at_a_closer", lambda _text, _c: False)
        old = [_answer(r, lv, length=ln) for lv, ln in settings for r in replies]
    assert len(new) == len(old)
    for index, (got, want) in enumerate(zip(new, old, strict=True)):
        reply = replies[index % len(replies)]
        assert got == want, (settings[index // len(replies)], reply)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"a": {"b": 1}', True, id="after-an-inner-closer"),
        pytest.param("[1, [2]]  \n", False, id="whole-value"),
        pytest.param('{"a": [1]  \n ', True, id="spaces-after-the-closer"),
        pytest.param('{"p": "x\\"}', True, id="escaped-quote-then-closer"),
        pytest.param('{"a": 1}}', False, id="stray-closer"),
        pytest.param('{"a": 1 "b": {}', False, id="slip-before"),
        pytest.param('{"a": "\u201cb\u201d", "c": {}', False, id="curly-quotes"),
        pytest.param('{"a": {"b": 1', False, id="not-at-a-closer"),
        pytest.param("{'a': {'b': 1}", False, id="not-strict"),
    ],
)
def test_which_texts_are_cut_at_a_closer(text: str, expected: bool) -> None:
    assert cut_at_a_closer(text, 0) is expected


@pytest.mark.parametrize("seed", _SEEDS)
def test_no_reading_of_a_cut_at_a_closer_is_a_value(seed: int) -> None:
    """The argument of ``cut_at_a_closer``, checked on each text it takes.

    Every reading ``_repair_text`` makes (the syntax pass, tuples, the
    single-edit search, inner quotes) is ``None`` or runs out of text, which
    ``_repair_candidate`` drops for a reply that ends with a closer.
    """
    taken = 0
    for reply in _replies(seed):
        start = reply.find("```json\n")
        start = 0 if start < 0 else start + len("```json\n")
        if not reply[start:].startswith(("{", "[")):
            continue  # the prose form: its candidate starts later
        if not cut_at_a_closer(reply, start):
            continue
        taken += 1
        repairs = RepairPass(prepare_reply(reply), Scan(max_depth=200))
        for entities in (False, True):
            fixed = repairs._repair_text(start, entities=entities)
            assert fixed is None or fixed.truncated, reply
    assert taken or seed in {11, 29}  # those hold a curly quote: never taken


def test_a_cut_after_a_closer_runs_no_repair(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal costs no pass over the text (it ran three: splice, whole, quotes)."""
    real = walk_module.rewrite
    calls: list[int] = []

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(splice_module, "rewrite", counted)
    monkeypatch.setattr(syntax_module, "rewrite", counted)
    reply = json.dumps(_document(11), indent=2)
    closer = reply.rindex("}", 0, len(reply) - 1)
    for level in _LEVELS:
        with pytest.raises(JsonRecoveryError, match="right after a closer"):
            TruncationRecoveringOutputParser(repair=level).parse(reply[: closer + 1])
    assert calls == []
    # The same cut with a slip before it: the repair pass runs, as before.
    slipped = _slipped(reply)
    assert slipped != reply
    cut = slipped[: slipped.rindex("}", 0, len(slipped) - 1) + 1]
    with pytest.raises(JsonRecoveryError, match="expected ','"):
        TruncationRecoveringOutputParser(repair=True).parse(cut)
    assert calls
