"""JSON-schema keywords in plain words, for format instructions.

Pure functions on JSON-schema dicts; no LangChain imports. Each limit
validation checks (lengths, bounds, item and key counts, patterns) becomes a
phrase; values are written as JSON; a type that holds a list is grouped.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

_MAX_DEFAULT_CHARS: Final = 60
"""A default longer than this is cut."""

Node = dict[str, Any]


def group_type(kind: str) -> str:
    """Parenthesise a type that holds a list: ``array of (string or null)``."""
    if kind.startswith(("one of ", "exactly ")) or _outside(kind, (" or ", " = ")):
        return f"({kind})"
    return kind


def _outside(kind: str, words: tuple[str, ...]) -> bool:
    """Whether one of ``words`` stands in ``kind`` outside parentheses."""
    flat, level = [], 0
    for char in kind:
        level += (char == "(") - (char == ")")
        flat.append(char if level == 0 else "_")
    text = "".join(flat)
    return any(word in text for word in words)


def discriminator_of(view: Node) -> str:
    """The property a union names as its discriminator (``""``: none)."""
    found = view.get("discriminator")
    if isinstance(found, dict):
        found = found.get("propertyName")
    return found if isinstance(found, str) else ""


def chosen_note(discriminator: str, name: str = "") -> str:
    """`` (Pet, chosen by "kind")``: a union's name and discriminator, if any."""
    said = [name] if name else []
    if discriminator:
        said.append(f"chosen by {json_text(discriminator)}")
    return f" ({', '.join(said)})" if said else ""


def closed_note(view: Node) -> str:
    """`` and no others`` for an object that allows no other keys."""
    return " and no others" if view.get("additionalProperties") is False else ""


def has_type(view: Node, kind: str) -> bool:
    """Whether the node's ``type`` is ``kind`` or lists it."""
    found = view.get("type")
    return found == kind or (isinstance(found, list) and kind in found)


def constraints(view: Node) -> list[str]:
    """Every limit validation checks on a value, in plain words."""
    out = _span(view.get("minLength"), view.get("maxLength"), "character")
    pattern = view.get("pattern")
    if isinstance(pattern, str):
        out.append(f"matching the regex `{pattern}`")
    out.extend(_bounds(view))
    out.extend(_span(view.get("minItems"), view.get("maxItems"), "item"))
    if view.get("uniqueItems") is True:
        out.append("no repeated items")
    out.extend(_span(view.get("minProperties"), view.get("maxProperties"), "key"))
    return out


def _bounds(view: Node) -> list[str]:
    out: list[str] = []
    low, high = view.get("minimum"), view.get("maximum")
    above, below = view.get("exclusiveMinimum"), view.get("exclusiveMaximum")
    if above is True and _number(low):  # draft 4: a flag on minimum
        above, low = low, None
    if below is True and _number(high):
        below, high = high, None
    for value, words in (
        (above, "greater than"),
        (low, "at least"),
        (below, "less than"),
        (high, "at most"),
        (view.get("multipleOf"), "a multiple of"),
    ):
        if _number(value):
            out.append(f"{words} {json_text(value)}")
    return out


def _span(low: Any, high: Any, unit: str) -> list[str]:
    low = low if _number(low) and low > 0 else None
    high = high if _number(high) else None
    if low is not None and high is not None:
        if low == high:
            return [f"exactly {low} {_plural(unit, high)}"]
        return [f"{low} to {high} {_plural(unit, high)}"]
    if low is not None:
        return [f"at least {low} {_plural(unit, low)}"]
    if high is not None:
        return [f"at most {high} {_plural(unit, high)}"]
    return []


def _plural(unit: str, count: Any) -> str:
    return unit if count == 1 else f"{unit}s"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def short_json(value: Any) -> str:
    """A value as JSON, cut at ``_MAX_DEFAULT_CHARS``."""
    text = json_text(value)
    if len(text) > _MAX_DEFAULT_CHARS:
        return text[: _MAX_DEFAULT_CHARS - 1] + "…"
    return text


def json_text(value: Any) -> str:
    """A value as JSON (``str()`` for what JSON cannot hold)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


def article(noun: str) -> str:
    """``a ``, ``an `` or nothing, for a type's name in a sentence."""
    if noun.startswith(("one of ", "exactly ", "any ", "null")):
        return ""
    return "an " if noun[:1] in "aeiou" else "a "


def format_path(loc: tuple[Any, ...]) -> str:
    """Write a location as ``items[2].name``.

    Example:
        >>> format_path(("items", 2, "name"))
        'items[2].name'
    """
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
