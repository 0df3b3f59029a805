"""Issue 21's last wrong values of the candidate choice, each through its entry points.

(d) A call envelope that the prose holds back (a condition, a negation, a
    proposal, an example) is not the schema's answer: every schema parser,
    sync, async and streamed, and ``structured_output`` over JSON and tools,
    raise or ask again; an envelope that is the reply, or follows a plain
    lead, is still read.
(e) A comma after a complete root, and then the end of the reply
    (``{"b": false},``, an unclosed fence too): a trailing comma, or a next
    value the end kept out. Every parser raises, with and without ``repair``
    and a schema, whatever ``finish_reason`` says. A fence closed after the
    comma ends the value: with ``repair``, one added comma, read as trailing.
(c) A placeholder (``{"name": "..."}``, ``<name>``, a type name) chosen
    beside a value of its keys that is not one: two readings, raised, in any
    order of the two and wherever each stands (fence or prose).
(F4, F11) An envelope beside a member that is a field of the schema is not
    unwrapped (the member would be dropped for its default), and a call whose
    ``name`` fills a field of the schema is never valid by ignoring its
    arguments: the arguments answer, or the reply is refused.
(F1) A reply that starts with a key and its colon (its ``{`` prefilled) holds
    that object as its JSON: a later value (an example, a fence) never
    answers instead; alone, repair adds the brace back.
(F6) Bare items and a closer after a complete root (``[] false]``,
    ``[1, 2], 3]``): the root closed too early, so the whole is one broken
    candidate, never the root alone.
(F5) A continuation in a fence of its own, or repeating the cut text after
    a space, is read both ways; they differ, so the whole answer is asked for.
(F19) A string at the cut that closes the JSON and goes on in words on its
    line is a lost quote as well as a cut: without a token-limit stop, an error.
(F23) A placeholder before the answer, under a schema: two readings (c).
(F22) Under a schema, one key written twice with different values: two
    readings, an error naming the key (a decoder keeps the last one).
(F14) A harmony ``commentary`` JSON body is no payload once another message
    has begun after it (its header cut, perhaps the ``final`` one).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

import pytest
from _models import ToolCallingChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel
from test_review_last_wrong_values import AFTER_ROOT

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    JsonRetryChain,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
    extract_json,
    structured_output,
)
from langchain_jsonrecover.tools import recover_tool_calls


class SendEmail(BaseModel):
    """Send an email."""

    to: str


SENT = SendEmail(to="all@corp.example")
CALL = '{"name": "send_email", "arguments": {"to": "all@corp.example"}}'
PARAMS = '{"name": "send_email", "parameters": {"to": "all@corp.example"}}'
FUNCTION = (
    '{"type": "function", "function": {"name": "send_email", '
    '"arguments": "{\\"to\\": \\"all@corp.example\\"}"}}'
)
HELD_BACK = [
    pytest.param(f"I won't run {CALL} until you confirm.", id="negated"),
    pytest.param(f"I won\u2019t run {CALL} yet.", id="curly_apostrophe"),
    pytest.param(f"If you agree, I would send:\n```json\n{CALL}\n```", id="proposed"),
    pytest.param(f"{CALL} is what I would send.", id="would_after"),
    pytest.param(f"Shall I send this?\n\n{CALL}", id="question_before"),
    pytest.param(f"For example:\n{PARAMS}", id="example_parameters"),
    pytest.param(f"Do not call {FUNCTION} now.", id="function_form"),
    pytest.param(f"```json\n{CALL}\n``` once you approve it.", id="after_fence"),
    pytest.param(f"I suggest:\n```\n{PARAMS}\n```\n", id="suggested"),
    pytest.param(f"<think>ok</think>Unless told otherwise, {CALL}", id="unless"),
]
SENT_REPLIES = [
    pytest.param(CALL, id="bare"),
    pytest.param(f"```json\n{CALL}\n```", id="fenced"),
    pytest.param(f"<think>if not, never</think>\n{CALL}\n", id="after_reasoning"),
    pytest.param(f"Here is the result:\n{CALL}", id="plain_lead"),
    pytest.param(f"Calling the tool: {PARAMS}", id="inline_lead"),
    pytest.param(f"Sending it now.\n```json\n{FUNCTION}\n```", id="fenced_function"),
    pytest.param(f'Not this: {{"exclude": {{"x": 1}}}}\nThis: {CALL}', id="not_above"),
]
SCHEMA_PARSERS = [
    pytest.param(lambda: JsonFenceOutputParser(pydantic_object=SendEmail), id="fence"),
    pytest.param(
        lambda: JsonFenceOutputParser(pydantic_object=SendEmail, repair=True),
        id="fence_repair",
    ),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(pydantic_object=SendEmail),
        id="truncation",
    ),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(
            pydantic_object=SendEmail, repair=True
        ),
        id="truncation_repair",
    ),
]


def _streamed(parser: Any, reply: str) -> Any:
    chunks = [AIMessageChunk(content=reply[i : i + 5]) for i in range(0, len(reply), 5)]
    out = None
    for out in parser.transform(iter(chunks)):  # noqa: B007 - keep the last
        pass
    return out


@pytest.mark.parametrize("make", SCHEMA_PARSERS)
@pytest.mark.parametrize("reply", HELD_BACK)
async def test_a_held_back_call_is_not_the_answer(reply: str, make: Any) -> None:
    parser = make()
    with pytest.raises(SchemaValidationError, match="only mentions this tool call"):
        parser.parse(reply)
    with pytest.raises(SchemaValidationError, match="only mentions"):
        parser.invoke(AIMessage(reply))
    with pytest.raises(SchemaValidationError, match="only mentions"):
        await parser.ainvoke(AIMessage(reply))
    try:
        streamed = _streamed(parser, reply)
    except JsonRecoveryError:
        streamed = None
    assert streamed != SENT


@pytest.mark.parametrize("make", SCHEMA_PARSERS)
@pytest.mark.parametrize("reply", SENT_REPLIES)
async def test_a_call_that_is_the_reply_is_still_read(reply: str, make: Any) -> None:
    parser = make()
    assert parser.parse(reply) == SENT
    assert await parser.ainvoke(AIMessage(reply)) == SENT


@pytest.mark.parametrize("reply", HELD_BACK)
def test_without_a_schema_the_envelope_is_the_json(reply: str) -> None:
    # No schema reads the envelope as arguments: the JSON is the envelope.
    value = extract_json(reply).value
    assert "to" not in value


@pytest.mark.parametrize("strategy", ["json", "auto"])
@pytest.mark.parametrize("reply", HELD_BACK)
def test_structured_output_asks_again(
    reply: str, strategy: Literal["json", "auto"]
) -> None:
    model = ToolCallingChatModel(script=[reply, '{"to": "me@corp.example"}'])
    chain = structured_output(model, SendEmail, strategy=strategy, max_retries=1)
    assert chain.invoke("go") == SendEmail(to="me@corp.example")
    assert len(model.calls) == 2


# --- (e) a comma after the root, then the end --------------------------------------


class Flags(BaseModel):
    b: bool = True
    n: int = 0


# The comma-then-end rows of the after-root table (parse, invoke, ainvoke and
# stream through every parser, there); here, whether a schema decides.
COMMA_ENDS = [row for row in AFTER_ROOT if "comma" in str(row.id)]
ALL_PARSERS = [
    pytest.param(JsonFenceOutputParser, id="fence"),
    pytest.param(partial(JsonFenceOutputParser, repair=True), id="fence_r"),
    pytest.param(TruncationRecoveringOutputParser, id="trunc"),
    pytest.param(partial(TruncationRecoveringOutputParser, repair=True), id="trunc_r"),
]


@pytest.mark.parametrize("schema", [Flags, list[Flags]], ids=["model", "list"])
@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize("reply", COMMA_ENDS)
async def test_no_schema_decides_a_comma_after_the_root_then_the_end(
    reply: str, make: Any, schema: Any
) -> None:
    parser = make(pydantic_object=schema)
    message = AIMessage(reply, response_metadata={"finish_reason": "length"})
    with pytest.raises(JsonRecoveryError):
        parser.parse(reply)
    with pytest.raises(JsonRecoveryError):
        await parser.ainvoke(message)


@pytest.mark.parametrize("reply", COMMA_ENDS)
def test_extract_json_refuses_a_comma_after_the_root(reply: str) -> None:
    with pytest.raises(JsonRecoveryError):
        extract_json(reply)


def test_structured_output_asks_again_after_a_comma_ending_the_reply() -> None:
    model = ToolCallingChatModel(script=['```json\n{"b": false},', '{"b": false}'])
    chain = structured_output(
        model,
        Flags,
        strategy="json",
        parser=JsonFenceOutputParser(pydantic_object=Flags, repair=True),
    )
    assert chain.invoke("go") == Flags(b=False)
    assert len(model.calls) == 2


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # A fence closed after the comma: the model ended its value there.
        pytest.param('```json\n{"b": false},\n```', {"b": False}, id="fenced"),
        pytest.param('```json\n{"b": false},```', {"b": False}, id="fence_glued"),
        pytest.param(
            'Here:\n```json\n{"b": false},\n```\nDone.', {"b": False}, id="fence_prose"
        ),
        pytest.param("```json\n[1, 2],\n```", [1, 2], id="fenced_array"),
        pytest.param('{"a": {"b": 1},}', {"a": {"b": 1}}, id="inside_the_root"),
        pytest.param(
            '```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}, id="fenced_inside"
        ),
        pytest.param('{"b": false};', {"b": False}, id="semicolon"),
    ],
)
def test_a_comma_before_a_closer_or_a_fence_is_read_as_trailing(
    reply: str, expected: Any
) -> None:
    for make in (JsonFenceOutputParser, TruncationRecoveringOutputParser):
        assert make(repair=True).parse(reply) == expected


# --- (c) a placeholder beside a value of its keys ----------------------------------


class Person(BaseModel):
    name: str
    age: int = 0


PLACEHOLDER_BESIDE = [
    pytest.param(
        'The format is:\n```json\n{"name": "..."}\n```\nHere: {"name": "Ada"}',
        id="fenced_dots_then_prose",
    ),
    pytest.param(
        'Use:\n```json\n{"name": "<name>"}\n```\nSo: {"name": "Ada"}', id="angle"
    ),
    pytest.param(
        'Format:\n```json\n{"name": "string", "age": 0}\n```\n'
        'Answer:\n```json\n{"name": "Ada", "age": 36}\n```',
        id="type_name_two_fences",
    ),
    pytest.param('Format: {"name": "…"}. Answer: {"name": "Ada"}', id="prose_ellipsis"),
    pytest.param(
        '```json\n{"name": "[your name]", "age": 0}\n```\nI think {"name": "Ada",'
        ' "age": 36}',
        id="brackets",
    ),
    pytest.param(
        '<think>x</think>Template: {"name": "{{name}}"}\nFilled: {"name": "Ada"}',
        id="template",
    ),
    pytest.param('{"name": ""}\nor rather {"name": "Ada"}', id="empty"),
]
PLACEHOLDER_ALONE = [
    pytest.param(
        '```json\n{"name": "Ada"}\n```\nFormat: {"name": "..."}',
        {"name": "Ada"},
        id="answer_first",
    ),
    pytest.param(
        'Format: {"name": "..."}\nAnswer:\n```json\n{"name": "Ada"}\n```',
        {"name": "Ada"},
        id="fence_wins_anyway",
    ),
    pytest.param(
        '```json\n{"name": "..."}\n```\nSee also {"id": 3}',
        {"name": "..."},
        id="no_rival_of_its_keys",
    ),
    pytest.param('{"name": "..."}', {"name": "..."}, id="alone"),
    pytest.param(
        '```json\n{"name": "Bob"}\n```\nAnswer: {"name": "Ada"}',
        {"name": "Bob"},
        id="two_values_keep_the_order",
    ),
    pytest.param(
        '```json\n{"name": "..."}\n```\n{"name": "<n>", "age": 1}',
        {"name": "..."},
        id="rival_has_other_keys",
    ),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("reply", PLACEHOLDER_BESIDE)
async def test_a_placeholder_beside_a_value_of_its_keys_raises(
    reply: str, *, repair: bool
) -> None:
    parsers = [
        JsonFenceOutputParser(repair=repair),
        JsonFenceOutputParser(pydantic_object=Person, repair=repair),
        TruncationRecoveringOutputParser(repair=repair),
        TruncationRecoveringOutputParser(pydantic_object=Person, repair=repair),
    ]
    for parser in parsers:
        with pytest.raises(JsonRecoveryError, match="two readings"):
            parser.parse(reply)
        with pytest.raises(JsonRecoveryError, match="two readings"):
            await parser.ainvoke(AIMessage(reply))
    with pytest.raises(JsonRecoveryError, match="two readings"):
        extract_json(reply)
    # prefer="last" answers the value written last, if it is no placeholder.
    try:
        last = JsonFenceOutputParser(repair=repair, prefer="last").parse(reply)
    except JsonRecoveryError:
        return
    assert last["name"] == "Ada"


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("reply", "expected"), PLACEHOLDER_ALONE)
def test_a_placeholder_without_a_rival_keeps_the_order(
    reply: str, expected: Any, *, repair: bool
) -> None:
    assert JsonFenceOutputParser(repair=repair).parse(reply) == expected
    assert TruncationRecoveringOutputParser(repair=repair).parse(reply) == expected
    assert extract_json(reply).value == expected


def test_structured_output_asks_again_beside_a_format_example() -> None:
    reply = 'The format is:\n```json\n{"name": "..."}\n```\nHere: {"name": "Ada"}'
    model = ToolCallingChatModel(script=[reply, '{"name": "Ada"}'])
    chain = structured_output(model, Person, strategy="json", max_retries=1)
    assert chain.invoke("go") == Person(name="Ada")
    assert len(model.calls) == 2


# --- (F4, F11) envelopes beside a field, calls whose name is a field -----------------


class GetWeather(BaseModel):
    """Get the weather."""

    city: str
    unit: str = "c"


class Task(BaseModel):
    """Create a task."""

    name: str
    priority: str = "low"


BESIDE_A_FIELD = [
    pytest.param(
        GetWeather, '{"arguments": {"city": "Paris"}, "unit": "f"}', id="args"
    ),
    pytest.param(
        GetWeather, '{"properties": {"city": "Paris"}, "unit": "f"}', id="props"
    ),
    pytest.param(
        GetWeather,
        '{"name": "GetWeather", "arguments": {"city": "Paris"}, "unit": "f"}',
        id="call",
    ),
    pytest.param(
        GetWeather,
        '{"type": "function", "function": {"name": "GetWeather", "arguments": '
        '"{\\"city\\": \\"Paris\\"}"}, "unit": "f"}',
        id="function",
    ),
    pytest.param(
        Person, '{"name": "Ada", "parameters": {"age": 36}}', id="name_beside"
    ),
    pytest.param(
        Task, '{"name": "Task", "arguments": {"priority": "high"}}', id="no_name"
    ),
]
UNWRAPPED = [
    pytest.param(
        Task,
        '{"name": "create_task", "arguments": {"name": "deploy", "priority": "high"}}',
        Task(name="deploy", priority="high"),
        id="call_name_is_a_field",
    ),
    pytest.param(
        Task,
        '{"name": "create_task", "parameters": {"name": "deploy", "priority": "high"}}',
        Task(name="deploy", priority="high"),
        id="parameters",
    ),
    pytest.param(
        Person,
        '{"name": "Person", "arguments": "{\\"name\\": \\"Ada\\", \\"age\\": 36}"}',
        Person(name="Ada", age=36),
        id="arguments_string",
    ),
    pytest.param(
        GetWeather,
        '{"name": "GetWeather", "id": "c1", "arguments": {"city": "Paris"}}',
        GetWeather(city="Paris"),
        id="own_keys_only",
    ),
    pytest.param(
        Person, '{"name": "Ada", "age": 3}', Person(name="Ada", age=3), id="no_envelope"
    ),
]


@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize(("model", "reply"), BESIDE_A_FIELD)
async def test_an_envelope_beside_a_field_is_not_unwrapped(
    model: Any, reply: str, make: Any
) -> None:
    parser = make(pydantic_object=model)
    with pytest.raises(SchemaValidationError):
        parser.parse(reply)
    with pytest.raises(SchemaValidationError):
        await parser.ainvoke(AIMessage(reply))


@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize(("model", "reply", "expected"), UNWRAPPED)
def test_a_call_is_read_by_its_arguments(
    model: Any, reply: str, expected: Any, make: Any
) -> None:
    assert make(pydantic_object=model).parse(reply) == expected


@pytest.mark.parametrize(("model", "reply"), BESIDE_A_FIELD)
def test_structured_output_asks_again_for_an_envelope_beside_a_field(
    model: Any, reply: str
) -> None:
    good = model.model_validate_json(
        '{"city": "Oslo"}' if model is GetWeather else '{"name": "Ada", "age": 1}'
    )
    chat = ToolCallingChatModel(script=[reply, good.model_dump_json()])
    chain = structured_output(chat, model, strategy="json", max_retries=1)
    assert chain.invoke("go") == good
    assert len(chat.calls) == 2


def test_a_tool_call_keeps_the_member_beside_its_arguments() -> None:
    inner = '{"arguments": {"city": "Paris"}, "unit": "f"}'
    text = f'<tool_call>{{"name": "GetWeather", "arguments": {inner}}}</tool_call>'
    invalid = {
        "name": "GetWeather",
        "args": inner,
        "id": "c1",
        "error": None,
        "type": "invalid_tool_call",
    }
    for message in (AIMessage(text), AIMessage("", invalid_tool_calls=[invalid])):
        fixed = recover_tool_calls(message, [GetWeather])
        assert fixed.tool_calls == []
        assert fixed.invalid_tool_calls


# --- (F1) a reply that starts inside an object whose brace was prefilled -----------

MEMBERS_FIRST = [
    pytest.param(
        '"city": "Paris"}\n\nFor example {"city": "Rome"} would be wrong.', id="example"
    ),
    pytest.param('"a": 1}\n{"a": 2}', id="second_value"),
    pytest.param('"a": 1, "b": 2}\n\n```json\n{"a": 5}\n```', id="fence_after"),
    pytest.param('city": "Paris"}\n{"city": "Rome"}', id="key_quote_lost"),
    pytest.param('<think>x</think>\n  "a": [1]}\nor [2]', id="after_reasoning"),
    pytest.param('"Answer": {"a": 1}', id="member_holding_the_value"),
]


@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize("reply", MEMBERS_FIRST)
async def test_a_reply_that_starts_with_members_never_answers_a_later_value(
    reply: str, make: Any
) -> None:
    parser = make()
    with pytest.raises(InvalidJsonError, match="opening brace is missing"):
        parser.parse(reply)
    with pytest.raises(InvalidJsonError):
        await parser.ainvoke(AIMessage(reply))
    with pytest.raises(JsonRecoveryError):
        for _ in parser.transform(iter([AIMessageChunk(content=reply)])):
            pass
    with pytest.raises(InvalidJsonError):
        extract_json(reply)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('"a": 1,\n"b": 2\n}', {"a": 1, "b": 2}, id="members_alone"),
        pytest.param('  "a": {"b": 1}}\n', {"a": {"b": 1}}, id="nested"),
    ],
)
def test_members_alone_still_get_their_brace_back(reply: str, expected: Any) -> None:
    for make in (JsonFenceOutputParser, TruncationRecoveringOutputParser):
        assert make(repair=True).parse(reply) == expected


@pytest.mark.parametrize(
    "reply", ['Answer: {"a": 1}', '"Hello" she said: {"a": 1}'], ids=["label", "quote"]
)
def test_a_label_or_a_quotation_first_is_no_member(reply: str) -> None:
    assert JsonFenceOutputParser().parse(reply) == {"a": 1}


def test_structured_output_asks_again_for_members_first() -> None:
    model = ToolCallingChatModel(
        script=['"name": "Ada"}\nFor example {"name": "Bob"}', '{"name": "Ada"}']
    )
    chain = structured_output(model, Person, strategy="json", max_retries=1)
    assert chain.invoke("go") == Person(name="Ada")
    assert len(model.calls) == 2


# --- (F6) bare items and a closer after a complete root ------------------------------

ITEMS_AFTER_ROOT = [
    pytest.param("[] false]", [], id="literal"),
    pytest.param("[]\nfalse\n]", [], id="lines"),
    pytest.param('[] "x"]', [], id="string"),
    pytest.param("{} true}", {}, id="object_root"),
    pytest.param('{"a": 1}, "x"]', {"a": 1}, id="comma_string"),
    pytest.param('Here: {"a": 1}, 2]', {"a": 1}, id="in_prose"),
    pytest.param("[1, 2], 3]", [1, 2], id="nested_array"),
    pytest.param("[[1]], 2]", [[1]], id="deeper"),
    pytest.param('[0.5, []], false, "z"]', [0.5, []], id="several_items"),
    pytest.param(
        "[\n  0.5,\n  \n    []\n  ],\n  false,\n  false\n]", [0.5, []], id="indented"
    ),
]


@pytest.mark.parametrize(("reply", "root"), ITEMS_AFTER_ROOT)
async def test_items_after_a_root_are_never_dropped(reply: str, root: Any) -> None:
    for repair in (False, True):
        for kind in (JsonFenceOutputParser, TruncationRecoveringOutputParser):
            parser = kind(repair=repair)
            try:
                value = parser.parse(reply)
            except JsonRecoveryError:
                continue
            # With repair, a reading that keeps the items; never the root alone.
            assert value != root, (parser, value)
    with pytest.raises(JsonRecoveryError):
        JsonFenceOutputParser().parse(reply)
    with pytest.raises(JsonRecoveryError):
        await TruncationRecoveringOutputParser().ainvoke(AIMessage(reply))
    with pytest.raises(JsonRecoveryError):
        extract_json(reply)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('{"a": 1} [2]', {"a": 1}, id="citation_after"),
        pytest.param("[1] and 2", [1], id="prose_after"),
        pytest.param('{"a": 1}, 2 more]', {"a": 1}, id="words_after_the_item"),
    ],
)
def test_prose_after_a_root_is_still_skipped(reply: str, expected: Any) -> None:
    assert JsonFenceOutputParser().parse(reply) == expected


# --- (F5) a continuation in a fence of its own, or a repeat after a space ------------

LENGTH = {"finish_reason": "length"}
STOP = {"finish_reason": "stop"}
TWO_WAY_PIECES = [
    pytest.param('{"sku": "A', '```json\n-1"}\n```', id="fence"),
    pytest.param('{"sku": "A', '```\n-1"}\n```', id="untagged_fence"),
    pytest.param('{"sku": "A', '\n```json\n-1"}\n```', id="fence_after_newline"),
    pytest.param('{"note": "in mark', ' in markdown"}', id="repeat_after_space"),
    pytest.param('{"note": "in mark', '\nin markdown"}', id="repeat_after_newline"),
    pytest.param('{"note": "one two', ' two three"}', id="word_repeated"),
]


def _scripted(first: str, piece: str) -> Any:
    from _models import ScriptedChatModel  # noqa: PLC0415

    return ScriptedChatModel(
        script=[
            AIMessage(first, response_metadata=LENGTH),
            AIMessage(piece, response_metadata=STOP),
            AIMessage('{"sku": "whole", "note": "whole"}', response_metadata=STOP),
        ]
    )


@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize(("first", "piece"), TWO_WAY_PIECES)
async def test_a_continuation_read_two_ways_asks_for_the_whole_answer(
    first: str, piece: str, make: Any, mode: str
) -> None:
    model = _scripted(first, piece)
    chain = JsonRetryChain(model=model, parser=make(), on_truncation="continue")
    value = chain.invoke("go") if mode == "sync" else await chain.ainvoke("go")
    assert value == {"sku": "whole", "note": "whole"}
    assert len(model.calls) == 3


class Sku(BaseModel):
    sku: str


def test_structured_output_asks_again_after_a_fenced_continuation() -> None:
    model = _scripted('{"sku": "A', '```json\n-1"}\n```')
    chain = structured_output(model, Sku, strategy="json", on_truncation="continue")
    assert chain.invoke("go") == Sku(sku="whole")
    assert len(model.calls) == 3


@pytest.mark.parametrize(
    ("first", "piece", "expected"),
    [
        pytest.param('{"a": "was', ' strong"}', {"a": "was strong"}, id="space_exact"),
        pytest.param('{"a": [1, 2,', "\n 3]}", {"a": [1, 2, 3]}, id="newline_exact"),
        pytest.param('{"a": "x', '```"}', {"a": "x```"}, id="backticks_as_data"),
    ],
)
def test_an_exact_continuation_still_joins(
    first: str, piece: str, expected: Any
) -> None:
    model = _scripted(first, piece)
    chain = JsonRetryChain(
        model=model, parser=JsonFenceOutputParser(), on_truncation="continue"
    )
    assert chain.invoke("go") == expected
    assert len(model.calls) == 2


# --- (F19) a string at the cut that closes the JSON and goes on in words ------------

CLOSED_IN_A_STRING = [
    pytest.param('{"path": "/tmp} Please confirm.', id="sentence"),
    pytest.param('{"msg": "ok} Done.', id="short"),
    pytest.param('{"a": 1, "msg": "ok}. Hope this helps!', id="punctuation"),
    pytest.param('{"a: 1} Thanks!', id="key"),
    pytest.param('{"a": {"b": "x}} and that is it', id="two_closers"),
    pytest.param('[{"a": "x"}, "y] as you asked', id="array"),
]


@pytest.mark.parametrize("reason", [None, "stop"])
@pytest.mark.parametrize("reply", CLOSED_IN_A_STRING)
async def test_a_lost_quote_before_the_closer_is_not_read_as_a_cut(
    reply: str, reason: str | None
) -> None:
    metadata = {"finish_reason": reason} if reason else {}
    for repair in (False, True):
        parser = TruncationRecoveringOutputParser(repair=repair)
        with pytest.raises(InvalidJsonError, match="missing closing quote"):
            parser.parse(reply)
        with pytest.raises(InvalidJsonError):
            await parser.ainvoke(AIMessage(reply, response_metadata=metadata))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('{"a": "Use {name} here', {"a": "Use {name} here"}, id="balanced"),
        pytest.param('{"a": "x} y', {"a": "x} y"}, id="length_stop"),
        pytest.param('{"a": "x}', {"a": "x}"}, id="closer_last"),
    ],
)
def test_a_cut_string_that_holds_a_closer_still_closes(
    reply: str, expected: Any
) -> None:
    message = AIMessage(reply, response_metadata={"finish_reason": "length"})
    assert TruncationRecoveringOutputParser().invoke(message) == expected
    if "y" not in reply:
        assert TruncationRecoveringOutputParser().parse(reply) == expected


# --- (F23) a placeholder written before the answer, under a schema ------------------


class City(BaseModel):
    city: str


@pytest.mark.parametrize(
    "reply",
    [
        'Expected shape `{"city": "..."}`. Result: {"city": "Paris"}',
        'Expected shape `{"city": "<city>"}`. Result: {"city": "Paris"}',
        'Format: {"city": "string"}\nAnswer: {"city": "Paris"}',
    ],
    ids=["dots", "angle", "type_name"],
)
def test_a_placeholder_before_the_answer_never_wins(reply: str) -> None:
    for repair in (False, True):
        with pytest.raises(SchemaValidationError, match="two readings"):
            JsonFenceOutputParser(pydantic_object=City, repair=repair).parse(reply)


# --- (F22) one key written twice, under a schema -------------------------------------


class Retries(BaseModel):
    retries: int = 0
    name: str = ""


REPEATED = [
    pytest.param('{"retries": 3, "retries": 4}', id="top"),
    pytest.param(
        '```json\n{"retries": 3, "name": "x", "retries": 4}\n```', id="fenced"
    ),
    pytest.param('Here: {"retries": 3, "retries": 4}. Done.', id="prose"),
    pytest.param('{"name": "a", "retries": 1, "name": "b"}', id="string_field"),
]


@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize("reply", REPEATED)
async def test_a_key_written_twice_is_two_readings(reply: str, make: Any) -> None:
    parser = make(pydantic_object=Retries)
    with pytest.raises(SchemaValidationError, match="written twice"):
        parser.parse(reply)
    with pytest.raises(SchemaValidationError, match="written twice"):
        await parser.ainvoke(AIMessage(reply))


def test_structured_output_asks_again_for_a_key_written_twice() -> None:
    model = ToolCallingChatModel(
        script=['{"retries": 3, "retries": 4}', '{"retries": 4}']
    )
    chain = structured_output(model, Retries, strategy="json", max_retries=1)
    assert chain.invoke("go") == Retries(retries=4)
    assert len(model.calls) == 2


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('{"retries": 3, "retries": 3}', Retries(retries=3), id="alike"),
        pytest.param(
            '{"retries": 3, "name": {"a": 1}}', None, id="other_key_no_repeat"
        ),
    ],
)
def test_a_key_repeated_alike_is_one_reading(reply: str, expected: Any) -> None:
    parser = JsonFenceOutputParser(pydantic_object=Retries)
    if expected is None:
        with pytest.raises(SchemaValidationError, match="valid string"):
            parser.parse(reply)
    else:
        assert parser.parse(reply) == expected
    # Without a schema the JSON is what a decoder reads: the last one.
    assert JsonFenceOutputParser().parse('{"a": 1, "a": 2}') == {"a": 2}


# --- (F14) a harmony message begun after the commentary, its header cut -------------

COMMENTARY = '<|start|>assistant<|channel|>commentary<|message|>{"a": 1}<|end|>'
CUT_HEADERS = [
    pytest.param(COMMENTARY + "<|start|>assistant<|channel|>final", id="final"),
    pytest.param(COMMENTARY + "<|start|>assistant<|channel|>fin", id="channel_cut"),
    pytest.param(COMMENTARY + "<|start|>assistant", id="role"),
    pytest.param(COMMENTARY + "<|start|>", id="start"),
]


@pytest.mark.parametrize("make", ALL_PARSERS)
@pytest.mark.parametrize("reply", CUT_HEADERS)
async def test_commentary_is_no_payload_once_another_message_began(
    reply: str, make: Any
) -> None:
    parser = make()
    with pytest.raises(JsonRecoveryError):
        parser.parse(reply)
    with pytest.raises(JsonRecoveryError):
        await parser.ainvoke(AIMessage(reply))
    with pytest.raises(JsonRecoveryError):
        extract_json(reply)


def test_commentary_alone_is_still_the_payload() -> None:
    assert JsonFenceOutputParser().parse(COMMENTARY) == {"a": 1}
    final = COMMENTARY + '<|start|>assistant<|channel|>final<|message|>{"a": 2}'
    assert JsonFenceOutputParser().parse(final) == {"a": 2}
