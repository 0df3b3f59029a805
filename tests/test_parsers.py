"""The LangChain parsers: Runnable behaviour, refusals, errors, regex rules."""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.exceptions import ModelRefusalError, OutputParserException
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    NoJsonFoundError,
    RegexJsonOutputParser,
)

REPLY = 'Sure!\n```json\n{"name": "Ada", "age": 36}\n```'
VALUE = {"name": "Ada", "age": 36}

PARSERS = [
    pytest.param(JsonFenceOutputParser(), id="fence"),
    pytest.param(RegexJsonOutputParser(pattern=r"```json(.*?)```"), id="regex"),
]


def fake_model(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in replies]))


@pytest.mark.parametrize("parser", PARSERS)
class TestRunnable:
    def test_parse(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert parser.parse(REPLY) == VALUE

    def test_invoke_with_text(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert parser.invoke(REPLY) == VALUE

    def test_invoke_with_message(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert parser.invoke(AIMessage(content=REPLY)) == VALUE

    def test_invoke_with_content_blocks(
        self, parser: JsonFenceOutputParser[Any]
    ) -> None:
        message = AIMessage(content=[{"type": "text", "text": REPLY}])
        assert parser.invoke(message) == VALUE

    def test_parse_result(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert (
            parser.parse_result([ChatGeneration(message=AIMessage(content=REPLY))])
            == VALUE
        )
        assert parser.parse_result([Generation(text=REPLY)]) == VALUE

    def test_batch(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert parser.batch([REPLY, REPLY]) == [VALUE, VALUE]

    def test_stream_yields_the_value(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert list(parser.stream(REPLY)) == [VALUE]

    async def test_aparse(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert await parser.aparse(REPLY) == VALUE

    async def test_ainvoke(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert await parser.ainvoke(AIMessage(content=REPLY)) == VALUE

    async def test_abatch(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert await parser.abatch([REPLY, REPLY]) == [VALUE, VALUE]

    def test_chain_with_chat_model(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert (fake_model(REPLY) | parser).invoke("hi") == VALUE

    async def test_chain_with_chat_model_async(
        self, parser: JsonFenceOutputParser[Any]
    ) -> None:
        assert await (fake_model(REPLY) | parser).ainvoke("hi") == VALUE

    def test_refusal_raises_model_refusal_error(
        self, parser: JsonFenceOutputParser[Any]
    ) -> None:
        refusal = AIMessage(
            content=[{"type": "refusal", "refusal": "I can't do that."}]
        )
        with pytest.raises(ModelRefusalError, match="I can't do that"):
            parser.invoke(refusal)

    def test_no_json_is_output_parser_exception(
        self, parser: JsonFenceOutputParser[Any]
    ) -> None:
        with pytest.raises(OutputParserException) as caught:
            parser.invoke("No JSON at all.")
        error = caught.value
        assert isinstance(error, NoJsonFoundError)
        assert error.send_to_llm is True
        assert error.llm_output == "No JSON at all."
        assert error.observation

    def test_partial_returns_none_instead_of_raising(
        self, parser: JsonFenceOutputParser[Any]
    ) -> None:
        assert parser.parse_result([Generation(text="nothing")], partial=True) is None

    def test_format_instructions(self, parser: JsonFenceOutputParser[Any]) -> None:
        assert "only one JSON object" in parser.get_format_instructions()

    def test_max_chars(self, parser: JsonFenceOutputParser[Any]) -> None:
        small = parser.model_copy(update={"max_chars": 10})
        with pytest.raises(JsonRecoveryError, match="too long"):
            small.parse(REPLY)


def test_reply_is_kept_unchanged_in_errors() -> None:
    reply = '  Here:\n```json\n{"a": 1,}\n```\n  '
    with pytest.raises(InvalidJsonError) as caught:
        JsonFenceOutputParser(repair=False).invoke(AIMessage(content=reply))
    assert caught.value.llm_output == reply


def test_caller_message_not_mutated() -> None:
    message = AIMessage(content='x {"a": 1}')
    before = message.model_dump()
    JsonFenceOutputParser().invoke(message)
    assert message.model_dump() == before


def test_extract_reports_how() -> None:
    found = JsonFenceOutputParser().extract(REPLY)
    assert (found.value, found.step, found.repairs) == (
        VALUE,
        "fence",
        ("fence_stripped",),
    )


@pytest.mark.parametrize(
    ("parser", "name"),
    [
        (JsonFenceOutputParser(), "json_fence_output_parser"),
        (RegexJsonOutputParser(pattern="(.*)"), "regex_json_output_parser"),
    ],
)
def test_type_is_stable(parser: JsonFenceOutputParser[Any], name: str) -> None:
    assert parser._type == name


@pytest.mark.parametrize("field", ["max_chars", "max_depth"])
def test_limits_checked_at_construction(field: str) -> None:
    options: dict[str, Any] = {field: 0}
    with pytest.raises(ValueError, match=field):
        JsonFenceOutputParser(**options)


# RegexJsonOutputParser: the Elixir JsonProcessor's regex rule.

REGEX_FOUND: list[tuple[str, str | re.Pattern[str], str, Any]] = [
    ("json_tags", r"<json>(.*?)</json>", 'Result: <json>{"a": 1}</json>', {"a": 1}),
    (
        "str_pattern_dot_matches_newline",
        r"<json>(.*?)</json>",
        '<json>\n{"a":\n 1}\n</json>',
        {"a": 1},
    ),
    (
        "first_match_wins",
        r"<json>(.*?)</json>",
        "<json>[1]</json><json>[2]</json>",
        [1],
    ),
    ("capture_is_stripped", r"<json>(.*?)</json>", "<json>  \n [1] \n </json>", [1]),
    (
        "fence_inside_capture_removed",
        r"<json>(.*?)</json>",
        '<json>```json\n{"a": 1}\n```</json>',
        {"a": 1},
    ),
    ("fence_pattern", r"```json(.*?)```", 'x ```json\n{"a": 1}\n``` y', {"a": 1}),
    ("scalars_allowed", r"<n>(.*?)</n>", "<n>42</n>", 42),
    (
        "reasoning_hidden",
        r"<json>(.*?)</json>",
        "<think><json>[0]</json></think><json>[1]</json>",
        [1],
    ),
    (
        "compiled_used_as_given",
        re.compile(r"<j>(.*?)</j>", re.DOTALL),
        "<j>\n[1]\n</j>",
        [1],
    ),
    ("non_capturing_groups_allowed", r"(?:<j>|<json>)(.*?)</", "<json>[3]</json>", [3]),
]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [row[1:] for row in REGEX_FOUND],
    ids=[row[0] for row in REGEX_FOUND],
)
def test_regex_finds(pattern: str | re.Pattern[str], text: str, expected: Any) -> None:
    assert RegexJsonOutputParser(pattern=pattern).parse(text) == expected


def test_compiled_pattern_flags_respected() -> None:
    parser = RegexJsonOutputParser(pattern=re.compile(r"<j>(.*?)</j>"))
    with pytest.raises(NoJsonFoundError, match="matched nothing"):
        parser.parse("<j>\n[1]\n</j>")


REGEX_ERRORS: list[tuple[str, str, type[JsonRecoveryError]]] = [
    ("no_match", "no tags here", NoJsonFoundError),
    ("empty_capture", "<json>  </json>", NoJsonFoundError),
    ("broken_capture", '<json>{"a" 1}</json>', InvalidJsonError),
    ("text_after_value_in_capture", "<json>[1] and more</json>", InvalidJsonError),
]


@pytest.mark.parametrize(
    ("text", "error"),
    [row[1:] for row in REGEX_ERRORS],
    ids=[row[0] for row in REGEX_ERRORS],
)
def test_regex_errors(text: str, error: type[JsonRecoveryError]) -> None:
    with pytest.raises(error) as caught:
        RegexJsonOutputParser(pattern=r"<json>(.*?)</json>", repair=False).parse(text)
    assert caught.value.llm_output == text


def test_regex_error_position_is_in_the_reply() -> None:
    with pytest.raises(InvalidJsonError) as caught:
        RegexJsonOutputParser(pattern=r"<json>(.*?)</json>", repair=False).parse(
            'ok\n<json>{"a" 1}</json>'
        )
    assert (caught.value.line, caught.value.column) == (2, 12)


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("no groups", "exactly one capture group, it has 0"),
        ("(two)(groups)", "exactly one capture group, it has 2"),
        ("(unbalanced", "does not compile"),
        (re.compile(rb"(bytes)"), "str pattern"),
    ],
)
def test_regex_checked_at_construction(pattern: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RegexJsonOutputParser(pattern=pattern)


def test_regex_format_instructions_can_be_given() -> None:
    parser = RegexJsonOutputParser(
        pattern=r"<json>(.*?)</json>",
        format_instructions="Put the JSON in <json> tags.",
    )
    assert parser.get_format_instructions() == "Put the JSON in <json> tags."


class _Counted(JsonFenceOutputParser[Any]):
    """A subclass with its own ``parse_result``, which ``parse`` must go through."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        value = super().parse_result(result, partial=partial)
        return {"wrapped": value}


def test_parse_goes_through_a_subclass_parse_result() -> None:
    # parse reads a plain text without building a Generation, unless a
    # subclass has its own parse_result: then it is called as before.
    assert JsonFenceOutputParser().parse('{"a": 1}') == {"a": 1}
    assert _Counted().parse('{"a": 1}') == {"wrapped": {"a": 1}}


def test_parse_of_a_text_and_of_its_generation_agree() -> None:
    parser = JsonFenceOutputParser()
    for reply in ('{"a": 1}', 'see ```json\n{"a": [1,]}\n```', "no json"):
        try:
            expected: Any = parser.parse_result([Generation(text=reply)])
        except OutputParserException as exc:
            expected = (type(exc), str(exc), exc.llm_output)
        try:
            got: Any = parser.parse(reply)
        except OutputParserException as exc:
            got = (type(exc), str(exc), exc.llm_output)
        assert got == expected
