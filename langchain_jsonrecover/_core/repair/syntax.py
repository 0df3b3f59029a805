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

This module reads the candidate as a whole (escaped, entity-quoted or
template-doubled JSON, a restarted value) around the pass, which
``_repair_pass`` runs: one step per
:class:`~langchain_jsonrecover._core.repair.state.State`,
with the quote rule in ``_repair_ahead``, strings in ``_repair_strings`` and
closing brackets in ``_repair_brackets``.

Speed comes from a hot path. At each step the pass first tries one compiled
pattern that takes a whole run of strict JSON (members or items, with
containers nested up to ``FLAT_DEPTH`` deep, see ``_repair_tokens``) in a
single C-level match, so Python steps token by token only around the faults
and into deep nesting. Every pattern may match empty, so a call costs what it
consumes plus a bounded look ahead. A reply whose only faults are single
quotes and Python literals has one on every row, though: before the pass,
``_repair_python_style`` rewrites such a candidate with a few C-level calls,
giving exactly what the pass would give, or declines and leaves it to the pass.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from langchain_jsonrecover._core.decode.tolerant import (
    Stopped,
    loads_within,
    stop_in,
)
from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.python_style import rewrite_python_style
from langchain_jsonrecover._core.repair.splice import repair_object
from langchain_jsonrecover._core.repair.tokens import match_end
from langchain_jsonrecover._core.repair.walk import DEEPEST, rewrite

_TRAILING_COMMA: Final = "trailing comma is not allowed"
"""orjson's message at a comma before a closer (it stops at the comma)."""
_QUOTE_LIKE: Final = "\u201c\u201d\u201e\u201f\uff02"
"""Quotes the pass may read as a string's end besides ``"`` (typographic,
fullwidth); one ``in`` each is a scan in C."""
_INNER_GUESSED: Final = "inner_quote_escaped_guessed"
_INNER_QUOTES_LEAST: Final = 2
"""One inner quote (``"1/2" wrench"``) also reads as a stray one, dropped."""

_ESCAPED_WINDOW: Final = 256
_AS_QUOTE: Final = str.maketrans(dict.fromkeys("\u201c\u201d\uff02", '"'))
"""The quotes :func:`_requoted` reads as ``"``: curly either way, fullwidth."""
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
    value: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    """The value ``text`` decodes to, when the repair decoded it already (one
    item, big integers kept exact), else empty: a saved decode, not part of
    what the repair reads."""


def repair(
    text: str, *, entities: bool = False, stopped: Stopped | None = None
) -> Repaired | None:
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
      backslash and keep the character; a ``\'`` beside another ``'``
      (``r'\'x'``: code that means its backslash) is refused;
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
    - ``semicolon_as_comma``, ``equals_as_colon``, ``colon_inserted``,
      ``comma_as_colon``, ``colon_as_comma``, ``punctuation_dropped``: a
      ``;`` for a comma, a ``=`` for a colon, a lost colon after a quoted key,
      a ``,`` for it, a ``:`` for a comma before a key, a stray ``:`` or
      ``,``, each only where it has one reading (see ``_repair_punctuation``);
    - ``swapped_quotes_replaced``, ``fullwidth_quotes_replaced``: the pass
      refuses a candidate whose structural quotes are curly quotes the wrong
      way round (``{”name“: ”Ada“}``, or ``“`` and ``”`` swapped in a few
      places) or fullwidth (U+FF02): when the candidate holds no ``"`` at all,
      every ``“``, ``”`` and fullwidth quote is read as ``"``, and the reading is kept
      only when it decodes whole with no guessed repair (a curly quote meant
      as text inside a string makes that reading fail, and the candidate
      stays an error);
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
      it that does not end with a key's colon (there the restart is that
      key's value too, the root's last ``}`` lost), and nothing after it
      says the outer value goes on.

    Args:
        text: The candidate, from its opening bracket (prose may follow).
        entities: Whether HTML entities may stand for quotes (the candidate
            is in a fence, where a page may have escaped the reply).
        stopped: Where orjson stopped in ``text``, when the caller knows
            (it is then not decoded again to learn it).

    Returns:
        The rewritten text, or ``None`` when nothing needed repair or when
        the text cannot be repaired without guessing data (an unquoted value
        like ``{status: ok}``, ``NaN``, ``Infinity``, garbage).

    Example:
        >>> repair('{name: "Ada", tags: [1 "y"], ok: True} // done').text
        '{"name": "Ada", "tags": [1, "y"], "ok": true}'
        >>> repair('{"a": 1}') is None
        True
    """
    if not text.startswith(("{", "[")):
        return None
    repairs: dict[str, None] = {}
    # Only the first characters can show it, so the match is kept short.
    length = len(text)
    unescaped = tok.ESCAPED_START.match(text, 0, _ESCAPED_WINDOW) is not None
    partly = False
    if unescaped:
        # A bare quote stops the unescaping: the end of a quoted value, or
        # JSON only partly escaped (``{\"a\": \"x\", "b": "y"}``).
        partly = match_end(tok.OUTER_BODY, text, 0) < len(text)
        text = _unescape(text)
        repairs["json_unescaped"] = None
    elif entities and tok.ENTITY_START.match(text, 0, _ESCAPED_WINDOW) is not None:
        quote = text.find('"')
        text = html.unescape(text if quote < 0 else text[:quote])
        repairs["html_entities_replaced"] = None
        unescaped = True
    elif tok.DOUBLED_START.match(text, 0, _ESCAPED_WINDOW) is not None:
        undoubled = _undouble(text)
        if undoubled is not None:
            single, length = undoubled
            fixed = repair(single)
            if fixed is None:
                found = rewrite(single, repairs)
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
    if not repairs:
        python_style = rewrite_python_style(text)
        if python_style is not None:
            out, names, end = python_style
            return Repaired(out, names, truncated=False, end=end)
        stopped = stopped or stop_in(text)
        quick = _only_a_trailing_comma(text, stopped) or _spliced(text, stopped)
        if quick is not None:
            return quick
    rewritten = rewrite(text, repairs)
    if rewritten is None and not unescaped:
        return _restarted(text) or _requoted(text)
    if rewritten is None or not repairs:
        return None
    out, truncated, end = rewritten
    if truncated and partly:
        return None  # partly escaped: the unescaped part is not all of it
    # Offsets in unescaped text are not the input's: claim all of it.
    return Repaired(
        out, tuple(repairs), truncated=truncated, end=length if unescaped else end
    )


def _only_a_trailing_comma(
    text: str, stopped: Stopped | None = None
) -> Repaired | None:
    """The pass's reading of a value whose one slip is a trailing comma, in C.

    The decoder stops at the comma and, once it is dropped, reads the whole
    text: every other character is strict JSON, which the pass copies as it
    stands, so its output is that text without the comma. Texts the pass
    may read otherwise are left to it: prose after the value (a quote there
    changes where a string ends), typographic or fullwidth quotes (its quote
    rule). Strict JSON holds no triple quote, and nests no deeper than the
    pass opens (orjson reads 1024 levels, as the pass does). ``stopped``: where
    orjson stops in ``text``, if known; else ``text`` is decoded to learn it.
    """
    stopped = stopped or stop_in(text)
    if stopped is None:
        return None
    comma = stopped.pos
    if stopped.msg != _TRAILING_COMMA or text[comma : comma + 1] != ",":
        return None
    if quote_like(text):
        return None
    edited = text[:comma] + text[comma + 1 :]
    try:
        value, _ = loads_within(edited, DEEPEST)  # big integers kept exact
    except orjson.JSONDecodeError:
        return None
    end = len(edited.rstrip(" \t\r\n"))
    return Repaired(
        edited[:end],
        ("trailing_comma_removed",),
        truncated=False,
        end=end + 1,
        value=(value,),
    )


def _spliced(text: str, stopped: Stopped | None) -> Repaired | None:
    """The pass's reading, from a pass over the one object the slip is in.

    See ``repair/splice.py``. Only where orjson stops in the text, and where
    the pass reads strict JSON as orjson does (as in
    :func:`_only_a_trailing_comma`).
    """
    if stopped is None or quote_like(text):
        return None
    found = repair_object(text, stopped)
    if found is None:
        return None
    out, names, end, value = found
    return Repaired(out, names, truncated=False, end=end, value=(value,))


def quote_like(text: str) -> bool:
    """Whether ``text`` holds a quote the pass may read as a string's end."""
    return any(quote in text for quote in _QUOTE_LIKE)


def _undouble(text: str) -> tuple[str, int] | None:
    """The value with a template's doubled braces made single, and its end.

    ``None`` unless every brace outside strings, up to where the value
    closes, is doubled; one linear scan, a run of braces in one step.
    """
    pieces: list[str] = []
    braces = brackets = 0
    pos, n = 0, len(text)
    while pos < n:
        char = text[pos]
        if char == '"':
            end = match_end(tok.OUTER_BODY, text, pos + 1)
            if end >= n:
                return None
            pieces.append(text[pos : end + 1])
            pos = end + 1
            continue
        if char in "{}":
            run = match_end(tok.BRACE_RUN[char], text, pos) - pos
            pairs = run // 2
            if char == "}" and not brackets and 0 < braces <= pairs:
                # The value closes inside this run.
                return "".join(pieces) + "}" * braces, pos + 2 * braces
            if run % 2:
                return None
            pieces.append(char * pairs)
            pos += run
            braces += pairs if char == "{" else -pairs
        elif char in "[]":
            pieces.append(char)
            pos += 1
            brackets += 1 if char == "[" else -1
        else:
            end = match_end(tok.BETWEEN_BRACES, text, pos)
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
    if start.endswith(":"):
        # ``{"data": {"data": [1]}``: the restart is the key's value as well,
        # the root's last ``}`` lost (two readings).
        return None
    repairs: dict[str, None] = {"false_start_dropped": None}
    found = rewrite(text[pos:], repairs)
    if found is None or found[1]:
        return None
    end = pos + found[2]
    after = match_end(tok.SPACE, text, end)
    if text.startswith("}", after):
        end = after + 1
        after = match_end(tok.SPACE, text, end)
    if after < len(text) and text[after] in ",:\"'}]":
        return None
    return Repaired(found[0], tuple(repairs), truncated=False, end=end)


def _requoted(text: str) -> Repaired | None:
    """The candidate with every curly and fullwidth quote read as ``"``, when sure.

    See ``swapped_quotes_replaced`` in :func:`repair`. Each quote is replaced
    by one character, so offsets stay the input's.

    Example:
        >>> _requoted("{\u201dname\u201c: \u201dAda\u201c}").text
        '{"name": "Ada"}'
        >>> _requoted('{\u201dq\u201c: "x"}') is None
        True
        >>> _requoted("[\uff02a\uff02, \uff02x\u201d, \u201cy\uff02]") is None
        True
    """
    if '"' in text:
        return None  # straight quotes mixed in: which are structural is a guess
    repairs: dict[str, None] = {}
    if "\u201c" in text or "\u201d" in text:
        repairs["swapped_quotes_replaced"] = None
    if "\uff02" in text:
        repairs["fullwidth_quotes_replaced"] = None
    if len(repairs) != 1:
        # None, or both kinds: which kind is structure and which is text in
        # its strings (U+FF02 as structure, curly quotes in a string) is a guess.
        return None
    found = rewrite(text.translate(_AS_QUOTE), repairs)
    if found is None or found[1] or any(name.endswith("_guessed") for name in repairs):
        return None
    return Repaired(found[0], tuple(repairs), truncated=False, end=found[2])


def _unescape(text: str) -> str:
    r"""Undo one level of string escaping, up to the first bare quote.

    ``\uXXXX`` stays as it is: in the strings it lands in, it means the same
    character, and it cannot split a surrogate pair there. Invalid escapes
    stay too, for the string scanner to fix and name.
    """
    end = match_end(tok.OUTER_BODY, text, 0)
    return tok.OUTER_ESCAPE.sub(lambda m: _OUTER_CHARS[m.group(1)], text[:end])


def repair_inner_quotes(text: str) -> Repaired | None:
    r"""The candidate with every quote that cannot close its string taken as text.

    A quote inside a string value closes it only where the quote rule says
    what follows may follow the string (``,``, ``:``, ``}``, ``]``, the end);
    any other is text: beside a colon (``erDiagram a : "has" b``), after an
    odd number of inner quotes, or doubled before the string's own closing
    quote (``"call it "Owl"", "n": 1``). Keys still end at their first quote,
    and two quotes with only spaces between them stay two tokens.

    This is one reading only where no other reading of the text exists, which
    the caller checks (the single-edit search finds no fix: no quote dropped,
    added or moved, no comma or colon inserted, reads the candidate); the
    pass itself requires that it is the one repair the text needs, that it
    takes at least two quotes for text (one alone, ``"1/2" wrench"``, may as
    well be a stray quote to drop), an even number in each string (``"a "b"
    c "d"``: which quote closes?), and that the text does not end inside
    the value.

    Example:
        >>> repair_inner_quotes('{"t": "call it "Owl"", "n": 1}').text
        '{"t": "call it \\"Owl\\"", "n": 1}'
        >>> repair_inner_quotes('{"t": "a" "b"}') is None
        True
    """
    if not text.startswith(("{", "[")):
        return None
    repairs: dict[str, None] = {}
    found = rewrite(text, repairs, inner_quotes=True)
    if found is None or found[1] or list(repairs) != [_INNER_GUESSED]:
        return None
    out, _, end = found
    if out.count('\\"') - text.count('\\"', 0, end) < _INNER_QUOTES_LEAST:
        return None  # one quote: an inch mark, or a stray quote to drop
    if '\\"' not in text[:end] and any(
        m.group().count('\\"') % 2 for m in tok.JSON_STRING.finditer(out)
    ):
        return None  # an odd count in one string: one of them is no inner quote
    return Repaired(out, ("inner_quotes_escaped",), truncated=False, end=end)
