r"""Repair the syntax of one almost-JSON candidate, in one linear pass.

Pure functions on ``str``; no LangChain imports.

A tokenizer walks the candidate once, with an explicit stack (no recursion),
and writes strict JSON into a list of pieces joined at the end. It repairs
only what keeps the data as written: trailing commas, comments, Python
literals, single quotes, bare keys, missing commas, invalid escapes, raw
control characters, string-escaped JSON and literal ``\n`` between tokens;
and, as repairs named ``*_guessed``, unescaped inner quotes and wrong or
missing closing brackets, decided by what follows them. It refuses what
would need a guess about the data itself: an unquoted value
(``{status: ok}``), ``NaN``, ``Infinity``, garbage.

Speed comes from a hot path. At each step the pass first tries one compiled
pattern that takes a whole run of strict JSON (members or items, with
containers nested up to :data:`_FLAT_DEPTH` deep) in a single C-level match,
so Python steps token by token only around the faults and into deep nesting.
Every pattern may match empty, so a call costs what it consumes plus a
bounded look ahead.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Final

import orjson

# --- the strict-JSON runs the hot path takes whole ------------------------------

_FLAT_DEPTH: Final = 4
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
# array). The quote rule (``_Ahead.closes``) reads all of these as the end of a
# string too, so the hot path does not take a quote the careful path would
# keep inside a string; it only does not look past a closing bracket.
_AFTER_MEMBER: Final = rf"(?={_W}(?:\}}|,{_W}{_KEY_BODY}{_W}:))"
_AFTER_ITEM: Final = (
    rf"(?={_W}(?:\]|,{_W}(?:[-\"0-9\[{{]|(?:true|false|null)(?![\w$]))))"
)


def _nested(depth: int) -> str:
    """A strict JSON value with containers nested at most ``depth`` deep.

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


_VALUE: Final = _nested(_FLAT_DEPTH)
# Runs of strict members or items. No value ends with ``:``, ``,`` or ``[``,
# so a lookbehind tells where a run stands: a value is due right after a
# colon (or ``[`` or a comma), a comma after a value. A value the pattern
# does not take whole (deeper, or faulty) ends the run before it.
_KEY_COLON: Final = re.compile(f"(?:{_W}{_STR}{_W}:)?")
_MEMBERS: Final = re.compile(
    rf"(?:(?<=:){_W}{_VALUE}{_AFTER_MEMBER}|(?<!:){_W},{_W}{_STR}{_W}:)*+"
)
_ITEMS: Final = re.compile(
    rf"(?:(?<=[\[,]){_W}{_VALUE}{_AFTER_ITEM}|(?<![\[,]){_W},)*+"
)

# --- single tokens for the careful path (each may match empty) ------------------

_SPACE: Final = re.compile(r"[ \t\r\n]*+")
# Ends right after a ``[``, as the hot path's lookbehind expects.
_OPEN_ARRAYS: Final = re.compile(r"\[(?:[ \t\r\n]*+\[)*+")
# Spaces and literal ``\n``/``\r``/``\t`` pairs: the gap the quote rule skips.
_LOOK_GAP: Final = re.compile(r"(?:[ \t\r\n]++|\\[nrt])*+")
_COMMA_AHEAD: Final = re.compile(r"(?:(?:[ \t\r\n]++|\\[nrt])*+,)?")
_DQ_BODY: Final = re.compile(
    r'(?:[^"“”\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+'
)
_SQ_BODY: Final = re.compile(
    r"""(?:[^'"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+"""
)
_COLON_NEXT: Final = re.compile(r"(?:[ \t\r\n]*+:)?")
_UNQUOTED_BODY: Final = re.compile(r'[^"{\[:\\]*+')
_ESCAPED_STRING: Final = re.compile(r'\\"([^"\\\x00-\x1f]*+)\\"')
_HEX: Final = re.compile(r"[0-9a-fA-F]{0,3}")
# In a string of literal backslashes: the body up to any backslash, and the
# escapes that keep their meaning there (a control escape only before what
# is not a letter: ``\n\n`` and ``\n.`` are line breaks, ``\new`` is not).
_DQ_LITERAL_BODY: Final = re.compile(r'[^"“”\\\x00-\x1f]*+')
_SQ_LITERAL_BODY: Final = re.compile(r"""[^'"\\\x00-\x1f]*+""")
_KEPT_ESCAPE: Final = re.compile(
    r'(?:\\["\\/]|\\u[0-9a-fA-F]{4}|\\[bfnrt](?![A-Za-z]))?'
)
# Invalid escapes that show a string's backslashes are literal (a regex, a
# path, LaTeX), beside letters and digits; others (``\_``, ``\*``, ``\'``, the
# escapes of a markdown-minded model) lose the backslash.
_LITERAL_TRIGGERS: Final = frozenset("()[]{}.")
_NUMBER: Final = re.compile(f"(?:{_NUM})?")
_NUMBER_TAIL: Final = re.compile(r"-?+[0-9]*+(?:\.[0-9]*+)?+(?:[eE][+-]?+[0-9]*+)?+")
_WORD: Final = re.compile(r"[\w$]*+")
_IDENT: Final = re.compile(r"(?:(?:[^\W\d]|\$)[\w$]*+)?")
_LITERAL: Final = re.compile(r"(?:(true|false|null)|(True|False|None))(?![\w$])|")
# A key and its colon: quoted either way, or a bare word. A bare number is
# refused as a key, but it still shows where the string before it ends.
_KEY_AHEAD: Final = re.compile(
    rf"(?:(?:{_DQ_OPEN}\"|{_SQ_OPEN}'|{_TYPO_KEY}|[\w$][\w$.-]*+){_W}:)?"
)
# The same, or the start of one that the text's end cuts off.
_KEY_OR_CUT: Final = re.compile(
    rf"(?:{_DQ_OPEN}(?:\"{_W}(?::|\Z)|\Z)|{_SQ_OPEN}(?:'{_W}(?::|\Z)|\Z)"
    rf"|{_TYPO_KEY}{_W}:|[\w$][\w$.-]*+{_W}(?::|\Z))?"
)
# A whole string, followed by what may follow an item.
_NEXT_STRING: Final = re.compile(rf"(?:{_KEY_BODY}(?=[ \t\r\n]*+(?:[,\]}}\"]|\Z)))?")
# ``{\"`` (after more brackets, spaces or literal ``\n``): string-escaped JSON.
_ESCAPED_START: Final = re.compile(r'[\[{](?:[ \t\r\n\[{]|\\[nrt])*+\\"')
_ESCAPED_WINDOW: Final = 256
# ``{ &quot;`` (after more brackets or spaces): quotes written as HTML entities.
_ENTITY_START: Final = re.compile(r"[\[{][ \t\r\n\[{]*+&quot;")
# ``{{`` (after ``[`` and spaces): braces doubled by a prompt template.
_DOUBLED_START: Final = re.compile(r"(?:\[[ \t\r\n]*+)*+\{\{")
_BETWEEN_BRACES: Final = re.compile(r'[^"{}\[\]]++')
# An open container's start in the output (piece, offset in it), and whether a
# container inside it has closed.
_Mark = list[int | bool]
_OBJECT_CHILD: Final = 2  # index in a mark: an object inside has closed
_ARRAY_CHILD: Final = 3  # index in a mark: an array inside has closed
# Beside a quote: a colon, or a comma and another quote (within a few spaces).
_NEAR: Final = 16
_STRUCTURE_AFTER: Final = re.compile(
    r'"|[ \t\r\n]{0,16}(?:[:=]|[,;][ \t\r\n]{0,16}(?:"|\.\.\.|…|,)|,[ \t]*+\r?\n)'
)
_OUTER_BODY: Final = re.compile(r'(?:[^"\\]++|\\.)*+', re.DOTALL)
_OUTER_ESCAPE: Final = re.compile(r'\\(["\\/bfnrt])')

_OUTER_CHARS: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_CONTROL_ESCAPES: Final = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
_QUOTE_REPAIR: Final = {
    "'": "single_quotes_replaced",
    "“": "typographic_quotes_replaced",
}
_PYTHON: Final = {"True": "true", "False": "false", "None": "null"}
_PREFIXES: Final = frozenset(
    name[:i]
    for name in ("true", "false", "null", "True", "False", "None")
    for i in range(1, len(name))
)
_CLOSER: Final = {"{": "}", "[": "]"}
_OPENER: Final = {"}": "{", "]": "["}
_VALUE_START: Final = frozenset("\"'“{[-0123456789")
_NUMBER_START: Final = frozenset("-0123456789")

# Parser states.
_KEY_FIRST: Final = 0  # after ``{``
_KEY: Final = 1  # after a comma in an object
_COLON: Final = 2  # after a key
_MEMBER: Final = 3  # after a colon
_ITEM_FIRST: Final = 4  # after ``[``
_ITEM: Final = 5  # after a comma in an array
_AFTER: Final = 6  # after a value
# Where a closing bracket may end the container: a key or an item was due.
_CLOSABLE: Final = frozenset({_KEY_FIRST, _KEY, _ITEM_FIRST, _ITEM})

# Where a string stands.
_IN_KEY: Final = 0
_IN_OBJECT: Final = 1
_IN_ARRAY: Final = 2

# How a string scan ended, when it did not reach the closing quote.
_CUT: Final = -1  # the text ended inside the string
_WRONG: Final = -2  # ... after a quote was guessed inner: a cut cannot be
#                     told from a guess that ran away, so neither is taken


@dataclass(frozen=True, slots=True)
class Repaired:
    r"""A candidate rewritten as strict JSON.

    Example:
        >>> fixed = repair("{'a': True,}")
        >>> fixed.text, fixed.truncated
        ('{"a": true}', False)
        >>> fixed.repairs
        ('single_quotes_replaced', 'python_literal_replaced', 'trailing_comma_removed')
    """

    text: str
    """Strict JSON text; when ``truncated``, a strict-JSON prefix that ends where
    the input ended, with no closing added (for pydantic-core's partial parser)."""
    repairs: tuple[str, ...]
    """What was repaired, each name once, in order of first occurrence."""
    truncated: bool
    """The input ended inside the value."""
    end: int
    """Offset in the input just after the value (its length when truncated)."""


def repair(text: str, *, entities: bool = False) -> Repaired | None:
    r"""Repair one candidate's text, which starts at its ``{`` or ``[``.

    The first top-level value is rewritten; whatever follows it is ignored.
    The repairs, by the name each gets in ``repairs``:

    - ``trailing_comma_removed``: ``[1, 2,]``;
    - ``single_quotes_replaced``: ``{'a': 'b'}``; a ``"`` inside is escaped;
    - ``python_literal_replaced``: ``True``, ``False``, ``None`` as values;
    - ``comment_removed``: ``//`` and ``#`` to the end of the line (not where
      a member's value is due: ``{"c": #fff}`` is an unquoted value), and
      ``/* */``;
    - ``key_quoted``: an identifier key, ``{name: 1}``;
    - ``comma_inserted``: a complete value followed directly by the next key
      (``{"a": 1 "b": 2}``) or item (``[1 2]``, ``[{"a": 1}\n{"b": 2}]``);
      an item must be apart from the value before it: ``[01]`` is refused;
    - ``invalid_escape_fixed``: ``\_``, ``\'``, ``\ `` in a string lose the
      backslash and keep the character;
    - ``control_characters_escaped``: a raw newline or tab in a string (the
      strict decoder's tolerance, needed here for strict output);
    - ``json_unescaped``: the value arrived string-escaped, ``{\"a\": 1}``,
      and is unescaped (up to the first bare quote) before the rest;
    - ``literal_newlines_removed``: ``\n``, ``\r``, ``\t`` written as two
      characters between tokens.
    - ``no_break_space_removed``: U+00A0 between tokens;
    - ``typographic_quotes_replaced``: ``{“a”: “b”}``; a ``”`` closes a
      straight-quoted string too (``"b”, "c": 1``) where the quote rule
      below would close it, unless a ``“`` came first in that string;
    - ``triple_quotes_replaced``: a Python triple-quoted string (three
      ``"`` or three ``'`` each side, no backslash inside), followed by what
      may follow a value;
    - ``escaped_quotes_replaced``: ``{"q": \"rain\"}``, a key or value
      escaped once too often among plain JSON;
    - ``backticks_removed``: a container as inline code, ``"a": `{…}```;
    - ``leading_comma_removed``: ``[,{…}]``, with a key or item after it;
    - ``opening_quote_guessed``: ``"note": Sent today.", "id": 4``, when the
      text up to the next quote holds no ``"{[:`` or backslash and that
      quote is followed by ``,`` or ``}`` and then a key or the end.

    Some repairs choose between readings, and say so in their names:
    ``opening_quote_guessed`` above, and these two.

    ``inner_quote_escaped_guessed``: a quote met inside a string value is
    its closing quote when what follows it (past spaces) may follow the
    string:

    - the end of the text, or a comment;
    - a ``,`` and then the next key ``"k":``/``'k':``/``k:`` (in an
      object), the next item (in an array), a closing bracket or the end,
      looking past a line comment to the next line;
    - with no comma: a quoted key with its colon, or any key on a new line
      (in an object); an item on a new line, a ``{``/``[``, or a whole
      string followed by ``,``, ``]``, ``}`` or a quote (in an array); a
      ``:`` in an array (refused next);
    - a closing bracket, itself followed by what may follow its container
      (the top-level one by anything but a quote, a colon, or a comma and
      something that does not fit); one of the wrong kind only when one of
      its kind is open and a comma or a closing bracket follows it.

    Any other quote is text, and is escaped. If the text then ends inside
    the string although it ends with a closing bracket, the guess was wrong
    and the candidate is refused. Keys end at their first quote.

    ``bracket_fixed_guessed``: a closing bracket of the wrong kind, when the
    container below the open one is of the bracket's kind, either is the
    wrong kind and closes the open container (when a comma and something of
    the container below follow: a key for an object, an item for an array,
    ``{"a": ["b"}, "c": 1}``), or closes the container below after the
    missing closer of the open one (``[{"a": 1]``). A bracket that nothing
    open could close is the wrong kind (``{"a": 1]``), unless it ends the
    top-level value and a comma follows. An array still open when its
    object's next ``"key":`` comes is closed before it.

    Three repairs read the candidate as a whole before the pass:

    - ``html_entities_replaced`` (only with ``entities``, for a candidate in
      a fence): ``{ &quot;a&quot;: 1 }``, when its first quote is
      ``&quot;``; entities are replaced up to the first bare quote;
    - ``template_braces_undoubled``: ``{{"a": 1}}``, a prompt template's
      doubled braces, when every brace outside strings is doubled;
    - ``false_start_dropped``: the model restarted the value inside itself
      (``{"{"a": 1}``, ``{"a": "x",{"a": "x", "b": 2}``): when the pass
      refuses the text, the restarted object is the answer if it is
      complete, the text before it (less a trailing comma) is a prefix of
      it, and nothing after it says the outer value goes on.

    Args:
        text: The candidate, from its opening bracket (prose may follow).
        entities: Whether HTML entities may stand for quotes (the candidate
            is in a fence, where a page may have escaped the reply).

    Returns:
        The rewritten text, or ``None`` when nothing needed repair or when
        the text cannot be repaired without guessing data (an unquoted value
        like ``{status: ok}``, ``NaN``, ``Infinity``, garbage).

    Example:
        >>> repair('{name: "Ada", tags: ["x" "y"], ok: True} // done').text
        '{"name": "Ada", "tags": ["x", "y"], "ok": true}'
        >>> repair('{"a": 1}') is None
        True
    """
    if not text.startswith(("{", "[")):
        return None
    repairs: dict[str, None] = {}
    # Only the first characters can show it, so the match is kept short.
    length = len(text)
    unescaped = _ESCAPED_START.match(text, 0, _ESCAPED_WINDOW) is not None
    if unescaped:
        text = _unescape(text)
        repairs["json_unescaped"] = None
    elif entities and _ENTITY_START.match(text, 0, _ESCAPED_WINDOW) is not None:
        quote = text.find('"')
        text = html.unescape(text if quote < 0 else text[:quote])
        repairs["html_entities_replaced"] = None
        unescaped = True
    elif _DOUBLED_START.match(text, 0, _ESCAPED_WINDOW) is not None:
        undoubled = _undouble(text)
        if undoubled is not None:
            single, length = undoubled
            fixed = repair(single)
            if fixed is None:
                found = _rewrite(single, repairs)
                if found is None or found[1]:
                    return None
                single = found[0]
            elif fixed.truncated:
                return None
            else:
                single = fixed.text
                repairs.update(dict.fromkeys(fixed.repairs))
            repairs = {"template_braces_undoubled": None, **repairs}
            return Repaired(single, tuple(repairs), truncated=False, end=length)
    rewritten = _rewrite(text, repairs)
    if rewritten is None and not unescaped:
        return _restarted(text)
    if rewritten is None or not repairs:
        return None
    out, truncated, end = rewritten
    # Offsets in unescaped text are not the input's: claim all of it.
    return Repaired(
        out, tuple(repairs), truncated=truncated, end=length if unescaped else end
    )


def _undouble(text: str) -> tuple[str, int] | None:
    """The value with a template's doubled braces made single, and its end.

    ``None`` unless every brace outside strings, up to where the value
    closes, is doubled; one linear scan.
    """
    pieces: list[str] = []
    braces = brackets = 0
    pos, n = 0, len(text)
    while pos < n:
        char = text[pos]
        if char == '"':
            end = _end(_OUTER_BODY, text, pos + 1)
            if end >= n:
                return None
            pieces.append(text[pos : end + 1])
            pos = end + 1
            continue
        if char in "{}":
            if text[pos + 1 : pos + 2] != char:
                return None
            pieces.append(char)
            pos += 2
            braces += 1 if char == "{" else -1
        elif char in "[]":
            pieces.append(char)
            pos += 1
            brackets += 1 if char == "[" else -1
        else:
            end = _end(_BETWEEN_BRACES, text, pos)
            pieces.append(text[pos:end])
            pos = end
            continue
        if braces < 0 or brackets < 0:
            return None
        if braces == brackets == 0:
            return "".join(pieces), pos
    return None


def _restarted(text: str) -> Repaired | None:
    """The object the model restarted inside a refused one, when that is sure.

    See ``false_start_dropped`` in :func:`repair`. Only restarts within the
    first characters are looked for, and only the first that the false start
    is a prefix of is read, so the cost stays linear.
    """
    pos = 0
    while True:
        pos = text.find("{", pos + 1, _ESCAPED_WINDOW)
        if pos < 0:
            return None
        start = text[:pos].rstrip(" \t\r\n,")
        if len(start) > 1 and text.startswith(start, pos):
            break
    repairs: dict[str, None] = {"false_start_dropped": None}
    found = _rewrite(text[pos:], repairs)
    if found is None or found[1]:
        return None
    end = pos + found[2]
    after = _end(_SPACE, text, end)
    if text.startswith("}", after):
        end = after + 1
        after = _end(_SPACE, text, end)
    if after < len(text) and text[after] in ",:\"'}]":
        return None
    return Repaired(found[0], tuple(repairs), truncated=False, end=end)


def _end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where ``pattern``, which may match empty, stops from ``pos``."""
    return pattern.match(text, pos).end()  # type: ignore[union-attr]


def _unescape(text: str) -> str:
    r"""Undo one level of string escaping, up to the first bare quote.

    ``\uXXXX`` stays as it is: in the strings it lands in, it means the same
    character, and it cannot split a surrogate pair there. Invalid escapes
    stay too, for the string scanner to fix and name.
    """
    end = _end(_OUTER_BODY, text, 0)
    return _OUTER_ESCAPE.sub(lambda m: _OUTER_CHARS[m.group(1)], text[:end])


def _rewrite(text: str, repairs: dict[str, None]) -> tuple[str, bool, int] | None:
    """The pass itself: the strict text, whether the input ran out, where it stopped."""
    n = len(text)
    out: list[str] = [text[0]]
    stack: list[str] = [text[0]]
    # Where each open container starts in ``out`` (piece, offset in it),
    # and whether a container inside it has closed.
    marks: list[_Mark] = [[0, 0, False, False]]
    opened = {"{": 0, "[": 0}
    opened[text[0]] = 1
    state = _KEY_FIRST if text[0] == "{" else _ITEM_FIRST
    pos = 1
    comma_at = -1  # the piece holding the comma before a pending key or item
    # Depths of open containers written in backticks (``"a": `{...}` ``),
    # whose closing backtick is due when they close.
    ticks: list[int] = []
    ahead = _Ahead(text)
    while True:
        # The hot path: a match or two take a run of strict JSON.
        in_object = stack[-1] == "{"
        if in_object:
            if state <= _KEY:
                end = _end(_KEY_COLON, text, pos)
                if end > pos:
                    out.append(text[pos:end])
                    pos = end
                    state = _MEMBER
            if state in {_MEMBER, _AFTER}:
                end = _end(_MEMBERS, text, pos)
                if end > pos:
                    _note_containers(text, pos, end, marks)
                    out.append(text[pos:end])
                    pos = end
                    state = _MEMBER if text[end - 1] == ":" else _AFTER
        else:
            end = _end(_ITEMS, text, pos)
            if end > pos:
                _note_containers(text, pos, end, marks)
                if text[end - 1] == ",":
                    out.append(text[pos : end - 1])
                    comma_at = len(out)
                    out.append(",")
                    state = _ITEM
                else:
                    out.append(text[pos:end])
                    state = _AFTER
                pos = end

        # The careful path: one token.
        value_end, gap_at = pos, len(out)
        end = _end(_SPACE, text, pos)
        if end > pos:
            out.append(text[pos:end])
            pos = end
        if pos < n and text[pos] in "/#\\\xa0":
            pos = _gap(text, pos, out, repairs, comments=state != _MEMBER)
        if pos >= n:
            return "".join(out), True, n
        char = text[pos]

        if state == _AFTER:
            if ticks and len(stack) < ticks[-1]:
                if char != "`":
                    return None
                ticks.pop()
                pos += 1
            elif char == ",":
                comma_at = len(out)
                out.append(",")
                pos += 1
                state = _KEY if in_object else _ITEM
            elif char in "}]":
                pos = _close(text, pos, stack, marks, opened, out, repairs, empty=False)
                if pos < 0:
                    return None
                if not stack:
                    return "".join(out), False, pos
            elif _next_without_comma(text, value_end, pos, in_object=in_object):
                # Right after the value, before the spaces that follow it.
                comma_at = gap_at
                out.insert(gap_at, ",")
                repairs["comma_inserted"] = None
                state = _KEY if in_object else _ITEM
            else:
                return None

        elif char == "," and state in {_KEY_FIRST, _ITEM_FIRST}:
            # ``[\n,{...}]``: a comma before the first key or item, with
            # one after it (``{,}`` and ``[,,1]`` stay refused).
            after = _end(_LOOK_GAP, text, pos + 1)
            if after >= n or not _next_ahead(text, after, in_object=in_object):
                return None
            repairs["leading_comma_removed"] = None
            pos += 1
        elif char in "}]" and state in _CLOSABLE:
            # A container ends where a key or an item could start: after a
            # comma, the comma was a trailing one.
            if state in {_KEY, _ITEM}:
                out[comma_at] = ""
                repairs["trailing_comma_removed"] = None
            pos = _close(
                text,
                pos,
                stack,
                marks,
                opened,
                out,
                repairs,
                empty=state in {_KEY_FIRST, _ITEM_FIRST},
            )
            if pos < 0:
                return None
            if not stack:
                return "".join(out), False, pos
            state = _AFTER

        elif state <= _KEY:
            if char in "\"'“":
                if char in _QUOTE_REPAIR:
                    repairs[_QUOTE_REPAIR[char]] = None
                pos = _string(text, pos, _IN_KEY, "", out, repairs)
                if pos < 0:
                    return "".join(out), True, n
                state = _COLON
            elif text.startswith('\\"', pos):
                pos = _escaped_string(text, pos, _IN_KEY, stack, opened, out, None)
                if pos < 0:
                    return None
                repairs["escaped_quotes_replaced"] = None
                state = _COLON
            else:
                end = _end(_IDENT, text, pos)
                if end == pos:
                    return None
                colon = _end(_SPACE, text, end)
                if colon >= n:
                    return "".join(out), True, n
                if text[colon] != ":":
                    return None
                out.append(f'"{text[pos:end]}"')
                repairs["key_quoted"] = None
                pos = end
                state = _COLON

        elif state == _COLON:
            if char != ":":
                return None
            out.append(":")
            pos += 1
            state = _MEMBER

        # A value is due: a member's, or an array item.
        elif char == "`" and text.startswith(("`{", "`["), pos):
            # A container as markdown inline code: the backticks go.
            ticks.append(len(stack) + 1)
            pos += 1
            repairs["backticks_removed"] = None
        elif char == "[":
            # A run of ``[`` at once: deep nesting costs no step per level.
            end = _end(_OPEN_ARRAYS, text, pos)
            run = text[pos:end]
            count = run.count("[")
            piece = len(out)
            out.append(run)
            stack.extend("[" * count)
            marks.extend(
                [piece, i, False, False] for i, c in enumerate(run) if c == "["
            )
            opened["["] += count
            pos = end
            state = _ITEM_FIRST
        elif char == "{":
            marks.append([len(out), 0, False, False])
            out.append(char)
            stack.append(char)
            opened[char] += 1
            pos += 1
            state = _KEY_FIRST
        elif text.startswith(('"""', "'''"), pos):
            where = _IN_OBJECT if state == _MEMBER else _IN_ARRAY
            pos = _triple_quoted(text, pos, where, stack, opened, out, ahead)
            if pos < 0:
                return None
            repairs["triple_quotes_replaced"] = None
            state = _AFTER
        elif text.startswith('\\"', pos):
            where = _IN_OBJECT if state == _MEMBER else _IN_ARRAY
            pos = _escaped_string(text, pos, where, stack, opened, out, ahead)
            if pos < 0:
                return None
            repairs["escaped_quotes_replaced"] = None
            state = _AFTER
        elif char in "\"'“":
            if (
                state == _ITEM
                and len(stack) > 1
                and stack[-2] == "{"
                and _end(_KEY_AHEAD, text, pos) > pos
            ):
                # The array was left open before its object's next key: a
                # lost ``]``, unless a stray ``[`` reads as well (see _close).
                if not _array_may_close(out, marks[-1], comma_at):
                    return None
                out[comma_at] = "],"
                _pop(stack, marks, opened)
                repairs["bracket_fixed_guessed"] = None
                state = _KEY
                continue
            if char in _QUOTE_REPAIR:
                repairs[_QUOTE_REPAIR[char]] = None
            where = _IN_OBJECT if state == _MEMBER else _IN_ARRAY
            parent = stack[-2] if len(stack) > 1 else ""
            other = opened["[" if where == _IN_OBJECT else "{"] > 0
            pos = _string(
                text, pos, where, parent, out, repairs, ahead, other_open=other
            )
            if pos == _WRONG:
                return None
            if pos == _CUT:
                return "".join(out), True, n
            state = _AFTER
        elif char in _NUMBER_START:
            end = _end(_NUMBER, text, pos)
            if end == pos or (end < n and (text[end].isalnum() or text[end] in "._$")):
                # A number cut off (``-``, ``1.``, ``1e+``) is dropped, as the
                # partial parser would drop it; ``1.}``, ``0x1``, ``.5``,
                # ``2notanumber`` are refused.
                cut = _end(_NUMBER_TAIL, text, pos) >= n
                return ("".join(out), True, n) if cut else None
            out.append(text[pos:end])
            pos = end
            state = _AFTER
        elif char in "}]":
            return None  # a member's value is due
        else:
            found = _LITERAL.match(text, pos)
            if found is None or found.end() == pos:
                end = _end(_WORD, text, pos)
                if end >= n and text[pos:end] in _PREFIXES:
                    return "".join(out), True, n
                end = _opening_quote_lost(text, pos) if state == _MEMBER else -1
                if end < 0:
                    return None
                out.append(orjson.dumps(text[pos : end - 1]).decode())
                repairs["opening_quote_guessed"] = None
                pos = end
                state = _AFTER
                continue
            if found.group(2) is not None:
                out.append(_PYTHON[found.group(2)])
                repairs["python_literal_replaced"] = None
            else:
                out.append(found.group(1))
            pos = found.end()
            state = _AFTER


def _gap(
    text: str, pos: int, out: list[str], repairs: dict[str, None], *, comments: bool
) -> int:
    r"""Skip spaces (kept), comments and literal ``\n`` pairs (dropped).

    ``//`` and ``#`` comments are not looked for where a member's value is
    due: there, ``#fff`` or ``//host`` is an unquoted value, not a comment.
    """
    n = len(text)
    while True:
        end = _end(_SPACE, text, pos)
        if end > pos:
            out.append(text[pos:end])
            pos = end
        if pos >= n:
            return pos
        char = text[pos]
        nxt = text[pos + 1 : pos + 2]
        if char == "/" and nxt == "*":
            end = text.find("*/", pos + 2)
            pos = n if end < 0 else end + 2
            repairs["comment_removed"] = None
        elif comments and (char == "#" or (char == "/" and nxt == "/")):
            end = text.find("\n", pos)
            pos = n if end < 0 else end
            repairs["comment_removed"] = None
        elif char == "\\" and nxt in {"n", "r", "t"}:
            pos += 2
            repairs["literal_newlines_removed"] = None
        elif char == "\xa0":
            # A no-break space between tokens: a space to a reader, not to JSON.
            pos += 1
            repairs["no_break_space_removed"] = None
        else:
            return pos


def _string(  # noqa: PLR0917 - one call site each, all positional state
    text: str,
    pos: int,
    where: int,
    parent: str,
    out: list[str],
    repairs: dict[str, None],
    ahead: _Ahead | None = None,
    *,
    other_open: bool = False,
) -> int:
    r"""Write the string opening at ``pos`` as JSON; return where it ends.

    ``parent`` is the bracket of the container around the string's own
    (``""`` at the top level), and ``other_open`` whether a bracket of the
    other kind than the string's container is open: both for the quote rule,
    which ``ahead`` applies (a key, without it, ends at its first quote).

    Returns:
        The offset after the closing quote; or :data:`_CUT` when the text
        ends inside the string (what was written is then its prefix, a
        dangling ``\`` or partial ``\u`` escape dropped); or :data:`_WRONG`.
    """
    n = len(text)
    quote = text[pos]
    body = _SQ_BODY if quote == "'" else _DQ_BODY
    guessed = False
    inner = 0
    literal = False
    # Typographic quotes open inside the string (a ``“`` not yet closed by a
    # ``”``): none closes the string then. In a straight-quoted string, once
    # one is text (a ``“``, or a ``”`` that did not close it), all are.
    nested = 0
    controls = 0
    out.append('"')
    pos += 1
    first_piece, body_start = len(out), pos
    while True:
        end = _end(body, text, pos)
        if end > pos:
            out.append(text[pos:end])
            pos = end
        if pos >= n:
            break
        char = text[pos]
        if char in "“”" and quote != "'":
            pos += 1
            if (
                char == "”"
                and nested == 0
                and _typographic_closes(text, pos, where, parent, ahead, other_open)
            ):
                out.append('"')
                repairs["typographic_quotes_replaced"] = None
                return pos
            # A ``”`` taken as text may have been the closer: a cut after it
            # cannot be told from a wrong guess.
            guessed = guessed or char == "”"
            if quote == '"':
                nested = 1
            else:
                nested = nested + 1 if char == "“" else max(nested - 1, 0)
            out.append(char)
        elif char == quote:
            pos += 1
            # Inner quotes come in pairs (``"He said "hi" to me"``): a quote
            # after an odd number of them is one more inner quote, whatever
            # follows it, so a stray quote is never taken for a pair.
            if ahead is None or (
                (quote == "'" or inner % 2 == 0)
                and ahead.closes(pos, where, parent, other_open)
            ):
                if controls and _dangling_break(text, pos - 1, controls):
                    return _WRONG  # ``"x.org/p\n"}``: a quote swapped with a break
                out.append('"')
                return pos
            if quote == '"' and _beside_structure(text, pos - 1):
                return _WRONG  # ``"a, "b": "c"``: a lost quote, not an inner one
            out.append('\\"' if quote == '"' else "'")
            repairs["inner_quote_escaped_guessed"] = None
            guessed = True
            inner += 1
        elif char == '"':  # in a single- or typographic-quoted string
            pos += 1
            if quote == "“" and _typographic_closes(
                text, pos, where, parent, ahead, other_open
            ):
                out.append('"')
                return pos
            out.append('\\"')
        elif char == "\\":
            nxt = text[pos + 1 : pos + 2]
            if not nxt or (nxt == "u" and _end(_HEX, text, pos + 2) >= n):
                break
            if nxt == "'" and quote == "'":
                out.append("'")
                pos += 2
            elif literal:
                found = _KEPT_ESCAPE.match(text, pos, pos + 6)
                escape = found.end() if found else pos
                out.append(text[pos:escape] if escape > pos else "\\\\")
                pos = escape if escape > pos else pos + 1
            elif not ((nxt.isascii() and nxt.isalnum()) or nxt in _LITERAL_TRIGGERS):
                # Keep the character, drop the backslash.
                repairs["invalid_escape_fixed"] = None
                pos += 1
            else:
                # A regex, a path, LaTeX: every backslash of the string is
                # literal. Written again from its start, at most once.
                del out[first_piece:]
                pos, literal, inner, guessed = body_start, True, 0, False
                body = _SQ_LITERAL_BODY if quote == "'" else _DQ_LITERAL_BODY
                repairs["literal_backslashes_guessed"] = None
        else:
            out.append(_CONTROL_ESCAPES.get(char) or f"\\u{ord(char):04x}")
            repairs["control_characters_escaped"] = None
            controls += 1
            pos += 1
    if guessed:
        return _WRONG
    return _CUT


def _opening_quote_lost(text: str, pos: int) -> int:
    r"""Where a member's value that lost only its opening quote ends, or ``-1``.

    The value starts at ``pos``, where no value can start, and runs to the
    next quote, past no ``{``, ``[`` or ``:`` (nor a backslash, whose meaning
    would be a guess); that quote is followed by ``,`` or ``}`` and then a
    key or the end of the text: ``"note": Sent today.", "id": 4``.
    """
    quote = _end(_UNQUOTED_BODY, text, pos)
    if quote >= len(text) or text[quote] != '"':
        return -1
    after = _end(_SPACE, text, quote + 1)
    if after >= len(text) or text[after] not in ",}":
        return -1
    nxt = _end(_SPACE, text, after + 1)
    if nxt < len(text) and _end(_KEY_AHEAD, text, nxt) == nxt:
        return -1
    return quote + 1


def _triple_quoted(  # noqa: PLR0917 - the pass's own state
    text: str,
    pos: int,
    where: int,
    stack: list[str],
    opened: dict[str, int],
    out: list[str],
    ahead: _Ahead,
) -> int:
    r"""Write a Python triple-quoted string at ``pos`` as JSON; return its end.

    Its text is kept as written (line breaks escaped); ``-1`` when it does not
    close, holds a backslash (an escape's meaning would be a guess), or its
    closing quotes are not followed by what may follow a value.
    """
    delimiter = text[pos : pos + 3]
    close = text.find(delimiter, pos + 3)
    if close < 0 or "\\" in text[pos + 3 : close]:
        return -1
    end = close + 3
    if not _value_closes(end, where, stack, opened, ahead):
        return -1
    out.append(orjson.dumps(text[pos + 3 : close]).decode())
    return end


def _escaped_string(  # noqa: PLR0917 - the pass's own state
    text: str,
    pos: int,
    where: int,
    stack: list[str],
    opened: dict[str, int],
    out: list[str],
    ahead: _Ahead | None,
) -> int:
    r"""Write a string quoted ``\"…\"`` at ``pos`` as JSON; return its end.

    A key or value escaped once too often among plain JSON
    (``{"query": \"rain\"}``); ``-1`` unless it holds no quote or backslash
    and is followed by what may follow it (a colon after a key).
    """
    found = _ESCAPED_STRING.match(text, pos)
    if found is None:
        return -1
    end = found.end()
    if ahead is None:
        if _end(_COLON_NEXT, text, end) == end:
            return -1
    elif not _value_closes(end, where, stack, opened, ahead):
        return -1
    out.append(f'"{found.group(1)}"')
    return end


def _value_closes(
    end: int,
    where: int,
    stack: list[str],
    opened: dict[str, int],
    ahead: _Ahead,
) -> bool:
    """Whether a value ending at ``end`` is followed by what may follow it."""
    parent = stack[-2] if len(stack) > 1 else ""
    other = opened["[" if where == _IN_OBJECT else "{"] > 0
    return ahead.closes(end, where, parent, other)


def _typographic_closes(  # noqa: PLR0917 - _string's own state
    text: str,
    pos: int,
    where: int,
    parent: str,
    ahead: _Ahead | None,
    other_open: bool,
) -> bool:
    """Whether a quote of a typographic pair, just before ``pos``, closes its string.

    A key's when a colon follows; a value's by the quote rule.
    """
    if ahead is None:
        return _end(_COLON_NEXT, text, pos) > pos
    return ahead.closes(pos, where, parent, other_open)


def _dangling_break(text: str, quote: int, controls: int) -> bool:
    """Whether a string's only raw control characters end it as a line break.

    The strict decoder's rule (``_decode``): before the closing quote at
    ``quote``, a break is more likely a quote swapped with it than data.
    """
    if text[quote - 1 : quote] != "\n":
        return False
    return controls == 1 or (controls == 2 and text[quote - 2 : quote - 1] == "\r")


def _beside_structure(text: str, quote: int) -> bool:
    """Whether a quote taken for an inner one stands beside JSON's own structure.

    After it: a colon, another quote, a comma and then a quote, a comma,
    an elided ``...`` or a line break; before it: a colon, an opening
    bracket, a comma right against it, or a comma after a quote
    (``"a, "b": "c"``, ``"x", "y``, ``"a""b"``, ``{ "``, ``t,"b``): the
    quote opens or closes a key or a value, and some other quote is missing
    or stray, so no reading is safe.
    """
    if _STRUCTURE_AFTER.match(text, quote + 1, quote + 2 * _NEAR + 2) is not None:
        return True
    if quote and text[quote - 1] == ",":
        return True
    i = quote - 1
    floor = max(0, quote - _NEAR)
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    if i < floor:
        return False
    if text[i] in ":{[":
        return True
    if text[i] not in ",;":
        return False
    i -= 1
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    return i >= floor and text[i] == '"'


class _Ahead:
    """The quote rule: what follows a quote, read ahead in the text.

    It remembers its last comment line: many quotes may look past the same
    one, and each look must stay short for the pass to stay linear.
    """

    __slots__ = ("_line", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        # (from, newline, in_object, verdict) of the last look past a comment
        # line: ``newline`` is the first one after ``from``.
        self._line: tuple[int, int, bool, bool] = (-1, -1, False, False)

    def closes(self, pos: int, where: int, parent: str, other_open: bool) -> bool:
        """Whether the quote just before ``pos`` closes its string.

        It does when what follows may follow the string as a value of its
        container. A closing bracket must in turn be followed by what may
        follow that container; one of the wrong kind needs one of its kind
        open, and a comma or a closing bracket after it.
        """
        text = self._text
        in_object = where == _IN_OBJECT
        ahead = _end(_LOOK_GAP, text, pos)
        if ahead >= len(text):
            return True
        char = text[ahead]
        if char not in "}]":
            return self.follows(pos, ahead, in_object=in_object)
        after = _end(_LOOK_GAP, text, ahead + 1)
        if after >= len(text):
            return True
        if (char == "}") != in_object:
            return other_open and text[after] in ",}]"
        if parent:
            return self.follows(ahead + 1, after, in_object=parent == "{")
        # The end of the top-level value: prose may follow, but not a quote
        # or a colon, nor a comma and then something that does not fit.
        if text[after] == ",":
            return self.follows(ahead + 1, after, in_object=in_object)
        return text[after] not in "\"':"

    def follows(self, pos: int, ahead: int, *, in_object: bool) -> bool:
        """Whether the text at ``ahead`` may follow a value that ends at ``pos``.

        ``ahead`` is past the spaces after the value, and not at the end.
        """
        text = self._text
        char = text[ahead]
        if char in "}]" or text.startswith(("//", "/*"), ahead):
            return True
        if char == "#" and ahead > pos:
            return True
        if char == ",":
            ahead = _end(_LOOK_GAP, text, ahead + 1)
            if (
                ahead >= len(text)
                or text[ahead] in "}]"
                or text.startswith("/*", ahead)
            ):
                return True
            if text.startswith(("//", "#"), ahead):
                return self._past_comment(ahead, in_object=in_object)
            return _next_ahead(text, ahead, in_object=in_object)
        if char == ":":
            return not in_object
        gap = text[pos:ahead]
        new_line = "\n" in gap or "\\n" in gap
        if in_object:
            # The next key: quoted, or on a new line.
            keyed = char in "\"'“" or new_line
            return keyed and _end(_KEY_AHEAD, text, ahead) > ahead
        if ahead == pos:
            return False
        if new_line:
            return _item_ahead(text, ahead)
        # On the same line: a container, or a whole string that may be an item.
        return char in "{[" or _end(_NEXT_STRING, text, ahead) > ahead

    def _past_comment(self, start: int, *, in_object: bool) -> bool:
        """Whether a comma, then a line comment at ``start``, end a value.

        The line after the comment decides, as if it came right after the
        comma. A comment that runs to the end of the text does end it.
        """
        text = self._text
        since, newline, was_object, verdict = self._line
        if since <= start <= newline and was_object == in_object:
            return verdict
        found = text.find("\n", start)
        newline = len(text) if found < 0 else found
        ahead = _end(_LOOK_GAP, text, newline)
        if ahead >= len(text) or text[ahead] in "}]#":
            verdict = True
        elif text.startswith(("//", "/*"), ahead):
            verdict = True  # more comment lines: the value did end
        else:
            verdict = _next_ahead(text, ahead, in_object=in_object)
        self._line = (start, newline, in_object, verdict)
        return verdict


def _next_ahead(text: str, pos: int, *, in_object: bool) -> bool:
    """Whether the next key (or one cut off) or item starts at ``pos``."""
    if in_object:
        return _end(_KEY_OR_CUT, text, pos) > pos
    return _item_ahead(text, pos)


def _item_ahead(text: str, pos: int) -> bool:
    """Whether an array item starts at ``pos``."""
    return text[pos] in _VALUE_START or _end(_LITERAL, text, pos) > pos


def _next_without_comma(
    text: str, value_end: int, pos: int, *, in_object: bool
) -> bool:
    """Whether the token at ``pos`` is a next key or item missing its comma.

    In an object it must be a key with its colon. In an array it must start
    an item, apart from the value before it (a space or a comment between,
    or that value a container): ``01`` is not ``0, 1``. Two readings are
    plausible, so no comma is inserted, when the comma seems to have moved
    into a string (``"a," "b": 1``, ``"a"",b": 1``), or between two numbers
    on one line (``[1 500]``: a thousands separator?).
    """
    if (text.endswith(',"', 0, value_end) and text[value_end - 3] != '"') or (
        pos == value_end and text.startswith(('",', "',"), pos)
    ):
        return False  # (a string that is only a comma, ``","``, is data)
    if in_object:
        return _end(_KEY_AHEAD, text, pos) > pos
    if pos == value_end and text[value_end - 1] not in "}]":
        return False
    if (
        text[value_end - 1].isdigit()
        and text[pos] in _NUMBER_START
        and "\n" not in text[value_end:pos]
    ):
        return False
    return _item_ahead(text, pos)


def _content(out: list[str], mark: _Mark, upto: int | None = None) -> str:
    """The strict text written for a container so far, from its bracket."""
    piece, offset = mark[0], mark[1]
    return "".join(out[piece:upto])[offset:]


def _note_containers(text: str, start: int, end: int, marks: list[_Mark]) -> None:
    """Note that a run the hot path took holds a container.

    A bracket in a string counts too: that only makes a later guess more
    careful.
    """
    mark = marks[-1]
    if not mark[_OBJECT_CHILD] and text.find("{", start, end) >= 0:
        mark[_OBJECT_CHILD] = True
    if not mark[_ARRAY_CHILD] and text.find("[", start, end) >= 0:
        mark[_ARRAY_CHILD] = True


def _pop(stack: list[str], marks: list[_Mark], opened: dict[str, int]) -> None:
    """Close the top container: the one below now holds a closed container."""
    kind = stack.pop()
    opened[kind] -= 1
    marks.pop()
    if marks:
        marks[-1][_OBJECT_CHILD if kind == "{" else _ARRAY_CHILD] = True


def _array_may_close(out: list[str], mark: _Mark, upto: int | None) -> bool:
    """Whether a lost ``]`` is the only reading of an open array.

    A stray ``[`` reads as well when the array holds one item (``"id": [7,``)
    or an array that has closed (its ``]`` may have been this one's).
    """
    if mark[_ARRAY_CHILD]:
        return False
    try:
        return len(orjson.loads(_content(out, mark, upto) + "]")) >= 2
    except orjson.JSONDecodeError:
        return False


def _may_close(
    text: str, pos: int, stack: list[str], marks: list[_Mark], out: list[str]
) -> bool:
    """Whether the top container's closer is surely what went missing.

    Only when no container of its kind closed inside it (that closer may
    have been this one's), an array holds two items or more (one item may sit
    in a stray ``[``), and the text after the bracket goes on as it may after
    the container below: a comma, a closer, or (at the top level) anything.
    """
    top, mark = stack[-1], marks[-1]
    if mark[_OBJECT_CHILD if top == "{" else _ARRAY_CHILD]:
        return False
    if top == "[" and not _array_may_close(out, mark, None):
        return False
    if len(stack) == 2:
        return True
    ahead = _end(_LOOK_GAP, text, pos + 1)
    return ahead >= len(text) or text[ahead] in ",]}"


def _swap_fits(text: str, pos: int, stack: list[str]) -> bool:
    """Whether the text at ``pos`` may follow two swapped closers.

    What follows must close or go on in the container below both (``,``, a
    closer or the end), or, when they close the top-level value, anything
    but a comma (``{"a": [{"b": 1}}], "c": 2}`` has a stray ``}``, not a swap).
    """
    ahead = _end(_LOOK_GAP, text, pos)
    if ahead >= len(text):
        return True
    if len(stack) == 2:  # the two closers close the top-level value
        return text[ahead] != ","
    return text[ahead] in ",}]"


def _close(  # noqa: PLR0917 - the pass's own state, passed whole
    text: str,
    pos: int,
    stack: list[str],
    marks: list[_Mark],
    opened: dict[str, int],
    out: list[str],
    repairs: dict[str, None],
    *,
    empty: bool,
) -> int:
    """Close containers for the bracket at ``pos``; ``-1`` when it fits none.

    A bracket of the wrong kind is read as a typo only where one reading
    fits: never for an empty container (``{]``: which bracket is wrong?), and
    a missing closer is supplied only for a container that holds no other
    (``[{"a": 1]``), since a closer lost inside a nested one cannot be placed.
    """
    char = text[pos]
    top = stack[-1]
    if _CLOSER[top] == char:
        out.append(char)
        _pop(stack, marks, opened)
        return pos + 1
    if empty:
        return -1
    want = _OPENER[char]
    below = stack[-2] if len(stack) > 1 else ""
    if below == want:
        # Either the bracket is the wrong kind for ``top`` and the text goes
        # on inside ``below``, or ``top``'s closer is missing and the bracket
        # closes ``below``: what follows the bracket decides.
        nxt = _end(_SPACE, text, pos + 1)
        if text.startswith(_CLOSER[top], nxt) and _swap_fits(text, nxt + 1, stack):
            # ``}]`` for ``]}``: two closers swapped, both used.
            out.append(_CLOSER[top])
            _pop(stack, marks, opened)
            out.append(char)
            _pop(stack, marks, opened)
            repairs["bracket_fixed_guessed"] = None
            return nxt + 1
        comma = _end(_COMMA_AHEAD, text, pos + 1)
        # ``]]`` for ``}]``: the next bracket closes ``below``, so this one
        # is the wrong kind (read as a lost closer, that one would be stray).
        wrong_kind = text.startswith(char, nxt)
        if comma > pos + 1:
            ahead = _end(_LOOK_GAP, text, comma)
            if ahead < len(text):
                is_key = _end(_KEY_AHEAD, text, ahead) > ahead
                wrong_kind = is_key == (below == "{")
        if not wrong_kind and not _may_close(text, pos, stack, marks, out):
            return -1
        out.append(_CLOSER[top])
        _pop(stack, marks, opened)
        if not wrong_kind:
            out.append(char)
            _pop(stack, marks, opened)
    elif opened[want] == 0:
        # Nothing open that this bracket could close: it is the wrong kind,
        # unless it ends the top-level value and a comma says the value goes
        # on (``[{"a": 1}}, {"b": 2}]``: a stray bracket, not a wrong one).
        if len(stack) == 1 and _end(_COMMA_AHEAD, text, pos + 1) > pos + 1:
            return -1
        out.append(_CLOSER[top])
        _pop(stack, marks, opened)
    else:
        return -1
    repairs["bracket_fixed_guessed"] = None
    return pos + 1
