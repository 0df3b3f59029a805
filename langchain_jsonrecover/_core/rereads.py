r"""Second readings of a reply that failed, taken only where a schema decides.

Pure functions on ``str``; no LangChain imports. :func:`extract` asks here
when a reply gave no value and a schema was given; each reading is tried on
its own and is taken only when the schema accepts the value it gives:

- ``python_call_read``: the whole reply is one Python call with keyword
  arguments only, each a literal (``Person(name="Ada", age=3)``,
  ``transfer_to_agent(agent_name="Billing")``): the arguments are the object.
  Without a schema the call's name may be the answer's or a tool's, and the
  reply is left an error.
- ``echoed_reply_read``: the value is a one-key object whose key names the
  payload or is one of the schema's fields, holding a string that is a reply
  of its own (a fence, prose around it): the model echoed its whole reply
  into that string (``{"output": "```json\n{\"output\": …}\n```"}``). Read as
  the key's value it does not match; read as the reply, it does.
- ``lost_closer_added``: the reply ends after a whole member of the root
  object, its ``}`` missing, and the model did not say it stopped at its
  token limit (``{"city": "Rome", "unit": "celsius"``). A lost ``}`` or a
  cut: where every field of the schema is there, whole (a string closed, any
  other value followed by white space), both give the schema the same value;
  it is taken. A field missing, and the cut may have taken it: an error.
- ``row_opener_added``: a row of a table lost its opener (``[["a", "b"],
  "c", "d"], ["e", "f"]]``, or a ``{`` in a list of objects). Each place the
  opener could go, and each stray closer or other one-character slip that
  fixes the text, is a reading (``one_edit_readings``); it is taken where
  exactly one of those values validates, that value adds an opener, and no
  other reading validates too. For ``list[tuple[str, str]]`` the rows decide;
  for ``list[list[str]]`` they do not (``[["a", "b", "c", "d"], ["e", "f"]]``,
  a stray ``]``, validates as well): an error. Nor is it taken where the
  value shows a second slip that no one-edit reading lists: the opener makes
  an empty container of a stray closer (``[[7,],0,12],[]]`` is no
  ``[[7, [], 0, 12], []]``), or a string of the value starts with an opener
  or ends with a closer (``"d", "e]", "f"]]``: a ``]`` swapped with its
  quote, ``["d", "e"], "f"]]`` or ``["d", "e", "f"]]``, as likely), or
  an empty container spans lines (``[\n    \n  ]``: an item lost there).
  Nor where JSON's punctuation stands right before the candidate
  (``1, 20, 12], [2, 10, 1]]`` is no ``[[2, 10, 1]]``: the rows before it
  lost their openers too; ``{[9], [1, 2]]``: the brace is unexplained).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any, Final

import orjson

from langchain_jsonrecover._core.decode.skip import STRING_REST
from langchain_jsonrecover._core.decode.tolerant import loads_within
from langchain_jsonrecover._core.found import Extraction, ReplyFailure
from langchain_jsonrecover._core.repair.single_edit_pieces import value_key
from langchain_jsonrecover._core.repair.single_edit_readings import one_edit_readings
from langchain_jsonrecover._core.schema.keys import names_payload
from langchain_jsonrecover._core.schema.payload import read_string_reply
from langchain_jsonrecover._core.schema.validate import Accepted

if TYPE_CHECKING:
    from langchain_jsonrecover._core.repair.single_edit import Kept
    from langchain_jsonrecover._core.schema.validate import Schema

PYTHON_CALL: Final = "python_call_read"
ECHOED_REPLY: Final = "echoed_reply_read"
LOST_CLOSER: Final = "lost_closer_added"
ROW_OPENER: Final = "row_opener_added"
_STRING: Final = re.compile(f'"{STRING_REST.pattern}', re.DOTALL)
_EDGE: Final = frozenset("[{}]")
"""A string that starts with an opener or ends with a closer, in a value a
row opener gave: a bracket swapped with its quote may stand there."""
_SPACE: Final = " \t\r\n"
_BEFORE: Final = re.compile(r'(?:[\[{,\]}]|"[ \t]*+:)[ \t\r\n]*+\Z')
"""Right before a candidate, JSON's own text (a bracket, a comma, a key's
colon; not a sentence's ``Here it is:``): the candidate is not all of it."""
_EMPTY_LINES: Final = re.compile(r"[\[{][ \t]*+\r?\n[ \t\r\n]*+[\]}]")
"""An empty container over lines: no serialiser writes one; an item was lost."""
_MAX_CALL_CHARS: Final = 20_000
"""Longer replies are not parsed as Python (``ast`` costs more than a scan)."""


def reread(
    text: str, failure: ReplyFailure, schema: Schema, *, max_depth: int
) -> Extraction | ReplyFailure:
    """The value a second reading gives where the schema takes it, else ``failure``.

    Example:
        >>> from pydantic import BaseModel
        >>> from langchain_jsonrecover._core.schema.validate import Schema
        >>> class Move(BaseModel):
        ...     to: str
        >>> reread('go(to="b2")', ReplyFailure("no_json", ""), Schema(Move),
        ...     max_depth=9).value
        Move(to='b2')
    """
    found = python_call_read(text, schema)
    if found is None:
        found = echoed_reply_read(text, failure, schema, max_depth=max_depth)
    if found is None:
        found = lost_closer_added(text, failure, schema, max_depth=max_depth)
    if found is None:
        found = row_opener_added(text, failure, schema, max_depth=max_depth)
    return failure if found is None else found


def python_call_read(text: str, schema: Schema) -> Extraction | None:
    """A reply that is one call with literal keyword arguments, as their object."""
    body = text.strip()
    if not body.endswith(")") or len(body) > _MAX_CALL_CHARS:
        return None
    arguments = call_arguments(body)
    if not arguments:
        return None
    verdict = schema.accept(arguments)
    if not isinstance(verdict, Accepted) or verdict.aligned:
        return None
    start = text.index(body[0])
    span = (start, start + len(body))
    return Extraction(verdict.value, span, "raw", (PYTHON_CALL, *verdict.repairs))


def call_arguments(body: str) -> dict[str, Any] | None:
    """The keyword arguments of ``body`` when it is one call and nothing else.

    Example:
        >>> call_arguments('Person(name="Ada", tags=("a",), ok=True)')
        {'name': 'Ada', 'tags': ['a'], 'ok': True}
        >>> call_arguments('Person("Ada")') is None  # positional: whose field?
        True
        >>> call_arguments('f(x=g(1))') is None  # not a literal
        True
    """
    try:
        tree = ast.parse(body, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if (
        not isinstance(tree, ast.Call)
        or not isinstance(tree.func, (ast.Name, ast.Attribute))
        or tree.args
        or any(keyword.arg is None for keyword in tree.keywords)
    ):
        return None
    try:
        pairs = {k.arg: ast.literal_eval(k.value) for k in tree.keywords if k.arg}
        value = orjson.loads(orjson.dumps(pairs))  # tuples as lists; no sets
    except (ValueError, TypeError, SyntaxError, RecursionError, orjson.JSONEncodeError):
        return None
    return value if isinstance(value, dict) else None


def echoed_reply_read(
    text: str, failure: ReplyFailure, schema: Schema, *, max_depth: int
) -> Extraction | None:
    """A one-key envelope whose string echoes the whole reply, read as that reply."""
    value = failure.value
    if failure.kind != "schema" or not isinstance(value, dict) or len(value) != 1:
        return None
    ((key, inner),) = value.items()
    if not isinstance(inner, str) or not (
        key in schema.fields or names_payload(key, ())
    ):
        return None
    read = read_string_reply(inner, max_depth=max_depth)
    if read is None or read[1] == "decoded_json_string":
        return None  # plain JSON in a string is the wrapper rules' to read
    verdict = schema.accept(read[0])
    if not isinstance(verdict, Accepted):
        return None
    start = failure.start or 0
    span = (start, len(text.rstrip()))
    repairs = (ECHOED_REPLY, read[1], *verdict.repairs)
    return Extraction(verdict.value, span, "raw", repairs)


def lost_closer_added(
    text: str, failure: ReplyFailure, schema: Schema, *, max_depth: int
) -> Extraction | None:
    """A root object that lost its ``}`` after whole members holding every field."""
    if failure.kind != "truncated" or failure.cut_off or failure.start is None:
        return None
    tail = text[failure.start :]
    body = tail.rstrip()
    if not body.startswith("{") or not (body.endswith('"') or len(body) < len(tail)):
        return None  # a scalar at the end may be cut: ``1`` of ``12``
    try:  # big integers kept exact (orjson alone makes floats of them)
        value, shallow = loads_within(body + "}", max_depth)
    except orjson.JSONDecodeError:
        return None  # more than the root's ``}`` is open, or a key is cut
    if not shallow or not isinstance(value, dict) or not schema.fields <= value.keys():
        return None
    if not schema.fields:
        return None
    verdict = schema.accept(value)
    if not isinstance(verdict, Accepted) or verdict.aligned:
        return None
    span = (failure.start, failure.start + len(body))
    return Extraction(verdict.value, span, "raw", (LOST_CLOSER, *verdict.repairs))


def row_opener_added(
    text: str, failure: ReplyFailure, schema: Schema, *, max_depth: int
) -> Extraction | None:
    """A row that lost its opener, where one reading of all one-edit fixes validates.

    Example:
        >>> from langchain_jsonrecover._core.schema.validate import Schema
        >>> broken = '[["a", "b"], "c", "d"], ["e", "f"]]'
        >>> failure = ReplyFailure("invalid_json", "", start=0)
        >>> row_opener_added(broken, failure, Schema(list[tuple[str, str]]),
        ...     max_depth=9).value
        [('a', 'b'), ('c', 'd'), ('e', 'f')]
        >>> row_opener_added(broken, failure, Schema(list[list[str]]), max_depth=9)
    """
    if failure.kind != "invalid_json" or failure.start is None or failure.detail:
        return None
    readings = one_edit_readings(text[failure.start :], max_depth=max_depth)
    if not readings:
        return None
    groups: dict[bytes, list[Kept]] = {}
    for kept in readings:
        key = value_key(kept.value)
        if key is None:
            return None
        groups.setdefault(key, []).append(kept)
    taken = [
        (group, verdict)
        for group in groups.values()
        if isinstance(verdict := schema.accept(group[0].value), Accepted)
    ]
    if len(taken) != 1:
        return None
    group, verdict = taken[0]
    if verdict.aligned or verdict.repairs:
        return None
    if any(kept.drop or kept.insert not in ("[", "{") for kept in group):
        return None
    if _after_json(text[: failure.start]) or _second_slip(text[failure.start :], group):
        return None
    span = (failure.start, failure.start + group[0].end)
    return Extraction(verdict.value, span, "raw", (ROW_OPENER,))


def _after_json(before: str) -> bool:
    """Whether the text before a candidate ends in JSON's own punctuation.

    Example:
        >>> _after_json("Here it is: "), _after_json('{"rows": '), _after_json("1], ")
        (False, True, True)
    """
    return _BEFORE.search(before[-64:]) is not None


def _second_slip(text: str, group: list[Kept]) -> bool:
    """Whether a row opener's reading shows a slip that one edit does not explain.

    An opener inserted right before a closer makes an empty container of a
    stray one; a string of the value that starts with ``[``/``{`` or ends
    with ``]``/``}`` may hold a bracket swapped with its quote; an empty
    container over lines lost its item. Either way the reply had two slips,
    and a reading of one is no reading of it.

    Example:
        >>> from langchain_jsonrecover._core.repair.single_edit import Kept
        >>> empty = Kept(5, "character_inserted", "[", 0, [], "[[7,[]]", 7)
        >>> _second_slip("[[7, ]]", [empty])
        True
        >>> kept = Kept(1, "character_inserted", "[", 0, [], '[["e]"]]', 7)
        >>> _second_slip('["e]"]]', [kept])
        True
    """
    if any(text[kept.at :].lstrip(_SPACE)[:1] in ("]", "}") for kept in group):
        return True
    for edited in {kept.text for kept in group}:
        if _EMPTY_LINES.search(edited) is not None:  # strict: no raw line in strings
            return True
        for found in _STRING.finditer(edited):
            body = found.group()[1:-1]
            if body[:1] in _EDGE or body[-1:] in _EDGE:
                return True
    return False
