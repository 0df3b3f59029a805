"""Adversarial review of issue 21's schema reading and candidate choice.

Each row is a reply that came back as a wrong value before its fix, with the
value it says or the error it must raise, fed through the parsers and
``structured_output`` over a scripted model (one attempt).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import GenericFakeChatModel
from pydantic import BaseModel, ConfigDict

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    RetryExhaustedError,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
    structured_output,
)
from langchain_jsonrecover._core.schema.keys import unit_stem


class Config(BaseModel):
    retries: int
    timeout: int = 30


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")

    retries: int
    timeout: int = 30


class Job(BaseModel):
    name: str
    config: Config


@dataclass(frozen=True)
class Raises:
    """The reply must raise a schema error whose message holds ``says``."""

    says: str


def _fence(target: Any, reply: str) -> Any:
    return JsonFenceOutputParser(pydantic_object=target).parse(reply)


def _fence_last(target: Any, reply: str) -> Any:
    return JsonFenceOutputParser(pydantic_object=target, prefer="last").parse(reply)


def _repair(target: Any, reply: str) -> Any:
    return JsonFenceOutputParser(pydantic_object=target, repair=True).parse(reply)


def _truncation(target: Any, reply: str) -> Any:
    return TruncationRecoveringOutputParser(pydantic_object=target).parse(reply)


def _structured(target: Any, reply: str) -> Any:
    model = GenericFakeChatModel(messages=iter([reply]))
    try:
        return structured_output(model, target, max_retries=0).invoke("Answer.")
    except RetryExhaustedError as exc:
        cause = exc.__cause__
        raise cause if isinstance(cause, SchemaValidationError) else exc from exc


ENTRY_POINTS = {
    "fence": _fence,
    "fence_last": _fence_last,
    "fence_repair": _repair,
    "truncation": _truncation,
    "structured_output": _structured,
}


def _check(entry: str, target: Any, reply: str, expected: Any) -> None:
    run = ENTRY_POINTS[entry]
    if not isinstance(expected, Raises):
        assert run(target, reply) == expected
        return
    with pytest.raises(SchemaValidationError) as caught:
        run(target, reply)
    assert expected.says in str(caught.value)


def _rows(rows: list[tuple[str, Any, str, Any]]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(
        ("target", "reply", "expected"),
        [row[1:] for row in rows],
        ids=[row[0] for row in rows],
    )


every_entry = pytest.mark.parametrize("entry", list(ENTRY_POINTS))

_MEANT = "did you mean 'timeout'?"

# A unit suffix spelt as a near spelling of a key is spelt (any case, `-`,
# `_` or a space before it; camelCase in either case) still names the unit:
# the default would stand for the reply's value. Before: timeout=30.
UNIT_SPELLINGS: list[tuple[str, Any, str, Any]] = [
    ("dash", Config, '{"retries": 3, "timeout-ms": 500}', Raises(_MEANT)),
    ("space", Config, '{"retries": 3, "timeout ms": 500}', Raises(_MEANT)),
    ("upper_snake", Config, '{"retries": 3, "TIMEOUT_MS": 500}', Raises(_MEANT)),
    ("upper_suffix", Config, '{"retries": 3, "timeout_MS": 500}', Raises(_MEANT)),
    ("camel_upper_suffix", Config, '{"retries": 3, "timeoutMS": 500}', Raises(_MEANT)),
    ("dashed_seconds", Config, '{"retries": 3, "timeout-Seconds": 5}', Raises(_MEANT)),
    ("extra_allow", Loose, '{"retries": 3, "TIMEOUT_SECONDS": 5}', Raises(_MEANT)),
    (
        "nested",
        Job,
        '{"name": "a", "config": {"retries": 3, "timeout-ms": 5}}',
        Raises(_MEANT),
    ),
    (
        "in_a_list",
        list[Config],
        '[{"retries": 3, "Timeout-MS": 5}]',
        Raises(_MEANT),
    ),
    (
        "after_a_citation",
        Config,
        '[1] Final: {"retries": 3, "timeout-ms": 500}',
        Raises(_MEANT),
    ),
    # Not a suffix of the list, or no missing field's name: the key is ignored.
    (
        "customer_id_beside_id",
        Config,
        '{"retries": 3, "retries_id": 9}',
        Config(retries=3),
    ),
    (
        "field_given_too",
        Config,
        '{"retries": 3, "timeout": 9, "timeout-ms": 5}',
        Config(retries=3, timeout=9),
    ),
]


@every_entry
@_rows(UNIT_SPELLINGS)
def test_a_unit_suffix_in_any_spelling_never_leaves_the_default(
    entry: str, target: Any, reply: str, expected: Any
) -> None:
    _check(entry, target, reply, expected)


@pytest.mark.parametrize(
    ("key", "stem"),
    [
        ("timeout-ms", "timeout"),
        ("timeout ms", "timeout"),
        ("TIMEOUT_MS", "TIMEOUT"),
        ("timeoutMS", "timeout"),
        ("timeoutMs", "timeout"),
        (" timeout_ms ", "timeout"),
        ("price-USD", "price"),
        ("items", None),
        ("status", None),
        ("IDS", None),
        ("-ms", None),
        ("timeout_millis", None),
    ],
)
def test_unit_suffixes_in_near_spellings(key: str, stem: str | None) -> None:
    assert unit_stem(key) == stem


class Reading(BaseModel):
    retries: int
    name: str = ""


_SEVERAL = "several JSON values stand together"

# Values glued together whose last one is cut off (JSON Lines at the token
# limit) are several values, as when every one of them is closed: never the
# first value alone, nor an empty object closed from a lone cut ``{``.
# Before: the first value (all parsers), or ``{}`` (truncation, no schema).
CUT_RUNS: list[tuple[str, Any, str]] = [
    (
        "jsonl_cut_in_a_string",
        Reading,
        '{"retries": 3, "name": "a"}\n{"retries": 4, "name": "b',
    ),
    (
        "jsonl_cut_after_a_value",
        Reading,
        '{"retries": 3, "name": "a"}\n{"retries": 4, "name": "b"',
    ),
    ("glued_cut_after_a_comma", Reading, '{"retries": 3, "name": "a"}{"retries": 4,'),
    (
        "in_prose",
        Reading,
        'Here:\n{"retries": 3, "name": "a"}\n{"retries": 4, "name": "b',
    ),
    ("comma_apart", Reading, '{"retries": 3}, {"retries": 4, "name": "b'),
    ("a_list_schema", list[Reading], '{"retries": 3}\n{"retries": 4, "name": "b'),
    ("a_lone_cut_opener", list[Reading], '{"retries": 3}\n{"retries": 4} {'),
    ("no_schema", None, '{"retries": 3, "name": "a"}\n{"retries": 4, "name": "b'),
    ("no_schema_lone_opener", None, '{"retries": 3}\n{"retries": 4} {'),
]


def _parsers(target: Any) -> list[Any]:
    options = {} if target is None else {"pydantic_object": target}
    return [
        JsonFenceOutputParser(**options),
        JsonFenceOutputParser(prefer="last", **options),
        JsonFenceOutputParser(repair=True, **options),
        TruncationRecoveringOutputParser(**options),
        TruncationRecoveringOutputParser(repair=True, **options),
    ]


@pytest.mark.parametrize(
    ("target", "reply"),
    [row[1:] for row in CUT_RUNS],
    ids=[row[0] for row in CUT_RUNS],
)
def test_glued_values_whose_last_is_cut_are_several_values(
    target: Any, reply: str
) -> None:
    for parser in _parsers(target):
        with pytest.raises(OutputParserException) as caught:
            parser.parse(reply)
        assert _SEVERAL in str(caught.value), parser


def test_a_cut_value_apart_by_prose_stays_a_candidate_of_its_own() -> None:
    reply = '{"retries": 3} and later {"retries": 4, "name": "b'
    parser = JsonFenceOutputParser(pydantic_object=Reading)
    assert parser.parse(reply) == Reading(retries=3)


class Count(BaseModel):
    n: int


# Several values in one place before any value validates end the search, as a
# refused wrapper does: they are the answer in a form to ask again for, so an
# earlier draft (``prefer="last"``) or a later note is not the answer. Before:
# the draft, ``n=1``, with a schema (the listed values fail it) or without.
SEVERAL_FINAL: list[tuple[str, Any, str, dict[str, Any]]] = [
    (
        "draft_then_glued",
        Count,
        'Draft {"n": 1}. Final {"n": 2}{"n": 3}',
        {"prefer": "last"},
    ),
    (
        "draft_then_jsonl",
        Count,
        'Draft {"n": 1}. Final:\n{"n": 2}\n{"n": 3}',
        {"prefer": "last"},
    ),
    (
        "draft_then_cut_jsonl",
        Count,
        'Draft {"n": 1}. Final {"n": 2}{"n": 3',
        {"prefer": "last"},
    ),
    ("glued_then_a_note", Count, '{"n": 2}{"n": 3} (format: {"n": 0})', {}),
    (
        "no_schema_draft_then_glued",
        None,
        'Draft {"n": 1}. Final {"n": 2}{"n": 3}',
        {"prefer": "last"},
    ),
    ("no_schema_glued_then_a_note", None, '{"n": 2}\n{"n": 3}\n(format: {"n": 0})', {}),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(
    ("target", "reply", "options"),
    [row[1:] for row in SEVERAL_FINAL],
    ids=[row[0] for row in SEVERAL_FINAL],
)
def test_several_values_before_any_value_end_the_search(
    target: Any, reply: str, options: dict[str, Any], repair: bool
) -> None:
    schema = {} if target is None else {"pydantic_object": target}
    for parser_type in (JsonFenceOutputParser, TruncationRecoveringOutputParser):
        parser = parser_type(**schema, **options, repair=repair)
        with pytest.raises(OutputParserException):
            parser.parse(reply)


@pytest.mark.parametrize(
    ("target", "reply", "expected"),
    [
        # A later value apart by prose is the last one: it answers.
        (Count, '{"n": 2}{"n": 3} was wrong, use {"n": 1}', Count(n=1)),
        # A value validates first: the glued ones after it do not matter.
        (Count, 'Draft {"n": 1}. Final {"n": 2}{"n": 3}', Count(n=1)),
        # A list schema takes the glued values as its list.
        (
            list[Count],
            'Draft {"n": 1}. Final {"n": 2}{"n": 3}',
            [Count(n=2), Count(n=3)],
        ),
    ],
)
def test_values_apart_by_prose_keep_their_order(
    target: Any, reply: str, expected: Any
) -> None:
    last = reply.startswith("{")
    parser = JsonFenceOutputParser(
        pydantic_object=target, prefer="last" if last else "first"
    )
    assert parser.parse(reply) == expected
