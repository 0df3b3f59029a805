"""``jsonrecover batch``'s rows on the pure core: no LangChain on the usual path.

A line is decoded and its reply found by ``_core.reply.record``; a reply
string or a plain message (text or text blocks, no provider's metadata to
translate, no tool calls to parse) is read by the command's
:class:`~langchain_jsonrecover.cli.extract.Reader`, and a failure is worded
as the parsers' errors word it. Any other message (content blocks of other
kinds, a ``model_provider`` whose translator may find a refusal, metadata
that is not an object) goes through
:func:`~langchain_jsonrecover.records.recover_record` and LangChain's
``AIMessage``, imported on the first such record. The rows are the same
bytes as ``recover_line``'s (``tests/test_batch_rows.py`` pins them).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from langchain_jsonrecover._core.extract import ReplyFailure
from langchain_jsonrecover._core.reply.record import (
    BAD_RECORD,
    MALFORMED_LINE,
    REFUSED,
    NoReplyError,
    decode_line,
    failed_row,
    find_reply,
    value_row,
)
from langchain_jsonrecover.cli.extract import Reader, error_words

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_jsonrecover.records import Parser

__all__ = ["RowReader"]

# langchain-core's ModelRefusalError.from_refusal words a refusal so (a
# refusal in additional_kwargs has no category).
_REFUSAL: str = "Model refused to produce the requested output: {}"


@dataclasses.dataclass(slots=True)
class RowReader:
    """Log lines to rows: the pure core, LangChain for the records that need it.

    Example:
        >>> from langchain_jsonrecover.cli.batch import ParserSpec
        >>> rows = RowReader(Reader.build(), build_parser=ParserSpec().build)
        >>> rows.read(b'{"content": "Sure: [1]"}', None, line=1)["value"]
        [1]
    """

    reader: Reader
    build_parser: Callable[[], Parser]
    """The parser for the records this module does not read (built once)."""
    _parser: Parser | None = None

    def read(self, data: bytes, field: str | None, *, line: int) -> dict[str, Any]:
        """One JSONL line to one row, as ``records.recover_line`` gives it."""
        record, malformed = decode_line(data)
        if malformed is not None:
            return failed_row(line, MALFORMED_LINE, malformed)
        try:
            reply = find_reply(record, field)
        except NoReplyError as exc:
            return failed_row(line, BAD_RECORD, str(exc))
        if isinstance(reply, str):
            text, cut_off = reply, False
        elif reply.plain:
            text, cut_off = reply.text, reply.cut_off
            if reply.refusal is not None:
                message = _REFUSAL.format(reply.refusal)
                return failed_row(line, REFUSED, message, cut_off=cut_off)
        else:
            return self._through_langchain(record, field, line)
        found = self.reader.read(text, cut_off=cut_off)
        if isinstance(found, ReplyFailure):
            failure = dataclasses.replace(found, cut_off=cut_off)
            kind, message = error_words(failure, text, self.reader.shape)
            return failed_row(line, kind, message, cut_off=cut_off)
        value = found.value
        if self.reader.schema is not None:
            import pydantic_core  # noqa: PLC0415 - a schema's values only

            value = pydantic_core.to_jsonable_python(value, fallback=str)
        return value_row(line, value, found.repairs, cut_off=found.cut_off or cut_off)

    def _through_langchain(
        self, record: Any, field: str | None, line: int
    ) -> dict[str, Any]:
        from langchain_jsonrecover.records import recover_record  # noqa: PLC0415 - the records that need LangChain

        if self._parser is None:
            self._parser = self.build_parser()
        return recover_record(record, self._parser, field=field, line=line)
