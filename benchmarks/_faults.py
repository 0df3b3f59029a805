"""Faulty replies for the repair benchmarks: eight faults of different kinds, or
a fault in every record.

Both start from the document of ``_data.py`` and return the faulty reply with
the value a repair should give. The eight-fault reply puts one of each fault an
LLM makes (trailing comma, single quotes, Python literal, block comment, bare
key, missing comma, unescaped inner quotes, invalid escape) into records spread
evenly; the dense reply writes every key of every record in single quotes and
every ``true`` as Python's ``True``, a fault on each row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson
from _data import clean_reply

if TYPE_CHECKING:
    from collections.abc import Callable

INNER_QUOTE_NOTE: Final = 'Asked for the "best" one.'
"""A record's note, written with its inner quotes unescaped in the faulty reply."""


def _edit_nothing(record: dict[str, Any]) -> None:
    del record  # the fault changes the syntax only


def _substitute(pattern: str, rewrite: Callable[[str], str], text: str) -> str:
    """``text`` with the one match of ``pattern`` rewritten (taken literally).

    Raises:
        ValueError: ``pattern`` does not match exactly once.
    """
    result, count = re.subn(pattern, lambda match: rewrite(match.group()), text)
    if count != 1:
        raise ValueError(f"fault pattern {pattern!r} matched {count} times")
    return result


def _set_active(record: dict[str, Any]) -> None:
    record["active"] = True


def _set_note(record: dict[str, Any]) -> None:
    record["note"] = INNER_QUOTE_NOTE


def _underscore_email(record: dict[str, Any]) -> None:
    record["email"] = str(record["email"]).replace(".", "_", 1)


def _trailing_comma(record: dict[str, Any], text: str) -> str:
    del record
    return _substitute(r'"lon":[-0-9.eE+]+(?=\})', lambda found: f"{found},", text)


def _single_quotes(record: dict[str, Any], text: str) -> str:
    country = str(record["address"]["country"])
    faulty = f"'country':'{country}'"
    return _substitute(re.escape(f'"country":"{country}"'), lambda _: faulty, text)


def _python_literal(record: dict[str, Any], text: str) -> str:
    del record
    return _substitute('"active":true', lambda _: '"active":True', text)


def _block_comment(record: dict[str, Any], text: str) -> str:
    del record
    faulty = ',/* verified 2024-05 */"address":'
    return _substitute(',"address":', lambda _: faulty, text)


def _bare_key(record: dict[str, Any], text: str) -> str:
    del record
    return _substitute('"email":', lambda _: "email:", text)


def _no_change(record: dict[str, Any], text: str) -> str:
    del record
    return text  # the comma after the record is dropped where records are joined


def _inner_quote(record: dict[str, Any], text: str) -> str:
    del record
    escaped = orjson.dumps(INNER_QUOTE_NOTE).decode()
    faulty = f'"{INNER_QUOTE_NOTE}"'
    return _substitute(re.escape(escaped), lambda _: faulty, text)


def _invalid_escape(record: dict[str, Any], text: str) -> str:
    email = str(record["email"])
    faulty = '"' + email.replace("_", "\\_", 1) + '"'
    return _substitute(re.escape(f'"{email}"'), lambda _: faulty, text)


@dataclass(frozen=True, slots=True)
class Fault:
    """A syntax fault injected into one record of the compact document."""

    shows: str
    """What the faulty reply shows, for the notes."""
    repair: str
    """The name the repair pass gives its fix."""
    inject: Callable[[dict[str, Any], str], str]
    """The record (as expected) and its compact JSON, to the faulty text."""
    edit: Callable[[dict[str, Any]], None] = _edit_nothing
    """Sets the record's data the fault needs (in the expected document too)."""
    drops_comma_after: bool = False
    """The fault is the comma between this record and the next one, missing."""


FAULTS: Final = (
    Fault('trailing comma `"lon":…,}`', "trailing_comma_removed", _trailing_comma),
    Fault("single quotes `'country':'CH'`", "single_quotes_replaced", _single_quotes),
    Fault(
        'Python literal `"active":True`',
        "python_literal_replaced",
        _python_literal,
        edit=_set_active,
    ),
    Fault("block comment `/* … */`", "comment_removed", _block_comment),
    Fault('bare key `email:"…"`', "key_quoted", _bare_key),
    Fault(
        "missing comma between two records `}{`",
        "comma_inserted",
        _no_change,
        drops_comma_after=True,
    ),
    Fault(
        f'unescaped inner quotes `"note":"{INNER_QUOTE_NOTE}"`',
        "inner_quote_escaped_guessed",
        _inner_quote,
        edit=_set_note,
    ),
    Fault(
        'invalid escape `\\_` in an email `"ada\\_7@…"`',
        "invalid_escape_fixed",
        _invalid_escape,
        edit=_underscore_email,
    ),
)
"""One each, in record order; where the document has fewer records than faults
(2 KB), consecutive faults share a record (they touch different fields)."""


def fault_records(count: int) -> list[int]:
    """The record each fault goes into: spread evenly over ``count`` records."""
    if count < 2:
        raise ValueError("the repair fixture needs at least two records")
    slots = 2 * len(FAULTS)
    return [(2 * k + 1) * count // slots for k in range(len(FAULTS))]


def _records_head(expected: dict[str, Any]) -> str:
    """The compact document up to and including the ``[`` that opens its records."""
    clean = clean_reply(expected)
    return clean[: clean.index('"records":[') + len('"records":[')]


def _refuse_valid(reply: str) -> None:
    """Raise when the faulty reply decodes as it stands (a fault that is none).

    Raises:
        ValueError: ``orjson`` reads the reply.
    """
    try:
        orjson.loads(reply)
    except orjson.JSONDecodeError:
        return
    raise ValueError("the faulty reply decodes as it stands")


def faulty_reply(document: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The document with :data:`FAULTS` injected, compact, and the expected value.

    The expected value is a copy of the document with the data some faults
    need (a note with quotes, an email with ``_``, an active flag); the
    faulty reply is its compact JSON, record by record, with the faults
    written in.

    Returns:
        The faulty reply, and the expected document (its repaired value).

    Raises:
        ValueError: A fault could not be injected.
    """
    expected: dict[str, Any] = orjson.loads(orjson.dumps(document))
    records: list[dict[str, Any]] = expected["records"]
    where = fault_records(len(records))
    if where[-1] >= len(records) or any(
        f.drops_comma_after and i >= len(records) - 1
        for f, i in zip(FAULTS, where, strict=True)
    ):
        raise ValueError("a fault falls outside the records")
    for fault, index in zip(FAULTS, where, strict=True):
        fault.edit(records[index])
    texts = [orjson.dumps(record).decode() for record in records]
    separators = [","] * (len(records) - 1)
    for fault, index in zip(FAULTS, where, strict=True):
        texts[index] = fault.inject(records[index], texts[index])
        if fault.drops_comma_after:
            separators[index] = ""
    body = texts[0] + "".join(s + t for s, t in zip(separators, texts[1:], strict=True))
    reply = f"{_records_head(expected)}{body}]}}"
    _refuse_valid(reply)
    return reply, expected


DENSE_REPAIRS: Final = ("single_quotes_replaced", "python_literal_replaced")
"""The names the repair pass gives the dense reply's fixes."""


def _python_style(value: Any) -> str:
    """``value`` as compact JSON, but keys in single quotes and ``true`` as ``True``.

    Keys of the document are plain words (no quote or backslash to escape).
    """
    if isinstance(value, dict):
        members = ",".join(
            f"'{key}':{_python_style(item)}" for key, item in value.items()
        )
        return "{" + members + "}"
    if isinstance(value, list):
        return "[" + ",".join(_python_style(item) for item in value) + "]"
    if value is True:
        return "True"
    return orjson.dumps(value).decode()


def dense_reply(document: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The document with a fault on every record: single-quoted keys, ``True``.

    The envelope stays strict JSON; each record is written with every key in
    single quotes and every ``true`` as ``True`` (records with no ``true`` keep
    their single-quoted keys, so every record carries a fault).

    Returns:
        The faulty reply, and the expected document (the document itself).
    """
    body = ",".join(_python_style(record) for record in document["records"])
    reply = f"{_records_head(document)}{body}]}}"
    _refuse_valid(reply)
    return reply, document
