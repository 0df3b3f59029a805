"""The cut scan (``_cut_scan.cut_state``): the token scan's answer, in less work.

``cut_state`` reads a cut text bracket to bracket and then only the innermost
open container's tokens; ``_cut_state_tokens`` reads every token. They must
agree on every text: every prefix of documents (each a cut), and garbage.
The work is counted (token searches), never timed.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from langchain_jsonrecover._core.decode import close as _close
from langchain_jsonrecover._core.decode import cut_scan as _cut_scan
from langchain_jsonrecover._core.decode.close import Closed, close_truncated
from langchain_jsonrecover._core.decode.cut_scan import (
    CutState,
    _cut_state_tokens,
    cut_state,
    read_tail,
)
from langchain_jsonrecover._core.decode.skip import skip_string

_DOCUMENTS = [
    '{"a": {"b": [1, {"c": "x\\"y", "d": [[], {}]}], "e": "z"}, "f": ["q", {"g": 1}]}',
    '[{"id": 1, "tags": ["x", "{y}"]}, {"id": 2, "note": "a\\\\"}, [true, null]]',
    '{"k": "]}", "l": {"m": {"n": ["[", "{", "\\u00e9"]}}, "o": -1.5e3}',
    # Closed containers without a bracket inside, commas in their strings.
    (
        '{"rows": [{"a": "x, y"}, {"b": [1, 2]}, ["p,q", "r"], {"c": {"d": 1}}],'
        ' "z": {"w": "}", "v": {"u": 0}, "t": ["[", 1]}}'
    ),
    json.dumps(
        {"items": [{"id": i, "name": f"n{i}", "ok": i % 2 == 0} for i in range(5)]},
        indent=2,
    ),
]
_PREFIXES = [doc[:cut] for doc in _DOCUMENTS for cut in range(len(doc) + 1)]
_ODD = [
    "",
    "]]}",
    '{"a"::',
    '{"a": "x":',
    '{"b": {"c": 1}:',
    "{:",
    '{"a", "b"',
    '[1, 2, {"a": 1}, ',
    '{"a": [1, 2], "b',
    '{"a": [1, 2], "b": ',
    '\\"{"a": 1',
    '{"a\\',
    '{"a": {"b": 1}, "c": 2}',
]


def _fields(state: CutState) -> tuple[object, ...]:
    return (state.string_start, state.key_start, state.scalar_start, state.outer)


@pytest.mark.parametrize("text", _PREFIXES + _ODD)
def test_the_cut_scan_agrees_with_the_token_scan(text: str) -> None:
    assert _fields(cut_state(text)) == _fields(_cut_state_tokens(text))


def test_the_cut_scan_agrees_on_random_garbage() -> None:
    rng = random.Random(24)  # noqa: S311 - a fixed seed, not a secret
    alphabet = '{}[]",:\\ a1'
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert _fields(cut_state(text)) == _fields(_cut_state_tokens(text)), text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"items": [{"a": 1}, {"b"', CutState(None, 22, 25, (("{", 1), ("[", 1)))),
        ('{"a": "x', CutState(6, None, 8)),
        ('{"a": [1, 2', CutState(None, None, 9)),
    ],
)
def test_the_cut_state(text: str, expected: CutState) -> None:
    assert cut_state(text) == expected


def _token_searches(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    searches = 0
    real = _cut_scan._STATE_TOKENS

    class Counting:
        def search(self, string: str, pos: int, endpos: int) -> object:
            nonlocal searches
            searches += 1
            return real.search(string, pos, endpos)

    with monkeypatch.context() as patch:
        patch.setattr(_cut_scan, "_STATE_TOKENS", Counting())
        cut_state(text)
    return searches


def _records(n: int) -> str:
    records = [{"id": i, "name": f"n{i}", "tags": ["a", "b"]} for i in range(n)]
    return json.dumps({"items": records})


@pytest.mark.parametrize(
    "cut_from_end", [len('n", "tags": ["a", "b"]}]}'), len('b"]}]}'), len("]}]}")]
)
def test_only_the_innermost_container_is_read_token_by_token(
    monkeypatch: pytest.MonkeyPatch, cut_from_end: int
) -> None:
    # Twice the records, the same token searches: the records before the cut
    # are passed bracket to bracket, in C.
    small, large = (_records(n)[:-cut_from_end] for n in (200, 400))
    assert _token_searches(monkeypatch, small) == _token_searches(monkeypatch, large)


def _long_record(n: int, *, pretty: bool) -> str:
    record = {f"k{i}": [i, "v{i}", True, None][i % 4] for i in range(n)}
    return json.dumps(
        {"items": [{"id": 0}, {**record, "last": "x"}]}, indent=pretty or None
    )


@pytest.mark.parametrize("pretty", [False, True])
@pytest.mark.parametrize("cut_at", ['"x', '"last": ', '"last"', '"la'])
def test_the_members_of_the_last_stretch_are_passed_whole(
    monkeypatch: pytest.MonkeyPatch, cut_at: str, *, pretty: bool
) -> None:
    # A record of 100 or 200 members cut in its last: its whole members
    # ``"key": value,`` are passed in one match, the same token searches.
    def cut(n: int) -> str:
        text = _long_record(n, pretty=pretty)
        return text[: text.rindex('"last"') + len(cut_at)]

    small, large = cut(100), cut(200)
    assert _fields(cut_state(large)) == _fields(_cut_state_tokens(large))
    assert _token_searches(monkeypatch, small) == _token_searches(monkeypatch, large)


def test_the_member_runs_read_as_the_token_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every open container of every prefix and odd text, read with the runs
    # of whole members and without them (a pattern that never matches): the
    # same fields, ``prev`` and the last key's colon included.
    rng = random.Random(7)  # noqa: S311 - a fixed seed, not a secret
    garbage = [
        "".join(
            rng.choice(['"k"', '"v"', ":", ",", " ", "1", "{", "\\"]) for _ in range(12)
        )
        for _ in range(500)
    ]
    texts = [*_PREFIXES, *_ODD, *("{" + text for text in garbage)]
    frames = [
        (text, frame)
        for text in texts
        for run in (_cut_scan._RUN, _cut_scan._RUN_FLAT)
        for frame in _cut_scan._open_frames(text, run)
    ]
    fast = [_cut_scan._replay(text, frame, frame.opener) for text, frame in frames]
    monkeypatch.setattr(_cut_scan, "_MEMBERS", re.compile("(?!)"))  # never
    steps = [_cut_scan._replay(text, frame, frame.opener) for text, frame in frames]
    assert fast == steps


def test_the_containers_around_are_read_in_their_last_stretch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A cut inside the last record's key: its path goes through the records'
    # list (its commas counted in C) and the root (its last stretch read).
    def cut_in_last_key(n: int) -> str:
        text = _records(n)
        return text[: text.rindex('"name"') + 3]

    small, large = (cut_in_last_key(n) for n in (200, 400))
    assert cut_state(small).outer == (("{", 1), ("[", 199))
    assert _token_searches(monkeypatch, small) == _token_searches(monkeypatch, large)


def test_closed_containers_without_brackets_are_passed_in_one_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Records with no container inside: the walk's steps do not grow with
    # their number (each is passed whole in C), and the cut reads as before.
    steps = 0
    real = _cut_scan._RUN_FLAT

    class Counting:
        def match(self, string: str, pos: int) -> re.Match[str] | None:
            nonlocal steps
            steps += 1
            return real.match(string, pos)

    def walked(n: int) -> int:
        nonlocal steps
        steps = 0
        flat = json.dumps({"rows": [{"id": i, "n": f"[{i}]"} for i in range(n)]})
        text = flat[: -len('"[9]"}]}')]
        with monkeypatch.context() as patch:
            patch.setattr(_cut_scan, "_RUN_FLAT", Counting())
            assert _fields(cut_state(text)) == _fields(_cut_state_tokens(text))
        return steps

    assert walked(200) == walked(400)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"a": {"b": "}', CutState(12, None, 14), id="closer in a string"),
        pytest.param(
            '{"a": [1, "x"], "b": ', CutState(None, 16, 20), id="after a list"
        ),
        pytest.param(
            '{"a": {"b": 1}, "c": {"d',
            CutState(22, 22, 24, (("{", 16),)),
            id="key after an object",
        ),
    ],
)
def test_the_last_stretch_reads_as_the_whole(text: str, expected: CutState) -> None:
    assert cut_state(text) == expected == _cut_state_tokens(text)


@pytest.mark.parametrize("after_closer", [False, True])
def test_a_cut_after_a_closer_is_refused_without_the_cut_state(
    monkeypatch: pytest.MonkeyPatch, *, after_closer: bool
) -> None:
    # Outside a string (read in C), the refusal needs nothing more; closing
    # the same text (the model said it was cut) reads the cut state once
    # (from the text's end, or by the walk).
    reads = 0

    def counted(text: str, *, path: bool = True) -> CutState:
        nonlocal reads
        reads += 1
        return cut_state(text, path=path)

    def counted_tail(text: str) -> tuple[CutState, int] | None:
        nonlocal reads
        reads += 1
        return read_tail(text)

    monkeypatch.setattr(_close, "cut_state", counted)
    monkeypatch.setattr(_close, "read_tail", counted_tail)
    result = close_truncated(
        _records(50)[: -len("]}")], max_depth=200, after_closer=after_closer
    )
    assert isinstance(result, Closed) is after_closer
    assert reads == int(after_closer)


def test_close_truncated_reads_the_cut_as_before() -> None:
    closed = close_truncated(_records(50)[: -len('b"]}]}')], max_depth=200)
    assert isinstance(closed, Closed)
    assert closed.value["items"][-1] == {"id": 49, "name": "n49", "tags": ["a", ""]}


# --- the end state (depth, and the string the text ends in) ---------------------


def _end_state_walked(text: str) -> tuple[int, int | None]:
    """The token walk ``_end_state`` replaced: one step per bracket and string."""
    depth = pos = 0
    while True:
        token = re.compile(r'[\[\]{}"]').search(text, pos)
        if token is None:
            return depth, None
        if token.group() == '"':
            closed_at = skip_string(text, token.start())
            if closed_at is None:
                return depth, token.start()
            pos = closed_at
            continue
        depth += 1 if token.group() in "[{" else -1
        pos = token.end()


@pytest.mark.parametrize("text", _PREFIXES + _ODD)
def test_the_end_state_agrees_with_the_token_walk(text: str) -> None:
    assert _close._end_state(text) == _end_state_walked(text)


def test_the_end_state_agrees_on_random_garbage() -> None:
    rng = random.Random(24)  # noqa: S311 - a fixed seed, not a secret
    alphabet = '{}[]",:\\ a1\né\0'
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert _close._end_state(text) == _end_state_walked(text), text


@pytest.mark.parametrize(
    ("head", "passes"),
    [
        pytest.param("", 0, id="bytes in C, no pattern"),
        pytest.param("\0", 2, id="an escape mark outside the strings: two patterns"),
    ],
)
def test_the_end_state_takes_a_fixed_number_of_passes(
    monkeypatch: pytest.MonkeyPatch, head: str, passes: int
) -> None:
    # Twice the records (twice the strings and brackets), the same number of
    # pattern calls: the strings are stepped over in C, none one by one.
    calls = 0

    class Counting:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def match(self, string: str) -> re.Match[str] | None:
            nonlocal calls
            calls += 1
            return self.pattern.match(string)

        def sub(self, repl: str, string: str) -> str:
            nonlocal calls
            calls += 1
            return self.pattern.sub(repl, string)

    def counted(text: str) -> int:
        nonlocal calls
        calls = 0
        with monkeypatch.context() as patch:
            for name in ("_CLOSED_STRINGS", "_STRING"):
                patch.setattr(_close, name, Counting(getattr(_close, name)))
            assert _close._end_state(text)[1] is not None
        return calls

    small, large = (head + _records(n)[: -len('b"]}]}')] for n in (200, 400))
    assert counted(small) == counted(large) == passes
