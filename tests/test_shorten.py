"""Model input quoted in feedback, errors and events is cut short (issue 15, item 3).

A key, a tag or a value of the reply can be megabytes; what we quote of it in
the next user turn, ``str(error)``, ``error.errors`` and the retry event must
not grow with it. Shown by comparing two sizes of the same input in one run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
from _models import ScriptedChatModel
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.output_parsers import PydanticOutputParser
from pydantic import BaseModel, ConfigDict, Field

from langchain_jsonrecover import (
    Halt,
    JsonFenceOutputParser,
    JsonRetryChain,
    RetryExhaustedError,
    SchemaValidationError,
)
from langchain_jsonrecover._core.shorten import (
    TEXT_WIDTH,
    VALUE_WIDTH,
    shorten,
    shorten_quoting,
)
from langchain_jsonrecover.retry import RETRY_EVENT

if TYPE_CHECKING:
    from collections.abc import Callable


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int


class Cat(BaseModel):
    kind: Literal["cat"]


class Dog(BaseModel):
    kind: Literal["dog"]


class Pet(BaseModel):
    pet: Annotated[Cat | Dog, Field(discriminator="kind")]


class Person(BaseModel):
    name: str
    age: int


JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "integer"}},
    "additionalProperties": False,
}

# (schema, reply of about n characters, what the feedback must still say)
Case = tuple[Any, "Callable[[int], str]", str]
CASES = [
    pytest.param(
        Strict,
        lambda n: json.dumps({"a": 1, "k" * n: 1}),
        "Extra inputs are not permitted",
        id="extra-forbid-long-key",
    ),
    pytest.param(
        Pet,
        lambda n: json.dumps({"pet": {"kind": "x" * n}}),
        "expected tags: 'cat', 'dog'",
        id="discriminated-union-long-tag",
    ),
    pytest.param(
        Pet,
        lambda n: json.dumps({"pet": {"kind": "x " * (n // 2)}}),
        "Input tag",
        id="discriminated-union-long-tag-with-spaces",
    ),
    pytest.param(
        dict[str, int],
        lambda n: json.dumps({f"k{i}" + "y" * (n // 30): "no" for i in range(30)}),
        "Input should be a valid integer",
        id="dict-long-keys",
    ),
    pytest.param(
        JSON_SCHEMA,
        lambda n: json.dumps({"a": "v" * n, "z" * n: 1}),
        "Additional properties are not allowed",
        id="json-schema-long-key-and-value",
    ),
]


def halt(schema: Any, reply: str) -> Halt:
    step = JsonFenceOutputParser(pydantic_object=schema).process(reply)
    assert isinstance(step, Halt)
    return step


def sizes(step: Halt) -> tuple[int, int, int]:
    error = step.error
    assert isinstance(error, SchemaValidationError)
    return (
        len(str(step.feedback.content)),
        len(str(error)),
        len(json.dumps(error.errors)),
    )


@pytest.mark.parametrize(("schema", "reply", "said"), CASES)
def test_feedback_and_error_do_not_grow_with_the_input(
    schema: Any, reply: Callable[[int], str], said: str
) -> None:
    small, large = halt(schema, reply(10_000)), halt(schema, reply(1_000_000))
    assert sizes(large) == sizes(small)
    feedback = str(large.feedback.content)
    assert said in feedback
    assert len(feedback) < 4_000
    assert len(str(large.error.llm_output)) >= 1_000_000  # the reply travels whole


@pytest.mark.parametrize(("schema", "reply", "said"), CASES)
def test_each_listed_error_is_cut_short(
    schema: Any, reply: Callable[[int], str], said: str
) -> None:
    error = halt(schema, reply(200_000)).error
    assert isinstance(error, SchemaValidationError)
    assert error.errors
    for item in error.errors:
        assert len(item["path"]) <= TEXT_WIDTH
        assert len(item["message"]) <= TEXT_WIDTH
        assert len(item["value"]) <= VALUE_WIDTH
    assert any(
        said.split(":", maxsplit=1)[0] in item["message"] for item in error.errors
    )


async def run(chain: JsonRetryChain[Any], config: Any, mode: str) -> Any:
    if mode == "sync":
        return chain.invoke("JSON please", config)
    return await chain.ainvoke("JSON please", config)


class Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.feedback: list[str] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        if name == RETRY_EVENT:
            self.feedback.append(data["feedback"])


@pytest.mark.parametrize(
    "parser",
    [
        pytest.param(JsonFenceOutputParser(pydantic_object=Strict), id="ours"),
        pytest.param(PydanticOutputParser(pydantic_object=Strict), id="foreign"),
    ],
)
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_next_user_turn_event_and_retry_error_are_bounded(
    parser: Any, mode: str
) -> None:
    reply = json.dumps({"a": "x" * 1_000_000, "k" * 1_000_000: 1})
    model = ScriptedChatModel(script=[reply])
    chain = JsonRetryChain(model=model, parser=parser, max_retries=1)
    events = Events()
    config: Any = {"callbacks": [events]}
    with pytest.raises(RetryExhaustedError) as info:
        await run(chain, config, mode)
    next_turn = model.calls[1][-1]
    assert len(str(next_turn.content)) < 4_000
    assert [len(f) for f in events.feedback] == [len(str(next_turn.content))]
    assert len(str(info.value)) < 4_000
    assert len(str(info.value.observation)) < 4_000
    assert info.value.llm_output == reply


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("abc", 4, "abc"),
        ("abcd", 4, "abcd"),
        ("abcde", 4, "abc…"),
        ("", 4, ""),
    ],
)
def test_shorten_keeps_the_start(text: str, width: int, expected: str) -> None:
    assert shorten(text, width) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("short words stay as they are", "short words stay as they are"),
        (
            "a " + "x" * 100 + " b",
            "a " + "x" * (VALUE_WIDTH - 1) + "… b",
        ),
        ("w " * 1000, ("w " * 1000)[: TEXT_WIDTH - 1] + "…"),
    ],
    ids=["short", "one-long-word", "many-short-words"],
)
def test_shorten_quoting_cuts_long_words_then_the_whole(
    text: str, expected: str
) -> None:
    assert shorten_quoting(text) == expected
