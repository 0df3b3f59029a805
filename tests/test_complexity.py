"""The complexity contract: every scan is linear in the reply.

Hostile replies (runs of brackets, backticks, quotes, reasoning tags, deep
nesting) get a clear error or the right value, never a hang or a
``RecursionError``.

No test here looks at a clock. Work is counted instead, by wrapping what does
it: the decoders (``orjson.loads`` and pydantic-core's ``from_json``: calls
and characters handed over), every
compiled pattern the scanners use (calls and characters each may examine), and
the ``str`` methods the fence finder calls (characters each may examine or
copy). A linear scan does at most about twice the work on a reply twice as
long; a quadratic one does four times as much.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
import pydantic_core
import pytest
from _counting import Charge, CountingStr, count_patterns, package_modules

import langchain_jsonrecover._core.reply.fences as fences_module
from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    NoJsonFoundError,
    RegexJsonOutputParser,
    ReplyTooLargeError,
    extract_json,
)
from langchain_jsonrecover._core.extract import Extraction

N = 2_500
"""The smaller size; each growth test also runs at twice this."""

GROWTH = 2.2
"""Allowed work ratio when the input doubles (linear: 2, quadratic: 4)."""

SLACK = 1024
"""Constant work allowed on top (fixed costs: the fast path, the error text)."""

DECODE_FACTOR = 12
"""Characters handed to the decoders, per character of the reply, at most (a
failing candidate may be read twice: by pydantic-core, then by orjson for the
exact error)."""


# --- counting the work ----------------------------------------------------------


@dataclass
class Work:
    """Work done during one extraction, by kind."""

    decode_calls: int = 0
    decode_chars: int = 0
    regex_calls: int = 0
    regex_chars: int = 0
    str_calls: int = 0
    str_chars: int = 0
    by_pattern: dict[str, int] = field(default_factory=dict)

    @property
    def chars(self) -> int:
        """Every character examined, copied or decoded."""
        return self.decode_chars + self.regex_chars + self.str_chars

    @property
    def calls(self) -> int:
        """Every counted call."""
        return self.decode_calls + self.regex_calls + self.str_calls

    def pattern_charges(self, module: str) -> Callable[[str], Charge]:
        """What each pattern of ``module`` charges: a call, and what it examined."""

        def charge_for(name: str) -> Charge:
            label = f"{module}.{name}"

            def charge(chars: int) -> None:
                self.regex_calls += 1
                self.regex_chars += max(chars, 1)
                self.by_pattern[label] = self.by_pattern.get(label, 0) + chars

            return charge

        return charge_for

    def str_charge(self, chars: int) -> None:
        """A call of a ``str`` method that examined or copied ``chars`` characters."""
        self.str_calls += 1
        self.str_chars += max(chars, 1)

    def reset(self) -> None:
        """Start counting afresh."""
        self.decode_calls = self.decode_chars = 0
        self.regex_calls = self.regex_chars = 0
        self.str_calls = self.str_chars = 0
        self.by_pattern.clear()


def counting_str(text: str, work: Work) -> CountingStr:
    return CountingStr(text, work.str_charge)


@contextmanager
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    """Count the work of the decoder, of every pattern and of the fence finder.

    Patterns and fence functions are found by looking, not by name, so the
    count keeps up with the package: every module-level compiled pattern of
    the package is wrapped, and every function of ``_fences`` that another
    module imported is handed a :class:`CountingStr`.
    """
    work = Work()
    real_loads = orjson.loads
    real_from_json = pydantic_core.from_json

    def loads(data: str) -> Any:
        work.decode_calls += 1
        work.decode_chars += len(data)
        return real_loads(data)

    def from_json(data: str, **kwargs: Any) -> Any:
        work.decode_calls += 1
        work.decode_chars += len(data)
        return real_from_json(data, **kwargs)

    def with_counting_str(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(text: str, *args: Any, **kwargs: Any) -> Any:
            return function(counting_str(text, work), *args, **kwargs)

        return wrapper

    with monkeypatch.context() as patch:
        patch.setattr(orjson, "loads", loads)
        patch.setattr(pydantic_core, "from_json", from_json)
        for module in package_modules():
            short = module.__name__.rsplit(".", 1)[-1]
            count_patterns(patch, module, work.pattern_charges(short))
            for name, item in list(vars(module).items()):
                if (
                    inspect.isfunction(item)
                    and item.__module__ == fences_module.__name__
                    and module is not fences_module
                ):
                    patch.setattr(module, name, with_counting_str(item))
        yield work


# --- outcomes -------------------------------------------------------------------


@dataclass(frozen=True)
class Raises:
    """The extraction must raise exactly this error class."""

    error: type[JsonRecoveryError]
    truncated: bool | None = None
    mentions: str = ""


@dataclass(frozen=True)
class Value:
    """The extraction must give this value."""

    value: Any


Outcome = Raises | Value

TOO_DEEP = Raises(InvalidJsonError, truncated=False, mentions="nested")


Result = Extraction | JsonRecoveryError
Extractor = Callable[[str], Extraction]
Builder = Callable[[int], str]


def attempt(extractor: Extractor, text: str) -> Result:
    try:
        return extractor(text)
    except JsonRecoveryError as exc:
        return exc


def check(result: Result, expected: Outcome) -> None:
    if isinstance(expected, Value):
        assert isinstance(result, Extraction), str(result)
        assert result.value == expected.value
        return
    assert type(result) is expected.error, str(result)
    if expected.truncated is not None:
        assert isinstance(result, InvalidJsonError)
        assert result.truncated is expected.truncated
    assert expected.mentions in str(result)


def measure(
    monkeypatch: pytest.MonkeyPatch, extractor: Extractor, text: str
) -> tuple[Work, Result]:
    with counting(monkeypatch) as work:
        result = attempt(extractor, text)
    return work, result


def assert_linear(small: Work, large: Work) -> None:
    detail = f"\nat n:  {small}\nat 2n: {large}"
    assert large.chars <= GROWTH * small.chars + SLACK, detail
    assert large.calls <= GROWTH * small.calls + SLACK, detail


def assert_grows_linearly(
    monkeypatch: pytest.MonkeyPatch,
    extractor: Extractor,
    build: Builder,
    expected: Outcome,
) -> None:
    """Right answer at n and 2n; work at 2n at most about twice that at n."""
    small_work, small = measure(monkeypatch, extractor, build(N))
    large_text = build(2 * N)
    large_work, large = measure(monkeypatch, extractor, large_text)
    check(small, expected)
    check(large, expected)
    assert large_work.decode_chars <= DECODE_FACTOR * len(large_text) + SLACK, (
        large_work
    )
    assert_linear(small_work, large_work)


def growing_backtick_runs(n: int) -> str:
    """Backtick runs of lengths 3, 4, 5 … none starting a line, ``n`` chars."""
    parts: list[str] = []
    total, run = 0, 3
    while total < n:
        parts.append("\nx" + "`" * run)
        total += run + 2
        run += 1
    return "".join(parts)


# --- the meter itself -----------------------------------------------------------


def test_the_meter_sees_decoder_patterns_and_fence_finder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reply = 'Sure: ```py\nx = 1\n``` and ```json\n{"a": [1]}\n``` then [2] <think>'
    work, result = measure(monkeypatch, extract_json, reply)
    check(result, Value({"a": [1]}))
    assert work.decode_calls > 0, work
    assert work.regex_calls > 0, work
    assert work.str_calls > 0, work  # the fence finder got a CountingStr


@pytest.mark.parametrize(
    ("small", "large"),
    [
        pytest.param(Work(decode_chars=10_000), Work(decode_chars=40_000), id="decode"),
        pytest.param(Work(regex_chars=10_000), Work(regex_chars=28_300), id="regex"),
        pytest.param(Work(str_calls=10_000), Work(str_calls=40_000), id="calls"),
    ],
)
def test_the_meter_flags_superlinear_growth(small: Work, large: Work) -> None:
    with pytest.raises(AssertionError):
        assert_linear(small, large)


# --- hostile replies ------------------------------------------------------------

HOSTILE: list[Any] = [
    pytest.param(
        lambda n: "x " + "[{" * n,
        Raises(InvalidJsonError, truncated=False),
        id="prose_then_open_array_object_pairs",
    ),
    pytest.param(
        lambda n: '{"a": "' + "{[" * n,
        Raises(InvalidJsonError, truncated=True),
        id="brackets_inside_an_unterminated_string",
    ),
    pytest.param(
        lambda n: "{" * n,
        Raises(InvalidJsonError, truncated=True),
        id="open_braces_only",
    ),
    pytest.param(
        lambda n: "[" * n,
        Raises(InvalidJsonError, mentions="deeply"),
        id="open_brackets_only",
    ),
    pytest.param(
        lambda n: "[" * n + "]" * n,
        Raises(InvalidJsonError, mentions="deeply"),
        id="balanced_deep_nesting",
    ),
    pytest.param(
        lambda n: "x [" * n,
        Raises(InvalidJsonError),
        id="prose_brackets_never_closed",
    ),
    pytest.param(
        lambda n: "]}" * n + '{"a": 1}',
        Value({"a": 1}),
        id="stray_closers_then_an_object",
    ),
    pytest.param(
        lambda n: '{"a": 1} ' * n,
        Raises(InvalidJsonError, truncated=False, mentions="several"),
        id="many_small_objects_in_prose",
    ),
    pytest.param(
        lambda n: "[1] " * n,
        Raises(InvalidJsonError, truncated=False, mentions="several"),
        id="many_small_arrays_in_prose",
    ),
    pytest.param(
        lambda n: "see [1] and " * n + '{"a": 1}',
        Value({"a": 1}),
        id="many_arrays_before_the_one_object",
    ),
    pytest.param(
        lambda n: '{"a" 1} ' * n,
        Raises(InvalidJsonError, truncated=False),
        id="many_invalid_objects_in_prose",
    ),
    pytest.param(
        lambda n: '{"a": 1 ' * n,
        Raises(InvalidJsonError),
        id="many_unclosed_objects",
    ),
    pytest.param(
        # benchmarks/_live.py's JSON-like prose: a candidate per brace (issue
        # 24: 1 MB of it, about 33,000 braces), each taken in one C match and
        # failed without decoding (tests/test_prose_fast_paths.py).
        lambda n: "Use {name: Ada} or {city: Paris, tags: [a, b]} as examples. " * n,
        Raises(InvalidJsonError, truncated=False),
        id="json_like_prose_of_unquoted_keys",
    ),
    pytest.param(
        lambda n: '[{"' * n,
        Raises(InvalidJsonError),
        id="arrays_of_objects_of_open_keys",
    ),
    pytest.param(
        lambda n: '["' * n,
        Raises(InvalidJsonError),
        id="arrays_of_open_strings",
    ),
    pytest.param(
        lambda n: "{a: [1, " * n,
        Raises(InvalidJsonError),
        id="bare_keys_and_open_arrays",
    ),
    pytest.param(
        lambda n: "{a " * n,
        Raises(NoJsonFoundError),
        id="braces_around_bare_words",
    ),
    pytest.param(
        lambda n: '{"a": "\n' * n,
        Raises(InvalidJsonError),
        id="raw_newlines_in_open_strings",
    ),
    pytest.param(
        lambda n: '{"a": "' + '\\"' * n,
        Raises(InvalidJsonError, truncated=True),
        id="long_unterminated_string_of_escaped_quotes",
    ),
    pytest.param(
        lambda n: "x```y" * n,
        Raises(NoJsonFoundError),
        id="backtick_runs_without_newlines",
    ),
    pytest.param(
        growing_backtick_runs,
        Raises(NoJsonFoundError),
        id="backtick_runs_of_growing_length",
    ),
    pytest.param(
        lambda n: "x\n```json\n{" * n,
        Raises(InvalidJsonError),
        id="many_json_fences_closed_mid_line",
    ),
    pytest.param(
        lambda n: "a\n```\n" * n,
        Raises(NoJsonFoundError),
        id="many_empty_untagged_fences",
    ),
    pytest.param(
        lambda n: "x\n```json\n" * n,
        Raises(InvalidJsonError),
        id="many_json_fences_holding_prose",
    ),
    pytest.param(
        lambda n: "```json\n[1,\n```\n" * n,
        Raises(InvalidJsonError, truncated=False),
        id="many_json_fences_holding_invalid_json",
    ),
    pytest.param(
        lambda n: "```\n[1,\n```\n" * n,
        Raises(InvalidJsonError, truncated=False),
        id="many_untagged_fences_holding_invalid_json",
    ),
    pytest.param(
        lambda n: "```py\nx = {1: 2}\n```\n" * n + '{"a": 1}',
        Value({"a": 1}),
        id="many_code_fences_then_prose_json",
    ),
    pytest.param(
        lambda n: "````json\n[1, " + "\n```" * n,
        Raises(InvalidJsonError, truncated=False),
        id="long_fence_left_open_over_many_short_runs",
    ),
    pytest.param(
        lambda n: "".join(f"\n{'`' * (3 + i % 7)}json\n[{i}," for i in range(n)),
        Raises(InvalidJsonError),
        id="fences_of_mixed_lengths_holding_invalid_json",
    ),
    pytest.param(
        lambda n: "```json\n[" + "1, " * n,
        Raises(InvalidJsonError, truncated=True),
        id="one_unclosed_fence_of_a_long_array",
    ),
    pytest.param(
        lambda n: "<think>" * n,
        Raises(NoJsonFoundError, mentions="reasoning"),
        id="many_think_tags_never_closed",
    ),
    pytest.param(
        lambda n: "<think>a</think>" * n + '{"a": 1}',
        Value({"a": 1}),
        id="many_think_blocks_then_json",
    ),
    pytest.param(
        lambda n: "</think>{" * n,
        Raises(InvalidJsonError, truncated=True),
        id="many_lone_closing_tags",
    ),
    pytest.param(
        lambda n: "<thinking " * n + "[1]",
        Value([1]),
        id="many_unfinished_tags",
    ),
]


def strict_extract(text: str) -> Extraction:
    """``extract_json`` without repair: the scan the figures above describe."""
    return extract_json(text, repair=False)


@pytest.mark.parametrize(("build", "expected"), HOSTILE)
def test_hostile_reply_is_answered_in_linear_work(
    monkeypatch: pytest.MonkeyPatch, build: Builder, expected: Outcome
) -> None:
    assert_grows_linearly(monkeypatch, strict_extract, build, expected)


@pytest.mark.parametrize(("build", "expected"), HOSTILE)
def test_hostile_reply_is_answered_in_linear_work_at_the_default_level(
    monkeypatch: pytest.MonkeyPatch, build: Builder, expected: Outcome
) -> None:
    # The default repairs a failing reply (and the single-edit search checks
    # its guesses): more work per character, still linear in the reply.
    del expected  # the default may repair a hostile reply into a value
    small_work, small = measure(monkeypatch, extract_json, build(N))
    large_work, large = measure(monkeypatch, extract_json, build(2 * N))
    assert type(small) is type(large), (small, large)
    assert_linear(small_work, large_work)


REGEX_HOSTILE: list[Any] = [
    pytest.param(
        r"(.*)",
        lambda n: '{"a": "' + '\\"' * n,
        Raises(InvalidJsonError),
        id="capture_of_an_unterminated_string",
    ),
    pytest.param(
        r"<json>(.*?)</json>",
        lambda n: "<json>[1]</json> " * n,
        Value([1]),
        id="first_of_many_tagged_captures",
    ),
    pytest.param(
        r"(.*)",
        lambda n: "```json\n[" + "1, " * n,
        Raises(InvalidJsonError),
        id="capture_holding_an_unclosed_fence",
    ),
    pytest.param(
        r"(.*)",
        lambda n: "<think>" * n + "[1]",
        Raises(NoJsonFoundError),
        id="capture_after_unclosed_think_tags",
    ),
    pytest.param(
        r"(.*)",
        lambda n: "```json\n[1]\n```" + "x```y" * n,
        Value([1]),
        id="capture_starting_with_a_fence_then_backtick_runs",
    ),
]


@pytest.mark.parametrize(("pattern", "build", "expected"), REGEX_HOSTILE)
def test_regex_parser_core_is_linear(
    monkeypatch: pytest.MonkeyPatch, pattern: str, build: Builder, expected: Outcome
) -> None:
    parser = RegexJsonOutputParser(pattern=pattern)
    assert_grows_linearly(monkeypatch, parser.extract, build, expected)


# --- deep nesting and long runs of openers --------------------------------------

LONG_RUNS: list[Any] = [
    pytest.param("{" * 100_000, id="100k_open_braces"),
    pytest.param("[" * 100_000, id="100k_open_brackets"),
    pytest.param("x " + "[{" * 50_000, id="100k_of_array_object_pairs"),
]


@contextmanager
def shallow_recursion_limit(headroom: int = 100) -> Iterator[None]:
    """Allow only ``headroom`` more Python frames than the caller has.

    Nothing in the package recurses per nesting level, so a hundred frames are
    plenty at any depth; code that did would hit ``RecursionError`` here.
    """
    depth = len(inspect.stack(0))
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + headroom)
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)


@pytest.mark.parametrize("text", LONG_RUNS)
def test_100_kb_of_openers_is_invalid_json_not_recursion(text: str) -> None:
    with shallow_recursion_limit():
        result = attempt(extract_json, text)
    check(result, Raises(InvalidJsonError))


DEEP: list[Any] = [
    pytest.param("[" * 5000 + "]" * 5000, id="5000_levels_of_arrays"),
    pytest.param('{"a": ' * 5000 + "1" + "}" * 5000, id="5000_levels_of_objects"),
    pytest.param(
        "Result: " + '[{"a": ' * 3000 + "1" + "}]" * 3000 + " done",
        id="6000_levels_in_prose",
    ),
    pytest.param(
        "```json\n" + "[" * 5000 + "]" * 5000 + "\n```", id="5000_levels_in_a_fence"
    ),
]

DEEP_EXTRACTORS: list[Any] = [
    pytest.param(extract_json, id="extract_json"),
    pytest.param(
        lambda text: extract_json(text, max_depth=1_000_000),
        id="extract_json_with_huge_max_depth",
    ),
    pytest.param(JsonFenceOutputParser(max_depth=1000).extract, id="fence_parser"),
    pytest.param(
        RegexJsonOutputParser(pattern=r"([\[{].*)").extract, id="regex_parser"
    ),
]


@pytest.mark.parametrize("extractor", DEEP_EXTRACTORS)
@pytest.mark.parametrize("text", DEEP)
def test_deep_nesting_is_invalid_json_about_depth_not_recursion(
    extractor: Extractor, text: str
) -> None:
    with shallow_recursion_limit():
        result = attempt(extractor, text)
    check(
        result, Raises(InvalidJsonError, truncated=False, mentions="nested too deeply")
    )


# --- limits ---------------------------------------------------------------------

OVER_MAX_CHARS: list[Any] = [
    pytest.param('{"a": 1}', 7, id="one_char_over"),
    pytest.param("{" * 100_000, 1000, id="hostile_braces"),
    pytest.param("x```y" * 10_000, 1000, id="hostile_backticks"),
    pytest.param("<think>" * 10_000 + "[1]", 1000, id="hostile_reasoning"),
    pytest.param("```json\n" + '{"a": 1}' * 1000 + "\n```", 100, id="fenced_json"),
]

MAX_CHARS_EXTRACTORS: list[Any] = [
    pytest.param(
        lambda text, limit: extract_json(text, max_chars=limit), id="extract_json"
    ),
    pytest.param(
        lambda text, limit: JsonFenceOutputParser(max_chars=limit).extract(text),
        id="fence_parser",
    ),
    pytest.param(
        lambda text, limit: RegexJsonOutputParser(
            pattern=r"([\[{].*)", max_chars=limit
        ).extract(text),
        id="regex_parser",
    ),
]


@pytest.mark.parametrize("extract_with_limit", MAX_CHARS_EXTRACTORS)
@pytest.mark.parametrize(("text", "max_chars"), OVER_MAX_CHARS)
def test_max_chars_refuses_before_any_scan(
    monkeypatch: pytest.MonkeyPatch,
    extract_with_limit: Callable[[str, int], Extraction],
    text: str,
    max_chars: int,
) -> None:
    work, result = measure(
        monkeypatch, lambda reply: extract_with_limit(reply, max_chars), text
    )
    check(result, Raises(ReplyTooLargeError, mentions=str(max_chars)))
    assert work == Work(), "the reply was scanned or decoded before the refusal"


@pytest.mark.parametrize("extract_with_limit", MAX_CHARS_EXTRACTORS)
def test_max_chars_accepts_a_reply_of_exactly_that_length(
    extract_with_limit: Callable[[str, int], Extraction],
) -> None:
    reply = 'Sure: {"a": 1}'
    assert extract_with_limit(reply, len(reply)).value == {"a": 1}


MAX_DEPTH: list[Any] = [
    pytest.param("[[1]]", 1, TOO_DEEP, id="arrays_one_over"),
    pytest.param("[[1]]", 2, Value([[1]]), id="arrays_at_the_limit"),
    pytest.param('{"a": {"b": {}}}', 2, TOO_DEEP, id="objects_one_over"),
    pytest.param(
        '{"a": {"b": {}}}', 3, Value({"a": {"b": {}}}), id="objects_at_the_limit"
    ),
    pytest.param("Result: [[[1]]] done", 2, TOO_DEEP, id="in_prose"),
    pytest.param("```json\n[[[1]]]\n```", 2, TOO_DEEP, id="in_a_fence"),
    pytest.param(
        '[["[[[[[[[[", "]]]]"]]',
        2,
        Value([["[[[[[[[[", "]]]]"]]),
        id="brackets_in_strings_do_not_count",
    ),
    pytest.param(
        '[["[[[[[[[[", "]]]]"]]', 1, TOO_DEEP, id="brackets_in_strings_one_over"
    ),
    pytest.param("[" * 201 + "]" * 201, 200, TOO_DEEP, id="default_limit_one_over"),
    pytest.param(
        "[" * 200 + "]" * 200,
        200,
        Value(orjson.loads("[" * 200 + "]" * 200)),
        id="default_limit_exactly",
    ),
]


@pytest.mark.parametrize(("text", "max_depth", "expected"), MAX_DEPTH)
def test_max_depth(text: str, max_depth: int, expected: Outcome) -> None:
    check(
        attempt(lambda reply: extract_json(reply, max_depth=max_depth), text), expected
    )
    parser = JsonFenceOutputParser(max_depth=max_depth)
    check(attempt(parser.extract, text), expected)


@pytest.mark.parametrize(
    "limits", [{"max_chars": 0}, {"max_depth": 0}], ids=["max_chars_0", "max_depth_0"]
)
def test_limits_below_one_are_a_programming_error(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        extract_json("[1]", **limits)  # type: ignore[arg-type]
