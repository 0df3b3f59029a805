"""``recover_record``, ``recover_line`` and ``recover_frame``: one record, one row.

The rows ``jsonrecover batch`` writes and the frames a distributed engine
builds come from these functions, so the tables here pin both.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

import orjson
import pytest
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    recover_frame,
    recover_record,
)
from langchain_jsonrecover.records import (
    FRAME_COLUMNS,
    ROW_KEYS,
    Parser,
    dump_json,
    recover_line,
)


class Person(BaseModel):
    name: str
    age: int


CUT = {"finish_reason": "length"}
FENCED = 'Sure:\n```json\n{"a": [1, 2]}\n```\nBye.'

# (record, field, parser, ok, value or error kind, repairs, cut_off)
ROWS: list[Any] = [
    pytest.param('{"a": 1}', None, None, True, {"a": 1}, [], False, id="reply_string"),
    pytest.param(
        FENCED, None, None, True, {"a": [1, 2]}, ["fence_stripped"], False,
        id="fenced_reply_string",
    ),
    pytest.param(
        {"content": FENCED, "response_metadata": {"finish_reason": "stop"}},
        None, None, True, {"a": [1, 2]}, ["fence_stripped"], False,
        id="message_dict",
    ),
    pytest.param(
        {"id": 1, "reply": 'Here: {"a": 1}'},
        "reply", None, True, {"a": 1}, ["prose_trimmed"], False,
        id="field_holds_a_string",
    ),
    pytest.param(
        {"outputs": {"message": {"content": "[1]", "type": "ai"}}},
        "outputs.message", None, True, [1], [], False,
        id="dotted_path_to_a_message_dict",
    ),
    pytest.param(
        {"choices": [{"message": {"content": "[0]"}}, {"message": {"content": "[1]"}}]},
        "choices.1.message", None, True, [1], [], False,
        id="digits_index_a_list",
    ),
    pytest.param(
        {"choices": [{"message": {"content": "[0]"}}, {"message": {"content": "[1]"}}]},
        "choices.-1.message.content", None, True, [1], [], False,
        id="negative_index_from_the_end",
    ),
    pytest.param(
        {"data": {"content": [{"type": "text", "text": '{"a": 1}'}]}},
        "data", None, True, {"a": 1}, [], False,
        id="content_blocks_give_their_text",
    ),
    pytest.param(
        {"content": '{"a": [1, 2', "response_metadata": CUT},
        None, None, False, "InvalidJsonError", [], True,
        id="cut_off_reply_fails_and_says_so",
    ),
    pytest.param(
        {"content": '{"a": [1, 2', "response_metadata": CUT},
        None, TruncationRecoveringOutputParser(), True, {"a": [1]},
        ["truncation_closed"], True,
        id="cut_off_reply_closed_by_the_truncation_parser",
    ),
    pytest.param(
        {"content": '{"a": 1}', "response_metadata": {"stop_reason": "max_tokens"}},
        None, None, True, {"a": 1}, [], True,
        id="anthropic_stop_reason_is_cut_off",
    ),
    pytest.param(
        "{'a': True,}", None, JsonFenceOutputParser(repair=True), True, {"a": True},
        ["single_quotes_replaced", "python_literal_replaced", "trailing_comma_removed"],
        False,
        id="repair",
    ),
    pytest.param(
        "{'a': True,}", None, None, True, {"a": True},
        ["single_quotes_replaced", "python_literal_replaced", "trailing_comma_removed"],
        False,
        id="default_repairs_what_has_one_reading",
    ),
    pytest.param(
        "{'a': True,}", None, JsonFenceOutputParser(repair=False), False,
        "InvalidJsonError", [], False,
        id="no_repair_when_off",
    ),
    pytest.param(
        "{'a': True, # on\n}", None, None, False, "InvalidJsonError", [], False,
        id="no_guess_unless_asked",
    ),
    pytest.param(
        "no data at all", None, None, False, "NoJsonFoundError", [], False,
        id="prose_only",
    ),
    pytest.param(
        'x {"name": "Ada", "age": "36"}', None,
        JsonFenceOutputParser(pydantic_object=Person), True,
        {"name": "Ada", "age": 36}, ["prose_trimmed"], False,
        id="schema_value_dumped_to_json_data",
    ),
    pytest.param(
        '{"name": "Ada"}', None, JsonFenceOutputParser(pydantic_object=Person),
        False, "SchemaValidationError", [], False,
        id="schema_mismatch",
    ),
    pytest.param(
        "<json>[1]</json>", None, RegexJsonOutputParser(r"<json>(.*?)</json>"),
        True, [1], ["prose_trimmed"], False,
        id="regex_parser",
    ),
    pytest.param(
        '{"a": 1}', None, JsonFenceOutputParser(max_chars=3), False,
        "ReplyTooLargeError", [], False,
        id="over_max_chars",
    ),
    pytest.param(
        {
            "content": "",
            "additional_kwargs": {"refusal": "I cannot help with that."},
            "response_metadata": {"model_provider": "openai"},
        },
        None, None, False, "ModelRefusalError", [], False,
        id="refusal",
    ),
    pytest.param(
        {"content": [{"type": "refusal", "refusal": "No."}]},
        None, None, False, "ModelRefusalError", [], False,
        id="refusal_block",
    ),
    pytest.param(
        "[123456789012345678901234567890]", None, None, True,
        [123456789012345678901234567890], [], False,
        id="big_integer_kept",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("record", "field", "parser", "ok", "expected", "repairs", "cut_off"), ROWS
)
def test_record_to_row(  # noqa: PLR0917 - one argument per table column
    record: Any,
    field: str | None,
    parser: Parser | None,
    ok: bool,
    expected: Any,
    repairs: list[str],
    cut_off: bool,
) -> None:
    row = recover_record(record, parser, field=field, line=7)
    assert tuple(row) == ROW_KEYS
    assert row["line"] == 7
    assert row["ok"] is ok
    assert row["repairs"] == repairs
    assert row["cut_off"] is cut_off
    if ok:
        assert row["value"] == expected
        assert row["error"] is None
    else:
        assert row["value"] is None
        assert row["error"]["kind"] == expected
        assert row["error"]["message"]
    # The standard library reads integers of any size back exactly.
    assert json.loads(dump_json(row)) == row


BAD_RECORDS: list[Any] = [
    pytest.param({"reply": "x"}, None, "no 'content' (keys: 'reply')", id="no_content"),
    pytest.param({"a": 1}, "b", "no key 'b' in the record (keys: 'a')", id="no_key"),
    pytest.param(
        {"a": {"b": 1}}, "a.c", "no key 'c' in a (keys: 'b')", id="no_nested_key"
    ),
    pytest.param({"a": [1]}, "a.3", "no item 3 in a (a list of 1)", id="no_item"),
    pytest.param(
        {"a": "text"}, "a.b", "cannot take 'b' of a: it is a str", id="into_a_string"
    ),
    pytest.param(
        {"a": [1]}, "a.x", "cannot take 'x' of a: it is a list", id="key_of_list"
    ),
    pytest.param({"a": None}, "a", "null at 'a', not a reply", id="null"),
    pytest.param(42, None, "a number in the record, not a reply", id="number"),
    pytest.param([1, 2], None, "a list in the record, not a reply", id="list"),
    pytest.param(True, None, "a boolean in the record, not a reply", id="boolean"),
    pytest.param(
        {"content": 5}, None, "has a number as content, not text", id="number_content"
    ),
    pytest.param(
        {"content": "x", "response_metadata": "stop"},
        None,
        "is not a message: response_metadata",
        id="metadata_not_a_dict",
    ),
]


@pytest.mark.parametrize(("record", "field", "message"), BAD_RECORDS)
def test_record_without_a_reply_is_a_bad_record(
    record: Any, field: str | None, message: str
) -> None:
    row = recover_record(record, field=field, line=3)
    assert row["ok"] is False
    assert row["error"]["kind"] == "BadRecord"
    assert message in row["error"]["message"]


def test_line_is_none_unless_given() -> None:
    assert recover_record("[1]")["line"] is None


def test_record_is_not_changed() -> None:
    record = {"reply": {"content": "[1]", "response_metadata": {"a": 1}}}
    before = orjson.dumps(record)
    recover_record(record, field="reply")
    assert orjson.dumps(record) == before


LINES: list[Any] = [
    pytest.param(b'"[1]"', True, [1], id="bare_json_string_is_the_reply"),
    pytest.param(b'{"content": "[1]"}', True, [1], id="message_object"),
    pytest.param(b'\xef\xbb\xbf"[1]"', True, [1], id="byte_order_mark_dropped"),
    pytest.param(b'  "[1]"  ', True, [1], id="spaces_around"),
    pytest.param(b"", False, "an empty line, not a JSON record", id="empty"),
    pytest.param(b"   ", False, "an empty line, not a JSON record", id="blank"),
    pytest.param(b"[1]", False, "a list in the record", id="json_array_is_no_reply"),
    pytest.param(b"Sure! [1]", False, "the line is not JSON", id="raw_text_line"),
    pytest.param(b'{"content": "x"', False, "the line is not JSON", id="cut_line"),
    pytest.param(b'"\xff[1]"', False, "the line is not JSON", id="not_utf8"),
]


@pytest.mark.parametrize(("data", "ok", "expected"), LINES)
def test_line_to_row(data: bytes, ok: bool, expected: Any) -> None:
    row = recover_line(data, line=5)
    assert row["line"] == 5
    assert row["ok"] is ok
    if ok:
        assert row["value"] == expected
    else:
        assert expected in row["error"]["message"]
        kind = "BadRecord" if expected.startswith("a list") else "MalformedLine"
        assert row["error"]["kind"] == kind


@pytest.mark.parametrize(
    "parser",
    [
        pytest.param(JsonFenceOutputParser(repair=True), id="fence"),
        pytest.param(TruncationRecoveringOutputParser(), id="truncation"),
        pytest.param(JsonFenceOutputParser(pydantic_object=Person), id="schema"),
        pytest.param(RegexJsonOutputParser(r"<j>(.*)</j>"), id="regex"),
    ],
)
def test_helpers_and_parsers_pickle(parser: Parser) -> None:
    # What a process pool or a cluster ships: the function and its parser.
    function = pickle.loads(pickle.dumps(recover_record))  # noqa: S301 - our bytes
    copy = pickle.loads(pickle.dumps(parser))  # noqa: S301 - our own bytes
    reply = '<j>{"name": "Ada", "age": 3}</j>'
    assert function(reply, copy) == recover_record(reply, parser)


# --- recover_frame ----------------------------------------------------------------


@pytest.fixture
def pd() -> Any:
    return pytest.importorskip("pandas", reason="recover_frame needs the dask extra")


def frame_rows(frame: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = frame.to_dict("records")
    return rows


def test_frame_has_the_fixed_columns_and_types(pd: Any) -> None:
    df = pd.DataFrame({"content": ['{"a": 1}', "nothing"]})
    out = recover_frame(df)
    assert tuple(out.columns) == FRAME_COLUMNS
    assert {name: str(dtype) for name, dtype in out.dtypes.items()} == {
        "line": "int64",
        "ok": "bool",
        "value_json": "object",
        "error_kind": "object",
        "error_message": "object",
        "repairs": "object",
        "cut_off": "bool",
    }


def test_empty_frame_gives_the_columns(pd: Any) -> None:
    # What dask's meta= is built from.
    out = recover_frame(pd.DataFrame({"content": pd.Series([], dtype=object)}))
    assert tuple(out.columns) == FRAME_COLUMNS
    assert len(out) == 0
    assert str(out.dtypes["line"]) == "int64"


def test_frame_rows_match_record_rows(pd: Any) -> None:
    cells = [
        '{"a": 1}',
        {"content": '{"a": [1', "response_metadata": CUT},
        "no json",
        {"content": FENCED},
        None,
    ]
    df = pd.DataFrame({"content": cells})
    parser = TruncationRecoveringOutputParser()
    out = frame_rows(recover_frame(df, parser))
    for n, (cell, frame_row) in enumerate(zip(cells, out, strict=True), 1):
        row = recover_record(cell, parser, line=n)
        error = row["error"] or {}
        assert frame_row == {
            "line": n,
            "ok": row["ok"],
            "value_json": dump_json(row["value"]).decode() if row["ok"] else None,
            "error_kind": error.get("kind"),
            "error_message": error.get("message"),
            "repairs": row["repairs"],
            "cut_off": row["cut_off"],
        }
    assert [r["ok"] for r in out] == [True, True, False, True, False]
    assert out[1]["cut_off"] is True
    assert out[4]["error_kind"] == "BadRecord"


def test_frame_value_json_is_compact_json_text(pd: Any) -> None:
    df = pd.DataFrame({"content": ['x {"é": [1, 2.5, null]}']})
    assert recover_frame(df)["value_json"].tolist() == ['{"é":[1,2.5,null]}']


def test_frame_field_path_within_cells(pd: Any) -> None:
    df = pd.DataFrame({"record": [{"reply": "[1]"}, {"reply": "[2]"}]})
    out = recover_frame(df, column="record", field="reply")
    assert out["value_json"].tolist() == ["[1]", "[2]"]


@pytest.mark.parametrize(
    ("index", "line_column", "lines"),
    [
        pytest.param(None, None, [1, 2, 3], id="range_index_plus_one"),
        pytest.param([10, 11, 12], None, [11, 12, 13], id="partition_index_plus_one"),
        pytest.param(None, "n", [7, 8, 9], id="line_column"),
    ],
)
def test_frame_line_numbers(
    pd: Any, index: list[int] | None, line_column: str | None, lines: list[int]
) -> None:
    df = pd.DataFrame({"content": ["[1]", "[2]", "[3]"], "n": [7, 8, 9]}, index=index)
    out = recover_frame(df, line_column=line_column)
    assert out["line"].tolist() == lines
    assert out.index.tolist() == [0, 1, 2]


def test_frame_with_a_text_index_needs_a_line_column(pd: Any) -> None:
    df = pd.DataFrame({"content": ["[1]"]}, index=["a"])
    with pytest.raises(TypeError, match="give line_column="):
        recover_frame(df)


def test_frame_missing_column(pd: Any) -> None:
    with pytest.raises(KeyError):
        recover_frame(pd.DataFrame({"text": ["[1]"]}))


def test_frame_input_is_not_changed(pd: Any) -> None:
    df = pd.DataFrame({"content": ["[1]", "x"]})
    before = df.copy()
    recover_frame(df)
    pd.testing.assert_frame_equal(df, before)
