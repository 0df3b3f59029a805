"""Re-parse logged replies: one record in, one result row out.

The helpers ``jsonrecover batch`` runs on every line, public so that a
distributed engine runs the very same code: :func:`recover_record` for one
record (``dask.bag``'s ``map``), :func:`recover_frame` for a pandas frame of
them (``dask.dataframe``'s ``map_partitions``, Ray Data's ``map_batches``,
Spark's ``mapInPandas``). Both are plain module-level functions, and the
parsers they take pickle, so they cross process and machine boundaries.

A *record* is what one log line decodes to: the reply itself as a JSON
string, or an object holding it. Where it is held is a dotted path
(``field="outputs.reply"``, ``"choices.0.message"``: digits index lists).
What lies there is a reply: a string, or a message (a dict such as
``{"content": …, "response_metadata": …}``, as ``AIMessage.model_dump()``
writes it, an OpenAI message, ``messages_to_dict``'s and ``dumpd``'s forms,
a message object, or any of them written out as text: ``_logged``) whose
``content`` is the text and whose metadata says whether the model stopped
at its token limit (``cut_off``). A message is never read as the reply's
text (issue 21): its envelope is not the value. Finding the reply and the
rows' shape are the pure core's (``_core.reply.record``); here a message
becomes LangChain's ``AIMessage``, which the parsers read.

A row is ``{"line", "ok", "value", "error", "repairs", "cut_off"}``:
``value`` is the JSON data recovered (a schema's instance dumped to JSON
data), ``error`` is ``None`` or ``{"kind", "message"}`` where ``kind`` is the
error's class name (``NoJsonFoundError``, ``InvalidJsonError``,
``SchemaValidationError``, ``ReplyTooLargeError`` for an over-long reply,
``ModelRefusalError``) or ``BadRecord`` (no reply at the path) or
``MalformedLine`` (a log line that is not JSON).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import pydantic
import pydantic_core
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage, BaseMessage

from langchain_jsonrecover._core.reply.record import (
    BAD_RECORD,
    MALFORMED_LINE,
    ROW_KEYS,
    LoggedMessage,
    NoReplyError,
    decode_line,
    dump_json,
    failed_row,
    read_message,
    read_reply,
    stopped_at_token_limit,
    value_row,
    walk,
)
from langchain_jsonrecover.errors import JsonRecoveryError
from langchain_jsonrecover.parsers import (
    JsonFenceOutputParser,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FRAME_COLUMNS", "ROW_KEYS", "dump_json", "recover_frame", "recover_record"]

Parser = (
    JsonFenceOutputParser[Any]
    | TruncationRecoveringOutputParser[Any]
    | RegexJsonOutputParser[Any]
)

FRAME_COLUMNS: Final = (
    "line",
    "ok",
    "value_json",
    "error_kind",
    "error_message",
    "repairs",
    "cut_off",
)
"""The columns of :func:`recover_frame`'s result, in order."""

_DEFAULT_PARSER: Final = JsonFenceOutputParser()


def recover_record(
    record: Any,
    parser: Parser | None = None,
    *,
    field: str | None = None,
    line: int | None = None,
) -> dict[str, Any]:
    """Recover the JSON in one logged reply: one record in, one row out.

    Args:
        record: A decoded log record: the reply as a string, a message dict,
            or an object holding either at ``field``.
        parser: The parser to run (default: ``JsonFenceOutputParser()``);
            it sets the schema, ``repair``, truncation recovery and limits.
        field: Dotted path to the reply in the record (``None``: the record
            itself). Digits index lists: ``"choices.0.message"``.
        line: The record's line number, copied into the row.

    Returns:
        ``{"line", "ok", "value", "error", "repairs", "cut_off"}``, the row
        ``jsonrecover batch`` writes: on success ``value`` is the JSON data
        and ``error`` is ``None``; on failure ``value`` is ``None`` and
        ``error`` is ``{"kind", "message"}``.

    Example:
        >>> from langchain_jsonrecover import recover_record
        >>> recover_record('Sure! {"a": 1}', line=1)
        {'line': 1, 'ok': True, 'value': {'a': 1}, 'error': None, 'repairs': ['prose_trimmed'], 'cut_off': False}
        >>> message = {"content": '{"a": [1, 2', "response_metadata": {"finish_reason": "length"}}
        >>> row = recover_record({"id": 7, "reply": message}, field="reply")
        >>> row["ok"], row["error"]["kind"], row["cut_off"]
        (False, 'InvalidJsonError', True)
    """  # noqa: E501 - a doctest's output is one line
    chosen = _DEFAULT_PARSER if parser is None else parser
    try:
        reply = _find_reply(record, field)
    except NoReplyError as exc:
        return failed_row(line, BAD_RECORD, str(exc))
    # The parser reports cut_off with a value; a failed row needs it too.
    cut_off = isinstance(reply, AIMessage) and stopped_at_token_limit(
        reply.response_metadata
    )
    try:
        found = chosen.extract(reply)
    except (JsonRecoveryError, ModelRefusalError) as exc:
        return failed_row(line, type(exc).__name__, str(exc), cut_off=cut_off)
    value = found.value
    if chosen.pydantic_object is not None:
        value = pydantic_core.to_jsonable_python(value, fallback=str)
    return value_row(line, value, found.repairs, cut_off=found.cut_off)


def recover_line(
    data: bytes,
    parser: Parser | None = None,
    *,
    field: str | None = None,
    line: int | None = None,
) -> dict[str, Any]:
    """One JSONL line to one row: decode it, then :func:`recover_record`.

    A line that is not JSON (or not UTF-8, or empty) is a ``MalformedLine``
    row; a UTF-8 byte-order mark at its start is dropped.

    Example:
        >>> recover_line(b'"Here: [1, 2]"', line=3)["value"]
        [1, 2]
        >>> recover_line(b'{"content": "x"', line=4)["error"]["kind"]
        'MalformedLine'
    """
    record, malformed = decode_line(data)
    if malformed is not None:
        return failed_row(line, MALFORMED_LINE, malformed)
    return recover_record(record, parser, field=field, line=line)


def recover_frame(
    df: pd.DataFrame,
    parser: Parser | None = None,
    column: str = "content",
    *,
    field: str | None = None,
    line_column: str | None = None,
) -> pd.DataFrame:
    """Recover the JSON in a column of logged replies: a frame in, a frame out.

    Each cell goes through :func:`recover_record`; the result has one row per
    input row, in order, with the fixed columns of :data:`FRAME_COLUMNS`
    (the schema a distributed engine asks for up front)::

        line           int64   line_column's value, else the index + 1
        ok             bool
        value_json     object  the value as compact JSON text (None on failure)
        error_kind     object  None on success
        error_message  object  None on success
        repairs        object  a list of repair names
        cut_off        bool

    pandas is imported here only (the ``dask`` extra installs it).

    Args:
        df: The frame: one reply (or record) per row in ``column``.
        parser: The parser to run (default: ``JsonFenceOutputParser()``).
        column: The column holding the replies (strings or message dicts) or
            records holding them at ``field``.
        field: Dotted path to the reply within each cell (``None``: the cell).
        line_column: A column of line numbers to copy; ``None``: the frame's
            integer index plus 1 (the 1-based line of a JSONL file read with
            a fresh index, as ``pandas.read_json(lines=True)`` gives).

    Returns:
        A new frame with a fresh index; ``df`` is not changed.

    Raises:
        KeyError: ``column`` or ``line_column`` is not in the frame.
        TypeError: ``line_column`` is ``None`` and the index is not integers.

    Example:
        >>> import pandas as pd
        >>> from langchain_jsonrecover import recover_frame
        >>> df = pd.DataFrame({"content": ['Sure: {"a": 1}', "no data"]})
        >>> out = recover_frame(df)
        >>> out[["line", "ok", "value_json", "error_kind"]].to_dict("records")
        [{'line': 1, 'ok': True, 'value_json': '{"a":1}', 'error_kind': None}, {'line': 2, 'ok': False, 'value_json': None, 'error_kind': 'NoJsonFoundError'}]
    """  # noqa: E501 - a doctest's output is one line
    import pandas as pd  # noqa: PLC0415 - pandas is an optional extra

    cells = df[column].tolist()
    if line_column is not None:
        lines = [int(n) for n in df[line_column].tolist()]
    elif pd.api.types.is_integer_dtype(df.index.dtype):
        lines = [int(n) + 1 for n in df.index.tolist()]
    else:
        msg = (
            "recover_frame numbers rows by the frame's integer index plus 1; "
            f"this index is {df.index.dtype}: give line_column="
        )
        raise TypeError(msg)
    columns: dict[str, list[Any]] = {name: [] for name in FRAME_COLUMNS}
    for cell, line in zip(cells, lines, strict=True):
        row = recover_record(cell, parser, field=field, line=line)
        error = row["error"]
        columns["line"].append(line)
        columns["ok"].append(row["ok"])
        columns["value_json"].append(
            dump_json(row["value"]).decode() if row["ok"] else None
        )
        columns["error_kind"].append(None if error is None else error["kind"])
        columns["error_message"].append(None if error is None else error["message"])
        columns["repairs"].append(row["repairs"])
        columns["cut_off"].append(row["cut_off"])
    return pd.DataFrame(
        {
            "line": pd.Series(columns["line"], dtype="int64"),
            "ok": pd.Series(columns["ok"], dtype="bool"),
            "value_json": pd.Series(columns["value_json"], dtype="object"),
            "error_kind": pd.Series(columns["error_kind"], dtype="object"),
            "error_message": pd.Series(columns["error_message"], dtype="object"),
            "repairs": pd.Series(columns["repairs"], dtype="object"),
            "cut_off": pd.Series(columns["cut_off"], dtype="bool"),
        }
    )


def _find_reply(record: Any, field: str | None) -> str | AIMessage:
    """The reply held in a record at a dotted path, as text or a message."""
    target, where = walk(record, field)
    if isinstance(target, AIMessage):
        return target
    if isinstance(target, BaseMessage):
        return _message(read_message(target.model_dump(), where))
    reply = read_reply(target, where)
    if isinstance(reply, str):
        return reply
    return _message(reply)


def _message(fields: LoggedMessage) -> AIMessage:
    try:
        return AIMessage(
            content=fields.content,
            additional_kwargs=fields.additional_kwargs,
            response_metadata=fields.response_metadata,
        )
    except pydantic.ValidationError as exc:
        problem = exc.errors()[0]
        place = ".".join(str(p) for p in problem["loc"])
        msg = f"the message {fields.where} is not a message: {place}: {problem['msg']}"
        raise NoReplyError(msg) from None
