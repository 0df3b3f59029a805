"""Which keys the schema-aligned reading may read, and which it must refuse.

Pure functions and constants; no LangChain imports. ``_align`` asks here:

- whether the key of a one-key wrapper names the payload (:data:`PAYLOAD_KEYS`,
  or the schema's own title, which is also the tool's name): only such a
  wrapper is unwrapped, for ``{"exclude": {…}}`` or ``{"errors": […]}`` say
  the opposite of "here is the answer";
- whether an unknown key is a field's name with a unit suffix
  (:data:`UNIT_SUFFIXES`, ``timeout_ms`` for ``timeout``): the field's default
  would hide a value the reply gave in another unit.

What the reading refuses is a :class:`Refusal`: the value is then an error
that says why, never a value read past it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Callable


PAYLOAD_KEYS: Final = frozenset(
    {
        "arguments",
        "parameters",
        "params",
        "input",
        "data",
        "result",
        "output",
        "response",
        "answer",
        "final",
        "json",
        "properties",
    }
)
"""The one-key wrappers that name the payload (besides the schema's title).

Matched after case and separators are set aside (``"Result"``, ``"DATA"``).
Any other one-key wrapper around the answer is refused, naming its key.
"""

UNIT_SUFFIXES: Final = (
    "_ms",
    "_s",
    "_sec",
    "_seconds",
    "_minutes",
    "_hours",
    "_days",
    "_pct",
    "_percent",
    "_px",
    "_kb",
    "_mb",
    "_usd",
)
"""Unit suffixes, in snake case; the camelCase form (``Ms``, ``Usd``) counts too."""

_UNIT_WORDS: Final = tuple(
    sorted((suffix[1:] for suffix in UNIT_SUFFIXES), key=len, reverse=True)
)
_SEPARATORS: Final = "_- "


@dataclass(frozen=True, slots=True)
class Refusal:
    """A reading the schema does not admit: the value is an error, and why."""

    path: str
    """Where: a field's path, ``""`` for the value as a whole."""
    message: str
    """What to tell the model."""
    value: str = ""
    """The key or keys in question, as written."""


def names_payload(key: str, titles: tuple[str, ...]) -> bool:
    """Whether a wrapper's key names the payload: a listed key or a title.

    Args:
        key: The wrapper's one key.
        titles: Normalized titles (the node's and the schema's) that also name it.

    Example:
        >>> names_payload("Result", ()), names_payload("exclude", ())
        (True, False)
        >>> names_payload("get_weather", ("getweather",))
        True
        >>> names_payload("json_input", ()), names_payload("json_tool_call", ())
        (True, False)
    """
    normalized = normalize(key)
    return (
        normalized in _NORMALIZED_PAYLOAD_KEYS
        or normalized in titles
        or payload_words(key)
    )


def payload_words(key: str) -> bool:
    """Whether a key is two or more words that each name the payload.

    ``json_input`` or ``outputData`` names the payload as surely as ``input``
    does; a key with any other word (``json_tool_call``, ``input_errors``) does
    not, so the list stays closed: only its own words combine.

    Example:
        >>> payload_words("json_input"), payload_words("outputData")
        (True, True)
        >>> payload_words("input"), payload_words("input_errors")
        (False, False)
    """
    words = _WORD.findall(key)
    return len(words) > 1 and all(
        word.casefold() in _NORMALIZED_PAYLOAD_KEYS for word in words
    )


_WORD: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def normalize(key: str) -> str:
    """Case and ``-``/``_``/space set aside, as titles are compared."""
    return key.strip().casefold().replace("_", "").replace("-", "").replace(" ", "")


_NORMALIZED_PAYLOAD_KEYS: Final = frozenset(normalize(k) for k in PAYLOAD_KEYS)


def unit_stem(key: str) -> str | None:
    """The key without its unit suffix, or ``None`` when it has none.

    A suffix is matched as a near spelling of the key is: after a ``_``, a
    ``-`` or a space in any case (``timeout-ms``, ``TIMEOUT_MS``), or after a
    lowercase letter in camelCase (``timeoutMs``, ``timeoutMS``).

    Example:
        >>> unit_stem("timeout_ms"), unit_stem("timeoutMs"), unit_stem("customer_id")
        ('timeout', 'timeout', None)
        >>> unit_stem("timeout-ms"), unit_stem("TIMEOUT_MS"), unit_stem("timeoutMS")
        ('timeout', 'TIMEOUT', 'timeout')
    """
    key = key.strip()
    for word in _UNIT_WORDS:
        size = len(word)
        head, tail = key[:-size], key[-size:]
        if len(key) <= size or tail.casefold() != word:
            continue
        if head[-1] in _SEPARATORS:
            stem = head.rstrip(_SEPARATORS)
            if stem:
                return stem
        elif head[-1].islower() and tail in (word.capitalize(), word.upper()):
            return head
    return None


def wrapper_refused(key: str, *, extra: bool = False) -> Refusal:
    """The refusal of a one-key wrapper whose key does not name the payload.

    With ``extra``, the schema takes other keys too, so that any key may be
    data or a wrapper: two readings.
    """
    why = (
        "a key the schema also takes as data"
        if extra
        else "a key that does not name the payload (it may say the opposite)"
    )
    message = (
        f"the answer is wrapped in {key!r}, {why}: write the fields at the top level"
    )
    return Refusal("", message, key)


def unit_refused(key: str, field: str) -> Refusal:
    """The refusal of a unit-suffixed key where the field itself is missing."""
    message = (
        f"{key!r} is no field: did you mean {field!r}? Give its value under "
        f"{field!r}, in the unit the field expects"
    )
    return Refusal(field, message, key)


def keys_refused(field: str, keys: list[str]) -> Refusal:
    """The refusal of two keys that both name one field, with different values."""
    named = " and ".join(repr(k) for k in keys)
    message = f"{named} both name the field {field!r}: give it once"
    return Refusal(field, message, ", ".join(keys))


def titles_of(
    titles: tuple[str, ...], node: dict[str, Any], items: dict[str, Any] | None
) -> tuple[str, ...]:
    """The normalized titles that name a wrapper's payload at ``node``.

    The schema's (``titles``), the node's own, and for an array that of its
    items, singular or plural (``"trips"`` around a list of ``Trip``).
    """
    for named in (node, items):
        title = named.get("title") if named is not None else None
        if isinstance(title, str):
            titles = (*titles, normalize(title))
            if named is items:
                titles = (*titles, normalize(title) + "s")
    return titles


def read_keys(
    value: dict[str, Any],
    properties: dict[str, Any],
    match: Callable[[str, dict[str, Any]], str | None],
    refused: list[Refusal] | None,
) -> dict[str, str]:
    """The keys to read as the field they name, and (into ``refused``) refusals.

    A key that differs from a field only in spelling (``match``) names it;
    where two keys name one field with different values (the field itself
    among them), that is two readings: refused. A key that is a missing
    field's name with a unit suffix (``timeout_ms``) is refused too. With
    ``refused=None`` only the renames are worked out.

    Example:
        >>> def match(key, properties):
        ...     return key.lower() if key.lower() in properties else None
        >>> refused = []
        >>> read_keys({"Age": 3, "timeout_ms": 9}, {"age": {}, "timeout": {}},
        ...           match, refused)
        {'Age': 'age'}
        >>> refused[0].path
        'timeout'
    """
    claims: dict[str, list[str]] = {}
    stems: list[tuple[str, str]] = []
    for key in value:
        if key in properties:
            continue
        name = match(key, properties)
        if name is not None:
            claims.setdefault(name, []).append(key)
        elif refused is not None:
            stem = unit_stem(key)
            field = None
            if stem is not None:
                field = stem if stem in properties else match(stem, properties)
            if field is not None:
                stems.append((key, field))
    renamed: dict[str, str] = {}
    for name, keys in claims.items():
        holders = [name, *keys] if name in value else keys
        first = value[holders[0]]
        if any(value[k] != first for k in holders[1:]):
            if refused is not None:
                refused.append(keys_refused(name, holders))
        elif name not in value:
            renamed[keys[0]] = name
    if refused is not None:
        filled = set(renamed.values())
        refused.extend(
            unit_refused(key, field)
            for key, field in stems
            if field not in value and field not in filled
        )
    return renamed


class _Repeated(Exception):  # noqa: N818 - a signal out of the decoder's hook
    """A key written twice with different values (raised inside the hook)."""

    def __init__(self, key: str, first: Any, second: Any) -> None:
        super().__init__(key)
        self.found = (key, first, second)


def _no_repeat(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out and out[key] != value:
            raise _Repeated(key, out[key], value)
        out[key] = value
    return out


def repeated_key(text: str) -> tuple[str, Any, Any] | None:
    """A key that an object of ``text`` writes twice with different values.

    JSON decoders keep the last of two equal keys; under a schema that is one
    field given two values, two readings as much as two spellings of one
    field are. Only a text that decodes as it stands is read; ``None``
    otherwise, and when every key is written once (or repeated alike).

    Returns:
        The key and its two values, or ``None``.

    Example:
        >>> repeated_key('{"retries": 3, "n": {"a": 1, "a": 2}}')
        ('a', 1, 2)
        >>> print(repeated_key('{"a": 1, "a": 1}'), repeated_key('{"a": 1'))
        None None
    """
    try:
        json.loads(text, object_pairs_hook=_no_repeat)
    except _Repeated as repeated:
        return repeated.found
    except (ValueError, RecursionError):
        return None
    return None


ENVELOPE_OWN_KEYS: Final = frozenset(
    {"name", "arguments", "parameters", "properties", "type", "function", "id"}
)
"""An envelope's own keys; any other beside them that is a field of the
schema keeps the envelope from being unwrapped."""
CALL_ARGUMENTS_IGNORED: Final = (
    "the value is a call whose arguments would be ignored: send the arguments "
    "as the answer"
)


def beside_a_field(value: dict[str, Any], fields: frozenset[str]) -> bool:
    """Whether a member beside the envelope's own keys is a field of the schema.

    Unwrapping would drop it (``{"arguments": {"city": "Paris"}, "unit":
    "f"}``), and its default would stand for what the reply wrote.

    Example:
        >>> beside_a_field({"arguments": {}, "unit": "f"}, frozenset({"unit"}))
        True
        >>> beside_a_field({"name": "x", "arguments": {}}, frozenset({"name"}))
        False
    """
    return not fields.isdisjoint(value.keys() - ENVELOPE_OWN_KEYS)


def holds_call_arguments(
    value: Any, fields: frozenset[str], decoded: Callable[[Any], Any]
) -> bool:
    """Whether a value holds a call's arguments (an object) under a non-field key.

    Such a value validating as it stands (``{"name": "x", "arguments": {…}}``
    for a schema with a ``name`` field, extra keys ignored) would drop them.

    Example:
        >>> holds_call_arguments({"name": "x", "arguments": {}}, frozenset(), dict)
        True
        >>> holds_call_arguments({"arguments": {}}, frozenset({"arguments"}), dict)
        False
    """
    if not isinstance(value, dict):
        return False
    return any(
        key in value
        and key not in fields
        and (key == "arguments" or "name" in value)
        and isinstance(decoded(value[key]), dict)
        for key in ("arguments", "parameters")
    )
