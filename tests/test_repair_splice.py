"""A slip inside one object: the pass runs over that object, spliced back.

``repair`` finds the innermost object open where orjson stopped, repairs it
alone and decodes the spliced text once. Its answer must be the whole pass's
on every text: seeded documents (records nested in arrays and objects,
pretty or compact, strings with quotes, escapes, brackets and non-ASCII),
each with one or two slips of many kinds, and the oracle's faulted replies,
compared with the pass alone. The work is counted, never timed.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import orjson
import pytest
from _oracle import FIXED_SEED, generate
from _random_json import random_value

import langchain_jsonrecover._core.repair.syntax as syntax_module
from langchain_jsonrecover._core.decode.tolerant import loads_within, stop_in
from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.repair import splice as splice_module
from langchain_jsonrecover._core.repair import walk as walk_module
from langchain_jsonrecover._core.repair.syntax import Repaired, repair

_WORDS = ("a", "é€", "it's", "{x}", "[7]", 'q"uote', "back\\slash", "x,", '", "k": 1')
_SLIPS = (
    "lost comma",
    "trailing comma",
    "python literal",
    "bare key",
    "lost bracket",
    "lost quote",
    "extra comma",
    "lost colon",
)


def _document(rng: random.Random) -> str:
    records = [
        {"id": i, "name": rng.choice(_WORDS), "data": random_value(rng, 1, _WORDS)}
        for i in range(rng.randrange(1, 6))
    ]
    document: Any = records if rng.random() < 0.5 else {"records": records, "n": 1}
    indent = 2 if rng.random() < 0.6 else None
    return json.dumps(document, indent=indent, ensure_ascii=rng.random() < 0.2)


def _outside(text: str) -> list[int]:
    """Offsets of the structural characters (outside strings)."""
    return _walk(text)[0]


def _walk(text: str) -> tuple[list[int], bool]:
    """Those offsets (each string's opening quote too), and whether it ends in a string."""
    places, inside, escaped = [], False, False
    for i, char in enumerate(text):
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
            places.append(i)
        else:
            places.append(i)
    return places, inside


def _slipped(rng: random.Random, text: str, slip: str) -> str:
    places = _outside(text)
    at = rng.choice(places)
    if slip == "lost comma":
        pick = [i for i in places if text[i] == ","]
    elif slip == "trailing comma":
        pick = [i for i in places if text[i] in "]}"]
        if pick:
            at = rng.choice(pick)
            return text[:at] + "," + text[at:]
    elif slip == "python literal":
        for word, python in (("true", "True"), ("false", "False"), ("null", "None")):
            at = text.find(": " + word)
            if at >= 0:
                return text[: at + 2] + python + text[at + 2 + len(word) :]
        return text
    elif slip == "bare key":
        at = text.find('"name"')
        return text if at < 0 else text[:at] + "name" + text[at + 6 :]
    elif slip == "lost bracket":
        pick = [i for i in places if text[i] in "]}"]
    elif slip == "lost quote":
        pick = [i for i in places if text[i] == '"']
    elif slip == "extra comma":
        return text[:at] + "," + text[at:]
    else:
        pick = [i for i in places if text[i] == ":"]
    if not pick:
        return text
    at = rng.choice(pick)
    return text[:at] + text[at + 1 :]


def _texts(count: int) -> list[str]:
    rng = random.Random(2412)  # noqa: S311 - seeded test data, not secrets
    texts = []
    for _ in range(count):
        text = _document(rng)
        for _ in range(1 if rng.random() < 0.8 else 2):
            text = _slipped(rng, text, rng.choice(_SLIPS))
        texts.append(text + rng.choice(["", "\n", " prose after"]))
    return texts


def _wholly(text: str, monkeypatch: pytest.MonkeyPatch) -> Repaired | None:
    with monkeypatch.context() as patch:
        patch.setattr(syntax_module, "_spliced", lambda *_: None)
        return repair(text)


def test_the_splice_reads_as_the_whole_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    spliced = 0
    resumed: list[bool] = []
    within = walk_module.rewrite_within

    def resuming(*args: Any) -> Any:
        found = within(*args)
        resumed.append(found is not None and not found[1])
        return found

    monkeypatch.setattr(splice_module, "rewrite_within", resuming)
    for text in _texts(900):
        stop = stop_in(text)
        found = repair(text)
        assert found == _wholly(text, monkeypatch), text
        assert repair(text, stopped=stop) == found, text
        if stop is not None and splice_module.repair_object(text, stop) is not None:
            spliced += 1
            assert found is not None
            assert found.value
            assert found.value[0] == loads_within(found.text, 2000)[0]
    assert spliced >= 250, spliced  # the splice answered many, not none
    # Of them, objects with a guess, read by the pass resumed at the object.
    assert sum(resumed) >= 200, sum(resumed)


def _skeleton_walk(text: str, start: int) -> str | None:
    """The brackets open at ``start``, token by token in Python (``None``: in a string)."""
    places, inside = _walk(text[:start])
    stack: list[str] = []
    for char in (text[at] for at in places):
        if char in "[{":
            stack.append(char)
        elif char in "]}":
            stack.pop()
    return None if inside else "".join(stack)


def test_the_containers_open_at_an_object_are_read_in_c() -> None:
    seen = 0
    rng = random.Random(24)  # noqa: S311 - seeded test data, not secrets
    for _ in range(200):
        text = _document(rng)
        for found in re.finditer("{", text):
            walked = _skeleton_walk(text, found.start())
            if walked is None:
                continue  # a brace in a string: no object opens there
            got = splice_module.open_at(text, found.start())
            assert got is None or got == walked, (text, found.start())
            seen += got is not None
    assert seen > 500, seen


def test_the_oracle_replies_read_as_the_whole_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spliced = 0
    for case in generate(FIXED_SEED, 1500):
        starts = [i for i in (case.reply.find("{"), case.reply.find("[")) if i >= 0]
        if not starts:
            continue
        text = case.reply[min(starts) :]
        stop = stop_in(text)
        assert repair(text) == _wholly(text, monkeypatch), text
        if stop is not None and splice_module.repair_object(text, stop) is not None:
            spliced += 1
    assert spliced >= 20, spliced


@pytest.mark.parametrize(
    ("text", "why"),
    [
        pytest.param('{"a": {"b": 1 "c": 2}, "d": 3', "cut after", id="cut"),
        pytest.param('{"a": {"b": 1 "c": 2}} note', "prose", id="prose after"),
        pytest.param('{"a": {"b": 1 "c": 2}, "d": 3 "e": 4}', "two", id="two slips"),
        pytest.param('{"a": {"b": "x" y"}, "d": 3}', "guess", id="a guessed quote"),
        pytest.param('[{"b": 1 "c": 2}]', "root", id="the object is the root's item"),
        pytest.param('{"b": 1 "c": 2}', "root", id="the object is the root"),
        pytest.param('[1 2, {"a": 1}]', "no object", id="the slip in an array"),
    ],
)
def test_what_the_splice_leaves_to_the_whole_pass(text: str, why: str) -> None:
    stop = stop_in(text)
    assert stop is not None
    found = splice_module.repair_object(text, stop)
    if why == "root" and text.startswith("["):
        assert found is not None  # an item of the root array is spliced
    else:
        assert found is None, why


@pytest.mark.parametrize(
    ("slip", "named"),
    [("lost comma", "comma_inserted"), ("lost bracket", "bracket_fixed_guessed")],
)
def test_a_slip_walks_one_record(
    slip: str, named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # However many records, the pass reads the one with the slip; a guessed
    # bracket twice (alone, then resumed in its containers).
    def walked(records: int) -> int:
        document = [
            {"id": f"{i:05}", "tags": ["a", "b"], "at": {"x": 1, "y": [2, {"z": 3}]}}
            for i in range(records)
        ]
        text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
        middle = text.index(f'"id": "{records // 2:05}"')
        at = text.index("," if slip == "lost comma" else "]", middle)
        text = text[:at] + text[at + 1 :]
        seen = 0
        real, within = walk_module.rewrite, walk_module.rewrite_within

        def counted(part: str, *args: Any, **kwargs: Any) -> Any:
            nonlocal seen
            found = real(part, *args, **kwargs)
            seen += len(part) if found is None else found[2]  # characters read
            return found

        def resumed(part: str, start: int, *args: Any) -> Any:
            nonlocal seen
            found = within(part, start, *args)
            seen += (len(part) if found is None else found[2]) - start
            return found

        with monkeypatch.context() as patch:
            patch.setattr(splice_module, "rewrite", counted)
            patch.setattr(splice_module, "rewrite_within", resumed)
            patch.setattr(syntax_module, "rewrite", counted)
            fixed = repair(text)
        assert fixed is not None
        assert fixed.repairs == (named,)
        return seen

    small, large = walked(10), walked(1000)
    assert small == large  # one record's characters, at either size
    assert large < (200 if slip == "lost comma" else 400)


def _records_with(slip: str, records: int) -> str:
    document = [
        {"id": f"{i:05}", "tags": ["a", "b"], "at": {"x": 1, "y": [2, {"z": 3}]}}
        for i in range(records)
    ]
    text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
    middle = text.index(f'"id": "{records // 2:05}"')
    if slip == "lost comma":
        comma = text.index(",", middle)
        return text[:comma] + text[comma + 1 :]
    end = text.index("}", middle)  # after the innermost object's last member
    return text[:end].rstrip() + "," + text[end:]


@pytest.mark.parametrize("slip", ["lost comma", "trailing comma"])
def test_a_slip_costs_two_decodes_of_the_reply(
    slip: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The strict read fails once; its stop is passed down (no second failing
    # decode of the whole), and the repaired text is decoded once, its value
    # kept for the answer. Checks on short slices around the stop are all the
    # rest, as many at either size.
    def decoded(records: int) -> tuple[int, int, int]:
        text = _records_with(slip, records)
        calls = chars = 0
        real = orjson.loads

        def counted(data: Any) -> Any:
            nonlocal calls, chars
            calls += 1
            chars += len(data)
            return real(data)

        with monkeypatch.context() as patch:
            patch.setattr(orjson, "loads", counted)
            found = extract(text, repair=True)
        assert isinstance(found, Extraction), found
        return calls, chars, len(text)

    small, large = decoded(10), decoded(1000)
    assert small[0] == large[0]
    assert large[1] <= 2 * large[2] + 1000  # the reply twice, and short slices
