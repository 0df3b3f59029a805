"""Issue 21, family 24: a logged message's text is not the reply.

A record, frame cell or batch line that holds a chat message written out as
text (its JSON, a Python dict's repr as Dask's string conversion gives,
``str()`` or ``repr()`` of a LangChain message) or a message object is read
by its content and metadata; one whose content cannot be read is a
``BadRecord``. Never ``ok=True`` with the envelope as the value.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, HumanMessage, messages_to_dict

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
    recover_frame,
    recover_record,
)
from langchain_jsonrecover._core.reply.logged import read_logged_message
from langchain_jsonrecover.records import recover_line

LENGTH = {"finish_reason": "length"}
TRICKY = '{"note": "it\'s \\"quoted\\"\\n, C:\\\\logs", "n": 1}'
TRICKY_VALUE = {"note": 'it\'s "quoted"\n, C:\\logs', "n": 1}
MESSAGE = AIMessage('Sure: {"id": 1}', response_metadata={"finish_reason": "stop"})
DICT = {"content": '{"id": 1}', "response_metadata": {"finish_reason": "stop"}}
OPENAI = {"role": "assistant", "content": '{"id": 1}', "refusal": None}
BAD = "BadRecord"

# (record, the value read, or an error kind)
CASES: list[tuple[Any, Any]] = [
    (str(DICT), {"id": 1}),
    (json.dumps(DICT), {"id": 1}),
    (str(OPENAI), {"id": 1}),
    (json.dumps(OPENAI), {"id": 1}),
    (str(MESSAGE), {"id": 1}),
    (repr(MESSAGE), {"id": 1}),
    (MESSAGE.model_dump_json(), {"id": 1}),
    (MESSAGE, {"id": 1}),
    (HumanMessage('{"id": 1}'), {"id": 1}),
    (str(AIMessage(TRICKY)), TRICKY_VALUE),
    (repr(AIMessage(TRICKY)), TRICKY_VALUE),
    (str({"content": TRICKY, "additional_kwargs": {}}), TRICKY_VALUE),
    (str(AIMessage([{"type": "text", "text": '{"id": 1}'}])), {"id": 1}),
    (messages_to_dict([AIMessage('{"id": 1}')])[0], {"id": 1}),
    (json.dumps(messages_to_dict([AIMessage('{"id": 1}')])[0]), {"id": 1}),
    (dumpd(AIMessage('{"id": 1}')), {"id": 1}),
    (str({"role": "assistant", "content": "no json here"}), "NoJsonFoundError"),
    ("content=not_a_literal additional_kwargs={}", BAD),
    ("AIMessage(content=broken, additional_kwargs={})", BAD),
    # found by fuzzing: a log line cut short is no reply, never the envelope
    ("AIMessage(content='{\"id\": 1}', additional_kwargs=", {"id": 1}),
    ('AIMessage(content=\'{"id": 1', BAD),
    ("content='{\"id\": 1}' additional_kwargs='x'", BAD),
    ('{"content": "{', BAD),
    ('{\'content\': \'{"id": 1, "items": [1, 2', BAD),
    ('{"content": "{\\"id\\": 1, \\"items\\": [1, 2', BAD),
    ('{"content": "{\\"id\\": 1}", "response_metadata": {"finish', BAD),
    ("{'role': 'assistant', 'content': 'x", BAD),
    # values that only look like envelopes stay values
    (
        '{"content": "an article", "type": "blog"}',
        {"content": "an article", "type": "blog"},
    ),
    ('Sure! {"content": "x"}', {"content": "x"}),
    ('{"id": 1}', {"id": 1}),
]

PARSERS = {
    "default": None,
    "repair": JsonFenceOutputParser(repair=True),
    "truncation_repair": TruncationRecoveringOutputParser(repair=True),
}


@pytest.mark.parametrize("parser", list(PARSERS))
@pytest.mark.parametrize(("record", "expected"), CASES)
def test_a_logged_message_is_read_by_its_content(
    record: Any, expected: Any, parser: str
) -> None:
    row = recover_record(record, PARSERS[parser])
    if isinstance(expected, str):
        assert not row["ok"], row
        assert row["error"]["kind"] == expected, row
    else:
        assert row["ok"], row
        assert row["value"] == expected


@pytest.mark.parametrize(
    "record",
    [
        str({"content": '{"id": 1, "items": [1, 2', "response_metadata": LENGTH}),
        str(AIMessage('{"id": 1, "items": [1, 2', response_metadata=LENGTH)),
        AIMessage(
            '{"id": 1, "items": [1, 2', response_metadata=LENGTH
        ).model_dump_json(),
    ],
)
def test_the_logged_metadata_says_the_reply_was_cut(record: str) -> None:
    row = recover_record(record)
    assert row["cut_off"] is True
    assert row["error"]["kind"] == "InvalidJsonError"
    closed = recover_record(record, TruncationRecoveringOutputParser())
    # The number at the cut may have been longer: it is dropped.
    assert closed["value"] == {"id": 1, "items": [1]}


def test_a_batch_line_holding_a_message_as_text() -> None:
    line = orjson.dumps({"reply": str(DICT)})
    assert recover_line(line, JsonFenceOutputParser(repair=True), field="reply")[
        "value"
    ] == {"id": 1}


def test_a_frame_of_messages_and_their_texts() -> None:
    pd = pytest.importorskip("pandas")
    cells = [DICT, str(DICT), MESSAGE, str(MESSAGE), 'Sure {"id": 1}']
    out = recover_frame(
        pd.DataFrame({"content": cells}), JsonFenceOutputParser(repair=True)
    )
    assert out["value_json"].tolist() == ['{"id":1}'] * len(cells)


def test_the_dask_default_string_conversion() -> None:
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe", reason="needs the dask extra")
    frame = pd.DataFrame({"content": [DICT, MESSAGE, 'Sure {"id": 1}']})
    lazy = dd.from_pandas(frame, npartitions=1)
    assert str(lazy.dtypes["content"]) == "string"  # the cells became str(cell)
    parser = JsonFenceOutputParser(repair=True)
    out = lazy.map_partitions(
        recover_frame, parser, meta=recover_frame(frame.head(0))
    ).compute(scheduler="sync")
    assert out["value_json"].tolist() == ['{"id":1}'] * 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("content='x' additional_kwargs={} response_metadata={}", "x"),
        (
            "content='a response_metadata=b' response_metadata={}",
            "a response_metadata=b",
        ),
        ("AIMessage(content='a, id=b', id='c')", "a, id=b"),
        ("content=None", None),
        ("Sure: content='x'", "none"),
    ],
)
def test_the_fields_of_a_message_written_out(text: str, expected: str | None) -> None:
    fields = read_logged_message(text)
    if expected == "none":
        assert fields is None
    else:
        assert fields is not None
        assert fields["content"] == expected
