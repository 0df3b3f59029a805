r"""Every compiled pattern of the repair pass, in one place.

The strict-JSON runs its hot path takes whole, the tokens its steps read, and
the look ahead of the quote rule. The other ``_repair*`` modules read each
pattern from this module when they use it (``tok.SPACE``), so the work they
all do can be counted by patching this one module (the linear-work tests do).
Most patterns may match empty: :func:`match_end` then costs what a match
consumes plus a bounded look ahead.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.decode.close import END_IN_STRING as _END_IN_STRING

# --- the strict-JSON runs the hot path takes whole ------------------------------

FLAT_DEPTH: Final = 4
"""Containers nested this deep are taken whole by one match; deeper ones are
entered token by token (the pattern doubles in size per level)."""

_W: Final = r"[ \t\r\n]*+"
_STR: Final = r'"(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"'
_NUM: Final = r"-?+(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?+(?:[eE][+-]?+[0-9]++)?+"
_SCALAR: Final = f"(?:{_STR}|{_NUM}|true|false|null)"
# A quoted key's opening quote and body, on one line, without its closing quote.
_DQ_OPEN: Final = r'"(?:[^"\\\n]++|\\.)*+'
_SQ_OPEN: Final = r"'(?:[^'\\\n]++|\\.)*+"
# A key in typographic quotes (either closing quote), whole.
_TYPO_KEY: Final = r'[“"][^"“”\\\n]*+[”"]'
_KEY_BODY: Final = f'{_DQ_OPEN}"'
# What must follow a value the hot path takes: its container's own closing
# bracket, or a comma and then a quoted key (in an object) or an item (in an
# array). The quote rule (``Ahead.closes``) reads all of these as the end of a
# string too, so the hot path does not take a quote the careful path would
# keep inside a string; it only does not look past a closing bracket.
_AFTER_MEMBER: Final = rf"(?={_W}(?:\}}|,{_W}{_KEY_BODY}{_W}:))"
_AFTER_ITEM: Final = (
    rf"(?={_W}(?:\]|,{_W}(?:[-\"0-9\[{{]|(?:true|false|null)(?![\w$]))))"
)


def _nest(depth: int) -> str:
    """Write the pattern of a strict JSON value nested at most ``depth`` deep.

    Each container holds one copy of the value pattern: a lookbehind tells
    the first member or item (right after the opening bracket) from the
    others (after a comma), so the pattern only doubles per level.
    """
    value = _SCALAR
    for _ in range(depth):
        obj = rf"\{{(?:(?:(?<=\{{)|(?<!\{{){_W},){_W}{_STR}{_W}:{_W}{value})*+{_W}\}}"
        arr = rf"\[(?:(?:(?<=\[)|(?<!\[){_W},){_W}{value})*+{_W}\]"
        value = f"(?:{_SCALAR}|{obj}|{arr})"
    return value


_VALUE: Final = _nest(FLAT_DEPTH)
# Runs of strict members or items. No value ends with ``:``, ``,`` or ``[``,
# so a lookbehind tells where a run stands: a value is due right after a
# colon (or ``[`` or a comma), a comma after a value. A value the pattern
# does not take whole (deeper, or faulty) ends the run before it.
# A strict quoted key and its colon. Compiled twice: the hot path's copy is
# switched off by tests that run the careful path alone; a repair's look-ahead
# (``KEY_COLON_AHEAD``) must not change with it.
_KEY_COLON_TEXT: Final = f"(?:{_W}{_STR}{_W}:)?"
_KEY_COLON: Final = re.compile(_KEY_COLON_TEXT)
# A scalar the careful path writes as it stands, followed by a single-quoted
# key: the quote rule closes such a string too. Its string holds no typographic
# quote (the careful path reads those) and no bracket (``note_containers``
# would count it, the careful path does not).
_PLAIN_SCALAR: Final = (
    r'(?:"(?:[^"“”{\[\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"'
    rf"|{_NUM}|true|false|null)"
)
_BEFORE_SQ_KEY: Final = rf"(?={_W},{_W}'[^'\\\n]*+'{_W}:)"
_MEMBERS_TEXT: Final = (
    rf"(?:(?<=:){_W}(?:{_VALUE}{_AFTER_MEMBER}|{_PLAIN_SCALAR}{_BEFORE_SQ_KEY})"
    rf"|(?<!:){_W},{_W}{_STR}{_W}:)*+"
)
_ITEMS_TEXT: Final = rf"(?:(?<=[\[,]){_W}{_VALUE}{_AFTER_ITEM}|(?<![\[,]){_W},)*+"
LAZY_PATTERNS: Final = {"_MEMBERS": _MEMBERS_TEXT, "_ITEMS": _ITEMS_TEXT}
"""The hot path's two run patterns (about 7,800 characters each), compiled
when first read (``_repair_tokens._MEMBERS`` or a run taken): compiling them
cost every user of the core about 20 ms at import, the command line's
start-up included. Read them as module attributes, as the others."""

if TYPE_CHECKING:
    _MEMBERS: re.Pattern[str]
    _ITEMS: re.Pattern[str]


def _compile_lazy(name: str) -> re.Pattern[str]:
    """Compile a lazy pattern on first read; it is a module attribute then.

    Raises:
        AttributeError: ``name`` is no lazy pattern (the module has no such name).
    """
    text = LAZY_PATTERNS.get(name)
    if text is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    pattern = globals()[name] = re.compile(text)
    return pattern


if not TYPE_CHECKING:
    __getattr__ = _compile_lazy


def _lazy(name: str) -> re.Pattern[str]:
    """The pattern named, compiled once (a test's patched one, if patched)."""
    found: re.Pattern[str] | None = globals().get(name)
    return found if found is not None else _compile_lazy(name)


# A single-quoted key with nothing to repair (the careful path writes its body
# as it stands), and its colon: spaces, body, then spaces and the colon.
_SQ_KEY_COLON: Final = re.compile(
    r"""(?:([ \t\r\n]*+)'([^'"\\\x00-\x1f]*+)'([ \t\r\n]*+:))?"""
)


def take_key_colon(text: str, pos: int) -> int:
    """Find where a strict key and its colon, from ``pos``, end (``pos`` if none)."""
    return _KEY_COLON.match(text, pos).end()  # type: ignore[union-attr]


def take_single_quoted_key(text: str, pos: int) -> re.Match[str]:
    """Match a single-quoted key with nothing to repair, and its colon, at ``pos``.

    The match is empty when none is there; its groups are the spaces before
    the key, its body, and the spaces and colon after it.

    Example:
        >>> take_single_quoted_key("{ 'a' : 1}", 1).groups()
        (' ', 'a', ' :')
    """
    return _SQ_KEY_COLON.match(text, pos)  # type: ignore[return-value]


def take_members(text: str, pos: int) -> int:
    """Find where a run of strict members from ``pos`` ends (``pos`` if none).

    Example:
        >>> take_members('{"a": 1, "b": [2], c: 3}', 5)  # [2]: a bare key follows
        13
    """
    return _lazy("_MEMBERS").match(text, pos).end()  # type: ignore[union-attr]


def take_items(text: str, pos: int) -> int:
    """Find where a run of strict items from ``pos`` ends (``pos`` if none)."""
    return _lazy("_ITEMS").match(text, pos).end()  # type: ignore[union-attr]


# --- what may follow a token ------------------------------------------------------

SPACE: Final = re.compile(r"[ \t\r\n]*+")
# After a typographic quote that closes a string ``“`` opened: a closer, or a
# comma and the next typographic key or value.
TYPOGRAPHIC_NEXT: Final = re.compile(r"[ \t\r\n]*+(?:[}\]]|,[ \t\r\n]*+[“”])")
"""JSON's own white space."""
LOOK_GAP: Final = re.compile(r"(?:[ \t\r\n]++|\\[nrt])*+")
r"""Spaces and literal ``\n``/``\r``/``\t`` pairs: the gap the quote rule skips."""
COMMA_AHEAD: Final = re.compile(r"(?:(?:[ \t\r\n]++|\\[nrt])*+,)?")
"""A comma after that gap."""
LITERAL: Final = re.compile(r"(?:(true|false|null)|(True|False|None))(?![\w$])|")
"""A JSON literal (group 1) or a Python one (group 2), as a whole word."""
KEY_AHEAD: Final = re.compile(
    rf"(?:(?:{_DQ_OPEN}\"|{_SQ_OPEN}'|{_TYPO_KEY}|[\w$][\w$.-]*+){_W}:)?"
)
"""A key and its colon: quoted either way, or a bare word. A bare number is
refused as a key, but it still shows where the string before it ends."""
END_IN_STRING: Final = _END_IN_STRING
"""The JSON's own closing line (a raw line break beside ``}`` or ``]``): in a
string the text ends inside, a missing closing quote, not a cut (the rule
closing a cut applies, ``_recover``)."""
KEY_COLON_AHEAD: Final = re.compile(_KEY_COLON_TEXT)
"""Spaces, a strict double-quoted key and its colon (a repair's look-ahead)."""
KEY_OR_CUT: Final = re.compile(
    rf"(?:{_DQ_OPEN}(?:\"{_W}(?:[:=]|\Z)|\Z)|{_SQ_OPEN}(?:'{_W}(?::|\Z)|\Z)"
    rf"|{_TYPO_KEY}{_W}:|[\w$][\w$.-]*+{_W}(?::|\Z))?"
)
"""A key and its colon, or the start of one that the text's end cuts off.

A quoted key may have ``=`` for its colon (read as one: ``equals_as_colon``)."""
NEXT_STRING: Final = re.compile(rf"(?:{_KEY_BODY}(?=[ \t\r\n]*+(?:[,\]}}\"]|\Z)))?")
"""A whole string, followed by what may follow an item."""
JSON_STRING: Final = re.compile(_STR.replace("\\x00-\\x1f", ""), re.DOTALL)
"""A whole JSON string (raw control characters allowed)."""
STRING_ENDS_OBJECT: Final = re.compile(rf"(?:{_STR}{_W}}})?")
"""A whole string, then the ``}`` that closes its object."""
UNQUOTED_BODY: Final = re.compile(r'[^"{\[:\\]*+')
"""A value with no opening quote: up to a quote, past no ``{[:`` or backslash."""
VALUE_START: Final = frozenset("\"'“{[-0123456789")
"""The characters a value other than a literal may start with."""
NUMBER_START: Final = frozenset("-0123456789")
"""The characters a number may start with."""

# --- the careful path's tokens ------------------------------------------------------

OPEN_ARRAYS: Final = re.compile(r"\[(?:[ \t\r\n]*+\[)*+")
"""A run of ``[``; it ends right after one, as the hot path's lookbehind expects."""
NUMBER: Final = re.compile(f"(?:{_NUM})?")
"""A strict number, or nothing."""
NUMBER_TAIL: Final = re.compile(r"-?+[0-9]*+(?:\.[0-9]*+)?+(?:[eE][+-]?+[0-9]*+)?+")
"""What may be a number cut off by the text's end (``-``, ``1.``, ``1e+``)."""
WORD: Final = re.compile(r"[\w$]*+")
"""A bare word, maybe a prefix of a literal the text's end cut off."""
IDENT: Final = re.compile(r"(?:(?:[^\W\d]|\$)[\w$]*+)?")
"""A bare key: an identifier."""

# --- strings ----------------------------------------------------------------------

DQ_BODY: Final = re.compile(
    r'(?:[^"“”\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+'
)
"""A run of a ``"``-quoted string's body with nothing to repair."""
SQ_BODY: Final = re.compile(
    r"""(?:[^'"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"""
)
"""A run of a ``'``-quoted string's body with nothing to repair."""
# In a string of literal backslashes: the body up to any backslash, and the
# escapes that keep their meaning there (a line break or tab escape only before
# what is not a letter: ``\n\n`` and ``\n.`` are line breaks, ``\new`` is
# not; ``\b`` and ``\f`` are a regex's or a path's, never a control).
DQ_LITERAL_BODY: Final = re.compile(r'[^"“”\\\x00-\x1f]*+')
SQ_LITERAL_BODY: Final = re.compile(r"""[^'"\\\x00-\x1f]*+""")
KEPT_ESCAPE: Final = re.compile(r'(?:\\["\\/]|\\u[0-9a-fA-F]{4}|\\[nrt](?![A-Za-z]))?')
HEX: Final = re.compile(r"[0-9a-fA-F]{0,3}")
ANY_STRUCTURE: Final = re.compile(r'[{}\[\]":,]')
"""JSON's structure (an unclosed ``/*`` before it would take it away)."""
r"""The digits of a ``\u`` escape that the text's end may have cut."""
ESCAPED_STRING: Final = re.compile(r'\\"([^"\\\x00-\x1f]*+)\\"')
r"""A string quoted ``\"…\"``, escaped once too often."""
COLON_NEXT: Final = re.compile(r"(?:[ \t\r\n]*+:)?")
"""A colon after a key, past spaces."""
STRUCTURE_AFTER: Final = re.compile(
    r'"|[ \t\r\n]{0,16}(?:[:=]|[,;][ \t\r\n]{0,16}(?:"|\.\.\.|…|,)|,[ \t]*+\r?\n)'
)
"""After a quote: a colon, or a comma and another quote (within a few spaces)."""

# --- the candidate as a whole -----------------------------------------------------

ESCAPED_START: Final = re.compile(r'[\[{](?:[ \t\r\n\[{]|\\[nrt])*+\\"')
r"""``{\"`` (after more brackets, spaces or literal ``\n``): string-escaped JSON."""
ENTITY_START: Final = re.compile(r"[\[{][ \t\r\n\[{]*+&quot;")
"""``{ &quot;`` (after more brackets or spaces): quotes written as HTML entities."""
DOUBLED_START: Final = re.compile(r"(?:\[[ \t\r\n]*+)*+\{\{")
"""``{{`` (after ``[`` and spaces): braces doubled by a prompt template."""
BETWEEN_BRACES: Final = re.compile(r'[^"{}\[\]]++')
"""A run with no quote, brace or bracket."""
BRACE_RUN: Final = {"{": re.compile(r"\{++"), "}": re.compile(r"\}++")}
"""A run of one brace, taken at once (a template doubles them)."""
OUTER_BODY: Final = re.compile(r'(?:[^"\\]++|\\.)*+', re.DOTALL)
"""Text up to its first bare quote."""
OUTER_ESCAPE: Final = re.compile(r'\\(["\\/bfnrt])')
"""An escape of one level of string escaping."""
STRICT_LINE: Final = re.compile(r'(?:[^"\n]++|"(?:[^"\\\n]++|\\.)*+")*+')
"""From a line's start in strict JSON (strings hold no raw line break): text
outside strings and whole strings (``_repair_splice``: is an opener outside)."""


def match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Find where ``pattern``, which may match empty, stops from ``pos``.

    Example:
        >>> match_end(SPACE, "[  1]", 1)
        3
    """
    return pattern.match(text, pos).end()  # type: ignore[union-attr]


# --- the Python-style fast path (``_repair_python_style``) ---------------------------

DQ_STRING: Final = re.compile(r'("[^"\\]*+(?:\\[\s\S]?[^"\\]*+)*+(?:"|\Z))')
"""A ``"``-quoted string, captured (``split`` tokenizes): to its closing quote, or
the text's end. Once it starts it cannot fail, so a split scans each stretch once."""
SINGLE_QUOTED_OUTSIDE: Final = re.compile(
    r"[^']*+(?:'[^'\x00-\x1f\\TFN]*+"
    r"(?:(?:T(?!rue)|F(?!alse)|N(?!one))[^'\x00-\x1f\\TFN]*+)*+'[^']*+)*+"
)
"""The text outside ``"`` strings (each a NUL), its ``'`` paired around plain
bodies: no ``"`` string (NUL), control character, backslash or Python literal."""
PYTHON_LITERAL_WORD: Final = re.compile(r"True|False|None")
"""A Python literal's word."""
