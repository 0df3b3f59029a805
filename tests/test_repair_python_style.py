"""The repair's fast path for Python-style JSON gives what the pass gives, or declines.

``_repair_python_style`` rewrites a candidate whose only faults are single
quotes and Python literals with a few C-level calls. It may answer only where
the pass (``_repair_pass``) would write the same ``Repaired``, field for field;
everywhere else it must decline, and the pass answers. Each test compares
:func:`repair` with the fast path against :func:`repair` without it.
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

import orjson
import pytest
from _corpora import CORPORA, MISSING, load_cases
from _counting import pass_steps_counted
from _oracle import generate
from _real_replies import load_real_cases

import langchain_jsonrecover._core.repair.python_style as fast_module
import langchain_jsonrecover._core.repair.syntax as repair_module
from langchain_jsonrecover._core.repair.python_style import rewrite_python_style
from langchain_jsonrecover._core.repair.syntax import Repaired, repair

if TYPE_CHECKING:
    from collections.abc import Iterator


SQ: Final = "single_quotes_replaced"
PY: Final = "python_literal_replaced"


@contextmanager
def pass_only() -> Iterator[None]:
    """Run :func:`repair` without its fast path: the pass alone, as before it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repair_module, "rewrite_python_style", lambda _text: None)
        yield


@pytest.fixture
def any_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the fast path take short candidates too (it leaves them to the pass)."""
    monkeypatch.setattr(fast_module, "_MIN_CHARS", 0)


def fields(result: Repaired | None) -> tuple[object, ...] | None:
    if result is None:
        return None
    return (result.text, result.repairs, result.truncated, result.end)


def by_pass(text: str) -> tuple[object, ...] | None:
    with pass_only():
        return fields(repair(text))


# (id, text, repaired text, repairs, end)
TAKEN: list[tuple[str, str, str, tuple[str, ...], int]] = [
    ("keys", "{'a':1,'b':2}", '{"a":1,"b":2}', (SQ,), 13),
    ("values_too", "{'a':'x','b':['y']}", '{"a":"x","b":["y"]}', (SQ,), 19),
    (
        "literals_only",
        '[True, False, None, "x"]',
        '[true, false, null, "x"]',
        (PY,),
        24,
    ),
    ("literal_first", "{\"a\":True,'b':1}", '{"a":true,"b":1}', (PY, SQ), 16),
    ("quote_first", "{'a':True}", '{"a":true}', (SQ, PY), 10),
    (
        "apostrophe_in_double_quotes_kept",
        "{'a':\"it's\",'b':\"'x'\"}",
        '{"a":"it\'s","b":"\'x\'"}',
        (SQ,),
        22,
    ),
    (
        "literal_words_in_double_quotes_kept",
        "{'a':\"True or None\"}",
        '{"a":"True or None"}',
        (SQ,),
        20,
    ),
    (
        "escapes_in_double_quotes_kept",
        '{\'a\':"q\\"\\\\",\'b\':"\\\\"}',
        '{"a":"q\\"\\\\","b":"\\\\"}',
        (SQ,),
        22,
    ),
    (
        "spaces_and_lines_kept",
        "{\n  'a' : [ 1 ,True ]\n}",
        '{\n  "a" : [ 1 ,true ]\n}',
        (SQ, PY),
        23,
    ),
    ("trailing_space_not_taken", "{'a':1}  \n", '{"a":1}', (SQ,), 7),
    ("empty_strings", "{'':''}", '{"":""}', (SQ,), 7),
    ("unicode_body", "{'ключ':'日本'}", '{"ключ":"日本"}', (SQ,), 13),
]


@pytest.mark.usefixtures("any_length")
@pytest.mark.parametrize(
    ("text", "expected", "repairs", "end"),
    [pytest.param(*row[1:], id=row[0]) for row in TAKEN],
)
def test_fast_path_takes_python_style(
    text: str, expected: str, repairs: tuple[str, ...], end: int
) -> None:
    assert rewrite_python_style(text) == (expected, repairs, end)
    assert fields(repair(text)) == by_pass(text) == (expected, repairs, False, end)


DECLINED: list[tuple[str, str]] = [
    ("trailing_comma", "{'a':1,}"),
    ("missing_comma", "{'a':1 'b':2}"),
    ("line_comment", "{'a':1 // one\n}"),
    ("hash_comment", "{'a':1} # done"),
    ("block_comment", "{'a':/* x */1}"),
    ("bare_key", "{'a':1, b:2}"),
    ("prose_after", "{'a':1} Hope this helps!"),
    ("second_value_after", "{'a':1} {'b':2}"),
    ("cut_in_value", "{'a':'b"),
    ("cut_in_double_quotes", "{'a':\"b"),
    ("cut_after_comma", "{'a':1,"),
    ("double_quote_in_single", "{'a':'say \"hi\"'}"),
    # Paired naively, the quotes would read ["x","y"]: the pass reads one string.
    ("single_quotes_around_double", "['x\", \"y']"),
    ("apostrophe_in_single", "{'a':'it's'}"),
    ("backslash_in_single", "{'a':'x\\n'}"),
    ("newline_in_single", "{'a':'x\ny'}"),
    ("tab_in_single", "{'a':'x\ty'}"),
    ("literal_word_in_single", "{'a':'None'}"),
    ("literal_inside_a_word", "{'a':xTrue}"),
    ("literal_as_key", "{True:'a'}"),
    ("typographic_in_double", '{\'a\':"x”, "b": 1}'),
    ("typographic_quotes", "{“a”: 'b'}"),
    ("nul_char", "{'a':'\x00'}"),
    ("escaped_json", '{\\"a\\": True}'),
    ("template_braces", "{{'a': True}}"),
    ("nan", "{'a':NaN}"),
    ("leading_zero", "{'a':01}"),
    ("unclosed", "{'a':[1,2}"),
    ("nothing_to_repair", '{"a":[1,true]}'),
]


@pytest.mark.usefixtures("any_length")
@pytest.mark.parametrize("text", [pytest.param(row[1], id=row[0]) for row in DECLINED])
def test_fast_path_declines_other_faults(text: str) -> None:
    assert rewrite_python_style(text) is None
    assert fields(repair(text)) == by_pass(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("{'a':1,'b':True}", id="short"),
        pytest.param('{"a":"' + "x" * 5000 + "\",'b':1}", id="sparse"),
        pytest.param(
            "[" + '{"a":1,"b":2,"c":3,"d":true},' * 150 + "True]", id="sparse_literal"
        ),
    ],
)
def test_fast_path_is_tried_only_where_it_pays(text: str) -> None:
    # A short candidate, or one with few faults for its length: the pass reads
    # it about as fast (the fast path would split it for nothing).
    assert rewrite_python_style(text) is None
    assert repair(text) is not None


def test_pass_takes_no_step_on_a_dense_reply() -> None:
    records = [
        {"id": i, "name": f"n{i}", "ok": i % 2 == 0, "tags": ["a"]} for i in range(300)
    ]
    rng = random.Random(1)  # noqa: S311 - a fixed seed, a reproducible check
    text = python_style(records, rng, quote=1.0, capitalise=1.0)
    with pass_steps_counted() as steps:
        result = repair(text)
        assert steps.calls == 0
        assert fields(result) == by_pass(text)
        assert steps.calls > len(records)  # the pass alone steps through every record
    assert result is not None
    assert orjson.loads(result.text) == records


# --- a differential check over replies of every kind ---------------------------------


def python_style(
    value: Any, rng: random.Random, quote: float, capitalise: float
) -> str:
    """``value`` as Python writes it, some strings and literals left as JSON's.

    A string is single-quoted as it stands (quotes, backslashes and line
    breaks inside included), so that some must be declined.
    """
    if isinstance(value, dict):
        members = (
            f"{python_style(k, rng, quote, capitalise)}:{rng.choice(['', ' '])}"
            f"{python_style(v, rng, quote, capitalise)}"
            for k, v in value.items()
        )
        return "{" + rng.choice([",", ", ", ",\n  "]).join(members) + "}"
    if isinstance(value, list):
        return (
            "["
            + ", ".join(python_style(v, rng, quote, capitalise) for v in value)
            + "]"
        )
    if isinstance(value, str) and rng.random() < quote:
        return f"'{value}'"
    if (value is None or isinstance(value, bool)) and rng.random() < capitalise:
        return repr(value)
    return orjson.dumps(value).decode()


NOISE: Final[tuple[str, ...]] = (
    *"'\"\\,:{}[] \n#/“”Tt0.-",
    "True",
    "None",
    "//",
    "/*",
    "\\n",
    "\xa0",
    "'''",
    " thanks",
)


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with a character dropped, added or changed, or cut."""
    i = rng.randrange(len(text) + 1)
    kind = rng.randrange(4)
    if kind == 0:
        return text[:i] + text[i + 1 :]
    if kind == 1:
        return text[:i] + rng.choice(NOISE) + text[i:]
    if kind == 2:
        return text[:i] + rng.choice(NOISE) + text[i + 1 :]
    return text[: max(i, 1)]


def sources() -> Iterator[tuple[Any, str]]:
    """Values (``None`` when unknown) and replies: real, the peers', the oracle's."""
    for case in load_real_cases():
        yield case.expected, case.input
    if not MISSING:
        for corpus_case in load_cases(CORPORA):
            yield corpus_case.expected, corpus_case.input
    for seed in (1, 2):
        for oracle_case in generate(seed, 150):
            yield oracle_case.original, oracle_case.reply
            yield None, oracle_case.payload


def candidates(text: str) -> Iterator[str]:
    """What the repair is handed: the text from each of its first brackets."""
    starts = [i for i, char in enumerate(text[:2000]) if char in "{["]
    for start in starts[:4]:
        yield text[start:]


@pytest.mark.usefixtures("any_length")
def test_fast_path_and_pass_agree_on_every_field() -> None:
    rng = random.Random(13)  # noqa: S311 - a fixed seed, a reproducible check
    texts: list[str] = []
    styled: list[str] = []
    for value, reply in sources():
        texts.extend(candidates(reply))
        if isinstance(value, dict | list):
            for quote, capitalise in ((1.0, 1.0), (0.5, 0.5)):
                styled.append(python_style(value, rng, quote, capitalise))
    texts += styled
    for _ in range(3000):
        mutated = mutate(rng.choice(styled), rng)
        texts.append(mutated if mutated[:1] in "{[" else "{" + mutated)
    taken = 0
    for text in texts:
        with_fast_path = fields(repair(text))
        assert with_fast_path == by_pass(text), text
        taken += rewrite_python_style(text) is not None
    assert taken > len(texts) // 10  # the check reached the fast path's answers
