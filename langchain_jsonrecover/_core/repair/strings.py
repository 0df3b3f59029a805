r"""The repair pass's strings: quoted any way a model writes them, written as JSON.

A string's quote closes it when the quote rule (``_repair_ahead``) says what
follows may follow it; any other quote is text, escaped. Invalid escapes
lose their backslash, unless they show the string's backslashes are all
literal (a regex, a path, LaTeX); raw control characters are escaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import orjson

from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.ahead import Ahead, Where
from langchain_jsonrecover._core.repair.tokens import match_end
from langchain_jsonrecover._core.reply.quotes import typographic_open

if TYPE_CHECKING:
    from langchain_jsonrecover._core.repair.state import Pass

_IN_KEY: Final = Where.KEY  # (a module constant: enum members read slowly)

CUT: Final = -1
"""A string scan's end: the text ended inside the string."""
WRONG: Final = -2
"""A string scan's end: the text ended inside the string after a quote was
guessed inner, or the scan met a quote no reading is safe for; a cut cannot be
told from a guess that ran away, so neither is taken."""

QUOTE_REPAIRS: Final = {
    "'": "single_quotes_replaced",
    "“": "typographic_quotes_replaced",
}
"""The repair named for a string opened by a quote other than ``"``."""

# Invalid escapes that show a string's backslashes are literal (a regex, a
# path, LaTeX), beside letters and digits; others (``\_``, ``\*``, ``\'``, the
# escapes of a markdown-minded model) lose the backslash.
_LITERAL_TRIGGERS: Final = frozenset("()[]{}.")
_CONTROL_ESCAPES: Final = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
# Beside a quote: a colon, or a comma and another quote (within a few spaces).
_NEAR: Final = 16


def write_string(p: Pass, where: Where) -> int:
    r"""Write the string opening at ``p.pos`` as JSON; return where it ends.

    A key (``where`` is :attr:`Where.KEY`) ends at its first closing quote;
    a value's quotes go by the quote rule.

    Returns:
        The offset after the closing quote; or :data:`CUT` when the text
        ends inside the string (what was written is then its prefix, a
        dangling ``\`` or partial ``\u`` escape dropped); or :data:`WRONG`.

    Example:
        >>> from langchain_jsonrecover._core.repair.state import Pass
        >>> p = Pass.start("{'a': 1}", {})
        >>> write_string(p, Where.KEY), p.out
        (4, ['{', '"a"'])
    """
    text, start = p.text, p.pos
    quote = text[start]
    if quote != "“":
        # Most strings: a body with nothing to repair, then a quote that
        # closes it. Any other is scanned again from its start (at most twice).
        body = tok.SQ_BODY if quote == "'" else tok.DQ_BODY
        end = body.match(text, start + 1).end()  # type: ignore[union-attr]
        if text.startswith(quote, end) and (
            where == _IN_KEY or p.value_closes(end + 1, where)
        ):
            p.out.append(f'"{text[start + 1 : end]}"')
            return end + 1
    return _StringScan(p, where).run()


def write_single_quoted_key(p: Pass, pos: int) -> int:
    """Write a single-quoted key with nothing to repair and its colon, from ``pos``.

    What the careful path writes for them (``single_quotes_replaced``),
    taken by one match: the spaces, the key in double quotes, the colon.

    Returns:
        The offset after the colon, or ``pos`` when no such key is there.

    Example:
        >>> from langchain_jsonrecover._core.repair.state import Pass
        >>> p = Pass.start("{'a' :1}", {})
        >>> write_single_quoted_key(p, 1), p.out, p.repairs
        (6, ['{', '"a" :'], {'single_quotes_replaced': None})
    """
    found = tok.take_single_quoted_key(p.text, pos)
    end = found.end()
    if end > pos:
        space, body, colon = found.groups()
        p.out.append(f'{space}"{body}"{colon}')
        p.repairs["single_quotes_replaced"] = None
    return end


def write_comma_and_key(p: Pass, pos: int) -> int:
    """Write a comma and a key :func:`write_single_quoted_key` takes, from ``pos``.

    The comma is its own piece (``p.comma_at``), as the careful path writes it.

    Returns:
        The offset after the key's colon, or ``pos`` when they are not there.

    Example:
        >>> from langchain_jsonrecover._core.repair.state import Pass
        >>> p = Pass.start("{'a':1, 'b':2}", {})
        >>> write_comma_and_key(p, 6), p.out, p.comma_at
        (12, ['{', ',', ' "b":'], 1)
    """
    text, out = p.text, p.out
    comma = match_end(tok.SPACE, text, pos)
    if not text.startswith(",", comma):
        return pos
    found = tok.take_single_quoted_key(text, comma + 1)
    end = found.end()
    if end == comma + 1:
        return pos
    if comma > pos:
        out.append(text[pos:comma])
    p.comma_at = len(out)
    space, body, colon = found.groups()
    out += (",", f'{space}"{body}"{colon}')
    p.repairs["single_quotes_replaced"] = None
    return end


class _StringScan:
    """One string being written: its quote, and what its scan has met so far."""

    __slots__ = (
        "ahead",
        "body",
        "body_start",
        "controls",
        "first_piece",
        "guessed",
        "half",
        "inner",
        "inner_quotes",
        "literal",
        "nested",
        "other_open",
        "out",
        "paired_from",
        "parent",
        "pos",
        "quote",
        "repairs",
        "text",
        "where",
    )

    def __init__(self, p: Pass, where: Where) -> None:
        """Open the string at ``p.pos``: its opening quote is written."""
        self.text, self.out, self.repairs = p.text, p.out, p.repairs
        self.quote = quote = p.text[p.pos]
        self.where = where
        self.ahead: Ahead | None = None
        self.parent, self.other_open = "", False
        if where != _IN_KEY:
            self.ahead = p.ahead
            self.parent, self.other_open = p.parent(), p.other_open(where)
        self.body = tok.SQ_BODY if quote == "'" else tok.DQ_BODY
        self.guessed = False  # a quote was taken for text where it may have closed
        # A ``”`` taken as text right after the ``“`` that opened the string
        # paired with it: that pair is a quotation whose straight opening
        # quote may be lost (``“q” and more"``), so no closer is safe after it.
        self.half = False
        self.inner = 0  # inner quotes escaped so far
        self.inner_quotes = p.inner_quotes  # the quote rule alone decides
        self.paired_from = p.pos + 1  # where the text after the last inner quote starts
        self.literal = False  # every backslash is literal
        # Typographic quotes open inside the string (a ``“`` not yet closed by
        # a ``”``): none closes the string then. In a straight-quoted string,
        # once one is text (a ``“``, or a ``”`` that did not close it), all are.
        self.nested = 0
        self.controls = 0  # raw control characters escaped
        self.out.append('"')
        self.pos = self.body_start = p.pos + 1
        self.first_piece = len(self.out)

    def run(self) -> int:
        """Scan to the string's end: its offset, :data:`CUT` or :data:`WRONG`."""
        text, out, quote = self.text, self.out, self.quote
        n = len(text)
        while True:
            pos = self.pos
            end = match_end(self.body, text, pos)
            if end > pos:
                out.append(text[pos:end])
                self.pos = pos = end
            if pos >= n:
                return self.run_out()
            char = text[pos]
            if char in "“”" and quote != "'":
                ended = self.read_typographic(char)
            elif char == quote:
                ended = self.read_own_quote()
            elif char == '"':  # in a single- or typographic-quoted string
                ended = self.read_straight_quote()
            elif char == "\\":
                ended = self.read_backslash()
            else:
                out.append(_CONTROL_ESCAPES.get(char) or f"\\u{ord(char):04x}")
                self.repairs["control_characters_escaped"] = None
                self.controls += 1
                self.pos += 1
                continue
            if ended is not None:
                return ended

    def run_out(self) -> int:
        """End a string the text ended inside: :data:`CUT`, or :data:`WRONG`.

        :data:`WRONG` when a quote was guessed in it, or when its raw body
        holds the JSON's own closing line (a closing quote is missing: the
        reply did not stop there).
        """
        if self.guessed or (
            self.controls
            and tok.END_IN_STRING.search(self.text, self.body_start) is not None
        ):
            return WRONG
        return CUT

    def closes(self) -> bool:
        """Whether the typographic pair's quote just before ``pos`` closes the string.

        A key's when a colon follows; a value's by the quote rule.
        """
        if self.ahead is None:
            return match_end(tok.COLON_NEXT, self.text, self.pos) > self.pos
        return self.ahead.closes(self.pos, self.where, self.parent, self.other_open)

    def read_typographic(self, char: str) -> int | None:
        """Read a ``“`` or ``”`` in a string not opened by ``'``.

        In a key, either form closes it before a colon; in a key ``“`` opened,
        one that does not is refused: a quote is never made part of a key (in
        a key ``"`` opened it is text, ``"the “best” one"``). In a value opened by
        ``“``, either form closes it where the quote rule says it ends (a
        model that writes ``“`` at both ends).
        """
        self.pos += 1
        if self.where == _IN_KEY and (self.quote == "“" or self.closes()):
            if not self.closes():
                return WRONG
            self.out.append('"')
            self.repairs["typographic_quotes_replaced"] = None
            return self.pos
        if self.nested == 0 and (
            (self.quote == "“" and tok.TYPOGRAPHIC_NEXT.match(self.text, self.pos))
            or ((char == "”" or self.quote == "“") and self.closes())
        ):
            if self.half:
                return WRONG
            self.out.append('"')
            self.repairs["typographic_quotes_replaced"] = None
            return self.pos
        # A ``”`` taken as text (either form, in a string ``“`` opened) may
        # have been the closer: a cut after it cannot be told from a guess.
        self.guessed = self.guessed or char == "”" or self.quote == "“"
        self.half = self.half or (
            self.quote == "“" and char == "”" and self.nested == 0
        )
        if self.quote == '"':
            self.nested = 1
        else:
            self.nested = self.nested + 1 if char == "“" else max(self.nested - 1, 0)
        self.out.append(char)
        return None

    def read_own_quote(self) -> int | None:
        """Read a quote like the one that opened the string: its end, or text."""
        self.pos += 1
        pos, quote, ahead = self.pos, self.quote, self.ahead
        # Inner quotes come in pairs (``"He said "hi" to me"``): a quote
        # after an odd number of them is one more inner quote, whatever
        # follows it, so a stray quote is never taken for a pair.
        if ahead is None or (
            (quote == "'" or self.inner % 2 == 0 or self.inner_quotes)
            and ahead.closes(pos, self.where, self.parent, self.other_open)
        ):
            if self.controls and _ends_with_break(
                self.text, self.body_start, pos - 1, self.controls
            ):
                return WRONG  # ``"x.org/p\n"}``: a quote swapped with a break
            self.out.append('"')
            return pos
        if quote == '"' and _stands_beside_structure(
            self.text, pos - 1, inner_quotes=self.inner_quotes
        ):
            return WRONG  # ``"a, "b": "c"``: a lost quote, not an inner one
        if _pair_across_space(self.text, pos, quote):
            return WRONG  # ``"Grace" "Hopper"``: two tokens, never one string
        if self.text[pos - 2 : pos - 1] == "\\":
            return WRONG  # ``\\"``: a doubled escape, or a backslash then a quote
        self.out.append('\\"' if quote == '"' else "'")
        self.repairs["inner_quote_escaped_guessed"] = None
        self.guessed = True
        # ``„Start"``, ``“Go"``: a typographic opener left open since the last
        # inner quote takes this one as its closer, a whole pair.
        paired = quote == '"' and typographic_open(self.text, self.paired_from, pos - 1)
        self.inner += 2 if paired else 1
        self.paired_from = pos
        return None

    def read_straight_quote(self) -> int | None:
        """Read a ``"`` in a single- or typographic-quoted string."""
        self.pos += 1
        if self.quote == "“" and self.closes():
            if self.guessed:
                return WRONG  # typographic quotes taken as text before it
            self.out.append('"')
            return self.pos
        if self.where == _IN_KEY and self.quote == "“":
            return WRONG  # a quote is never made part of a key
        self.out.append('\\"')
        return None

    def read_backslash(self) -> int | None:
        """Read an escape: kept, its backslash dropped, or all backslashes literal."""
        text, pos = self.text, self.pos
        nxt = text[pos + 1 : pos + 2]
        if not nxt or (nxt == "u" and match_end(tok.HEX, text, pos + 2) >= len(text)):
            return self.run_out()
        if nxt == "'" and self.quote == "'":
            self.out.append("'")
            self.pos += 2
        elif self.literal:
            if nxt in "nrt" and pos + 2 >= len(text):
                return self.run_out()  # ``\n`` of ``\new`` or a line break?
            found = tok.KEPT_ESCAPE.match(text, pos, pos + 6)
            escape = found.end() if found else pos
            self.out.append(text[pos:escape] if escape > pos else "\\\\")
            self.pos = escape if escape > pos else pos + 1
        elif nxt == "'" and "'" in (text[pos - 1 : pos], text[pos + 2 : pos + 3]):
            # ``r'\'x'``, ``'\''``: code whose backslash is meant, beside a
            # quote of its own; an escaped apostrophe (``isn\'t``) has none.
            return WRONG
        elif not ((nxt.isascii() and nxt.isalnum()) or nxt in _LITERAL_TRIGGERS):
            # Keep the character, drop the backslash.
            self.repairs["invalid_escape_fixed"] = None
            self.pos += 1
        else:
            # A regex, a path, LaTeX: every backslash of the string is
            # literal. Written again from its start, at most once.
            del self.out[self.first_piece :]
            self.pos, self.literal, self.inner, self.guessed = (
                self.body_start,
                True,
                0,
                False,
            )
            self.paired_from = self.body_start
            self.body = (
                tok.SQ_LITERAL_BODY if self.quote == "'" else tok.DQ_LITERAL_BODY
            )
            self.repairs["literal_backslashes_guessed"] = None
        return None


def _ends_with_break(text: str, start: int, quote: int, controls: int) -> bool:
    """Whether a string's only raw control characters end it as a line break.

    The strict decoder's rule (``_decode``): before the closing quote at
    ``quote``, or after the opening one (the string's text starts at
    ``start``), a break is more likely a quote swapped with it than data.
    """
    if text[quote - 1 : quote] == "\n":  # before the closing quote
        return controls == 1 or (controls == 2 and text[quote - 2 : quote - 1] == "\r")
    if text[start : start + 1] == "\n":  # right after the opening quote
        return controls == 1
    return controls == 2 and text[start : start + 2] == "\r\n"


def _pair_across_space(text: str, after: int, quote: str) -> bool:
    """Whether only some whitespace parts the quote before ``after`` and another.

    The other of its kind: two strings (``"Grace" "Hopper"``), with a comma or
    more lost, never one string with inner quotes.
    """
    end = match_end(tok.SPACE, text, after)
    return end > after and text[end : end + 1] == quote


def _stands_beside_structure(text: str, quote: int, *, inner_quotes: bool) -> bool:
    """Whether a quote taken for an inner one stands beside JSON's own structure.

    After it: a colon, another quote, a comma and then a quote, a comma,
    an elided ``...`` or a line break; before it: a colon, an opening
    bracket, a comma right against it, or a comma after a quote
    (``"a, "b": "c"``, ``"x", "y``, ``"a""b"``, ``{ "``, ``t,"b``): the
    quote opens or closes a key or a value, and some other quote is missing
    or stray, so no reading is safe.

    With ``inner_quotes`` (the caller checks that no other reading exists), a
    quote doubled (``"Owl""``) or after a colon (``a : "has"``) is text.
    """
    after = tok.STRUCTURE_AFTER.match(text, quote + 1, quote + 2 * _NEAR + 2)
    if after is not None and not (inner_quotes and after.group() == '"'):
        return True
    if quote and text[quote - 1] == ",":
        return True
    i = quote - 1
    floor = max(0, quote - _NEAR)
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    if i < floor:
        return False
    if text[i] in "{[" or (text[i] == ":" and not inner_quotes):
        return True
    if text[i] not in ",;":
        return False
    i -= 1
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    return i >= floor and text[i] == '"'


def write_triple_quoted(p: Pass, where: Where) -> int:
    r"""Write a Python triple-quoted string at ``p.pos`` as JSON; return its end.

    Its text is kept as written (line breaks escaped); ``-1`` when it does not
    close, holds a backslash (an escape's meaning would be a guess), or its
    closing quotes are not followed by what may follow a value.

    Example:
        >>> from langchain_jsonrecover._core.repair.state import Pass
        >>> p = Pass.start("['''a\nb''']", {})
        >>> write_triple_quoted(p, Where.ARRAY), p.out
        (10, ['[', '"a\\nb"'])
    """
    text, pos = p.text, p.pos
    delimiter = text[pos : pos + 3]
    close = text.find(delimiter, pos + 3)
    if close < 0 or "\\" in text[pos + 3 : close]:
        return -1
    end = close + 3
    if not p.value_closes(end, where):
        return -1
    written = json_string(text[pos + 3 : close])
    if written is None:
        return -1
    p.out.append(written)
    return end


def json_string(text: str) -> str | None:
    r"""``text`` as one JSON string; ``None`` with half a character (no UTF-8).

    Example:
        >>> json_string("café"), json_string("half \ud800")
        ('"café"', None)
    """
    try:
        return orjson.dumps(text).decode()
    except TypeError:
        return None


def write_escaped_string(p: Pass, where: Where) -> int:
    r"""Write a string quoted ``\"…\"`` at ``p.pos`` as JSON; return its end.

    A key or value escaped once too often among plain JSON
    (``{"query": \"rain\"}``); ``-1`` unless it holds no quote or backslash
    and is followed by what may follow it (a colon after a key).

    Example:
        >>> from langchain_jsonrecover._core.repair.state import Pass
        >>> p = Pass.start(r'{\"q\": 1}', {})
        >>> write_escaped_string(p, Where.KEY), p.out
        (6, ['{', '"q"'])
    """
    text = p.text
    found = tok.ESCAPED_STRING.match(text, p.pos)
    if found is None:
        return -1
    end = found.end()
    if where == _IN_KEY:
        if match_end(tok.COLON_NEXT, text, end) == end:
            return -1
    elif not p.value_closes(end, where):
        return -1
    p.out.append(f'"{found.group(1)}"')
    return end
