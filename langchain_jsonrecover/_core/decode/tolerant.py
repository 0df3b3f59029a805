"""Decode one candidate text: orjson first, then the deviations we tolerate.

Pure functions on ``str``; no LangChain imports.

The decoder is also our span finder: orjson stops at the first character it
cannot use and says where. "Unexpected content after document" marks where a
value ends; "unexpected end of data" means the text was cut off.
"""

from __future__ import annotations

import bisect
import contextlib
import re
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

import orjson

from langchain_jsonrecover._core.decode.skip import skip_string

DecodeFailureKind = Literal["invalid_json", "truncated", "too_deep"]

TRAILING: Final = "unexpected content after document"
"""orjson's message (its start) for text after a whole value."""
END_OF_DATA: Final = "unexpected end of data"
"""orjson's message (its start) for a text cut off inside its value."""
_CONTROL: Final = "unexpected control character in string"
_DEPTH: Final = "depth limit exceeded"
_SURROGATES: Final = "str is not valid UTF-8"
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
# orjson gives up on memory before depth on some unclosed runs of openers.
_ALLOCATION: Final = "failed to allocate memory"
DECODER_DEPTH: Final = 1024
"""The deepest nesting orjson reads; deeper text never decodes here."""
_PARSER_DEPTH: Final = 200  # pydantic-core's recursion limit

# Plain-language versions of orjson's messages (kept short: they reach models).
_MESSAGES: Final = {
    "trailing comma is not allowed": "trailing comma",
    "unexpected character, expected ':' after key": "expected ':' after a key",
    "number is infinity when parsed as double": "number out of range",
}
_EXPECTED: Final = "unexpected character, expected "

_PEEL_ROUNDS: Final = 24
_QUICK_ROUNDS: Final = (_PEEL_ROUNDS - 2) // 2  # 2 levels a round, within them
_LONG_DIGITS: Final = 19  # a negative 19-digit integer can pass int64 (orjson: a float)
_LONG_RUN: Final = b"0" * _LONG_DIGITS
_DIGITS_AS_ZERO: Final = bytes(48 if 48 <= b <= 57 else b for b in range(256))
_NOISE: Final = bytes(
    b for b in range(256) if not (48 <= b <= 57) and b not in b"[]{},:"
)
_BRACKETS_ONLY: Final = bytes(b for b in range(256) if b not in b"[]{}")
_CONTROL_CHAR: Final = re.compile(r"[\x00-\x1f]")
# From a quote: text outside strings and whole strings without a raw control
# character (after a backslash too), up to a string that holds one or is not
# closed (its opening quote) or the end. Always matches; never backtracks.
_CLEAN_RUN: Final = re.compile(
    r'(?:[^"]++|"(?:[^"\\\x00-\x1f]++|\\[^\x00-\x1f])*+")*+', re.DOTALL
)
_ESCAPED: Final = ("control_characters_escaped",)
_DANGLING: Final = "a line break right before a closing quote (a misplaced quote?)"
_DANGLING_START: Final = (
    "a line break right after an opening quote (a misplaced quote?)"
)
_LEADING_BREAK: Final = re.compile(r"\r?\n")
_SHORT_ESCAPES: Final = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


class Decoded(NamedTuple):
    """A value decoded from a candidate text.

    A named tuple, not a frozen dataclass: one is built per candidate that
    decodes, at a third of the cost (a tenth of orjson's on 300 bytes).
    """

    value: Any
    """The decoded value."""
    end: int
    """Offset in the candidate text just after the value."""
    repairs: tuple[str, ...] = ()
    """What had to be tolerated (``"control_characters_escaped"``)."""


@dataclass(frozen=True, slots=True)
class Stopped:
    """Where orjson stopped in a text that does not decode, and its message.

    The first strict read of a reply keeps it, so that the readers after it
    (the strict gate, the repair of a lone trailing comma, the repair of the
    one broken container) need not decode the same text again to learn it.

    Example:
        >>> Stopped(12, "trailing comma is not allowed").pos
        12
    """

    pos: int
    """Offset in the text where orjson stopped."""
    msg: str
    """orjson's message, as it gave it."""

    def of_rest(self, text: str, start: int, end: int) -> Stopped | None:
        """This stop (in all of ``text``) as orjson's on ``text[start:end]``.

        Known only when the slice is the rest of the text and only JSON
        whitespace comes before it: orjson skips that whitespace and meets
        the same characters, so it stops at the same one with the same
        message; else ``None`` (the slice must be decoded).

        Example:
            >>> Stopped(9, "trailing comma is not allowed").of_rest(' {"a": 1,}', 1, 10)
            Stopped(pos=8, msg='trailing comma is not allowed')
        """
        if end != len(text) or self.pos < start or text[:start].strip(" \t\r\n"):
            return None
        return Stopped(self.pos - start, self.msg) if start else self


@dataclass(frozen=True, slots=True)
class DecodeFailure:
    """Why a candidate text does not decode."""

    kind: DecodeFailureKind
    """``invalid_json``, ``truncated`` (ends before the value) or ``too_deep``."""
    pos: int
    """Offset in the candidate text where the decoder stopped."""
    message: str
    """The decoder's reason, in plain words."""


def decode(
    text: str, *, max_depth: int, allow_trailing: bool, stop: Stopped | None = None
) -> Decoded | DecodeFailure:
    """Decode the JSON value at the start of ``text``.

    Args:
        text: The candidate text; leading and trailing whitespace is fine.
        max_depth: Deepest nesting accepted; deeper is a ``too_deep`` failure.
        allow_trailing: Whether text after a complete value is ignored (it is
            for a span cut from prose) or a failure (for a regex capture).
        stop: Where orjson stops in ``text``, when an earlier read learnt it:
            the text is not decoded again to learn it (one failing call).

    Returns:
        The value, or why it failed.

    Example:
        >>> decode('{"a": 1} and more', max_depth=200, allow_trailing=True).value
        {'a': 1}
    """
    escaped: Escaped | None = None
    candidate = text
    while True:
        if stop is None:
            try:
                value, shallow = loads_within(candidate, max_depth)
            except orjson.JSONDecodeError as exc:
                stop = Stopped(exc.pos, exc.msg)
            else:
                if not shallow:
                    return _relocate(too_deep(0, max_depth), escaped)
                repairs = _ESCAPED if escaped is not None else ()
                decoded = Decoded(value, _value_end(candidate), repairs)
                return _relocate(decoded, escaped)
        msg, pos, stop = stop.msg, stop.pos, None
        if msg.startswith(_CONTROL) and escaped is None:
            escaped = escape_control_characters(candidate)
            if escaped.dangling >= 0:
                at = escaped.dangling
                end = candidate[at : at + 2] in {'\n"', '\r"'}
                why = _DANGLING if end else _DANGLING_START
                return DecodeFailure("invalid_json", at, why)
            candidate = escaped.text
            continue
        if msg.startswith(TRAILING) and allow_trailing:
            inner = decode(candidate[:pos], max_depth=max_depth, allow_trailing=False)
            if escaped is not None and isinstance(inner, Decoded):
                inner = Decoded(inner.value, inner.end, _ESCAPED)
            return _relocate(inner, escaped)
        return _relocate(_failure(candidate, msg, pos, max_depth), escaped)


def stop_in(text: str) -> Stopped | None:
    """Where orjson stops in ``text``; ``None`` when the text decodes.

    Example:
        >>> stop_in('{"a": 1,}')
        Stopped(pos=7, msg='trailing comma is not allowed')
    """
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return Stopped(exc.pos, exc.msg)
    return None


def loads_within(text: str, max_depth: int) -> tuple[Any, bool]:
    """Strict JSON with orjson, big integers kept exact, and the depth checked.

    orjson is the fastest to decode and, above all, to fail (it stops at the
    first error and says where), but it turns integers beyond 64 bits into
    floats. One pass in C over the text's UTF-8 form (cached by orjson) keeps
    its digits (as ``0``), brackets, commas and colons: a run of 20 digits
    there sends the text to pydantic-core, which keeps big integers exact, and
    the brackets are the skeleton the depth check peels.

    Args:
        text: The JSON text.
        max_depth: The deepest nesting accepted.

    Returns:
        The value, and whether it nests at most ``max_depth`` deep.

    Raises:
        orjson.JSONDecodeError: The text is not one JSON value.

    Example:
        >>> loads_within("[18446744073709551616, [1.5]]", 1)
        ([18446744073709551616, [1.5]], False)
    """
    value = orjson.loads(text)
    if len(text) < _LONG_DIGITS and len(text) <= max_depth:
        return value, True
    profile = text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZERO, _NOISE)
    if _LONG_RUN in profile:
        with contextlib.suppress(ValueError):
            import pydantic_core  # noqa: PLC0415 - loaded when first needed (start-up)

            value = pydantic_core.from_json(text, allow_inf_nan=False)
    if len(text) <= max_depth:
        return value, True
    return value, _peel(profile.translate(None, b"0,:"), value, max_depth)


def too_deep(pos: int, max_depth: int, limit: int | None = None) -> DecodeFailure:
    """A ``too_deep`` failure in our words, never a decoder's.

    ``limit`` is how deep the decoder that stopped reads: past it, the text
    nests deeper than ``max_depth`` when that is lower, else deeper than the
    decoder can read.

    Example:
        >>> too_deep(3, 200, 1024).message
        'nested deeper than max_depth (200)'
    """
    if limit is not None and limit < max_depth:
        return DecodeFailure(
            "too_deep", pos, f"nested deeper than {limit} levels, the most we read"
        )
    return DecodeFailure("too_deep", pos, f"nested deeper than max_depth ({max_depth})")


def _failure(text: str, msg: str, pos: int, max_depth: int) -> DecodeFailure:
    if msg.startswith(_SURROGATES):
        return _surrogate_failure(text)
    if msg.startswith(_DEPTH):
        return too_deep(pos, max_depth, DECODER_DEPTH)
    if msg.startswith(_ALLOCATION):
        return _allocation_failure(text, pos, max_depth)
    if msg.startswith(END_OF_DATA) or pos >= len(text.rstrip()):
        return DecodeFailure("truncated", pos, "the text ends before the JSON does")
    reason = _MESSAGES.get(msg, msg)
    if reason.startswith(_EXPECTED):
        reason = "expected " + reason.removeprefix(_EXPECTED)
    return DecodeFailure("invalid_json", pos, reason)


def _allocation_failure(text: str, pos: int, max_depth: int) -> DecodeFailure:
    """Read with pydantic-core a text orjson ran out of memory on (deep openers)."""
    try:
        import pydantic_core  # noqa: PLC0415 - loaded when first needed (start-up)

        pydantic_core.from_json(text, allow_inf_nan=False)
    except ValueError as exc:
        message = str(exc)
        if "recursion limit" in message:
            return too_deep(pos, max_depth, _PARSER_DEPTH)
        if message.startswith("EOF"):
            return DecodeFailure(
                "truncated", len(text), "the text ends before the JSON does"
            )
    return DecodeFailure("invalid_json", pos, "not valid JSON")


def _surrogate_failure(text: str) -> DecodeFailure:
    """Why a text with a lone surrogate fails.

    At the very end it is half of a character the token limit cut (a cut);
    anywhere else, an error at its position.
    """
    found = _SURROGATE.search(text)
    if found is None:
        return DecodeFailure("invalid_json", 0, "text that is not valid Unicode")
    if found.end() == len(text.rstrip()) and found.group() <= "\udbff":
        return DecodeFailure(
            "truncated", found.start(), "the text ends before the JSON does"
        )
    return DecodeFailure(
        "invalid_json", found.start(), "a lone surrogate (half of a character)"
    )


def _value_end(text: str) -> int:
    end = len(text)
    while end and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def within_depth(text: str, value: Any, max_depth: int) -> bool:
    """Whether a decoded value nests at most ``max_depth`` containers deep.

    Cheap proofs first: a short text, or one with few brackets, cannot nest
    deeply. Otherwise the bracket skeleton of the text (taken in C from its
    UTF-8 form, which the decoder has just cached) is peeled one level per
    round. Only a text whose skeleton does not peel cleanly (brackets inside
    strings) has its value walked in Python.

    Args:
        text: The text the value was decoded from.
        value: The decoded value.
        max_depth: The deepest nesting accepted.

    Returns:
        ``True`` when the value is shallow enough.

    Example:
        >>> within_depth("[[1]]", [[1]], 1)
        False
    """
    if len(text) <= max_depth:
        return True  # too few characters for more openers than that
    skeleton = text.encode("utf-8", "surrogatepass").translate(None, _BRACKETS_ONLY)
    return _peel(skeleton, value, max_depth)


def _peel(skeleton: bytes, value: Any, max_depth: int) -> bool:
    """Peel a bracket skeleton one level per round; walk the value if stuck."""
    if len(skeleton) <= max_depth:
        return True
    # Quick rounds first: each drops the adjacent pairs of one kind, then of
    # the other (two levels at most, so a skeleton gone in r rounds is at
    # most 2r deep). Bounded so that an answer here is the answer of the
    # exact rounds below; a skeleton they leave goes to the exact rounds whole.
    quick = skeleton
    for _ in range(min(max_depth // 2, _QUICK_ROUNDS)):
        quick = quick.replace(b"{}", b"").replace(b"[]", b"")
        if not quick:
            return True
    # A few rounds settle real replies; past that, one walk is cheaper than
    # a round per level.
    for _ in range(min(max_depth + 1, _PEEL_ROUNDS)):
        if not skeleton:
            return True
        # One level per round: a pair first becomes a mark, so that ``[{}]``
        # loses ``{}`` this round and ``[]`` only the next.
        peeled = skeleton.replace(b"{}", b"x").replace(b"[]", b"x").replace(b"x", b"")
        if len(peeled) == len(skeleton):
            break
        skeleton = peeled
    return _walk_depth(value, max_depth)


def _walk_depth(value: Any, max_depth: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if type(node) is dict:
            children: Any = node.values()
        elif type(node) is list:
            children = node
        else:
            continue
        if depth + 1 > max_depth:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


@dataclass(frozen=True, slots=True)
class Escaped:
    """A text with raw control characters escaped inside its strings."""

    text: str
    # Offsets in ``text`` where an escape was inserted, and the characters
    # added up to and including each (to map positions back).
    at: list[int]
    added: list[int]
    # Offset (in the input) of a string whose only raw control character is
    # a line break right before its closing quote, or -1.
    dangling: int = -1

    def original(self, pos: int) -> int:
        i = bisect.bisect_right(self.at, pos)
        return pos - (self.added[i - 1] if i else 0)


def escape_control_characters(text: str) -> Escaped:
    """Escape raw control characters inside strings (one linear pass).

    Models often put a literal newline in a string value; langchain-core
    accepts it (``strict=False``), and so do we, as a listed repair.
    """
    parts: list[str] = []
    at: list[int] = []
    added: list[int] = []
    total = 0
    last = 0
    out_len = 0
    dangling = -1
    pos = text.find('"')
    while pos >= 0:
        # Strings with nothing to escape, and the text between them, in C.
        clean = _CLEAN_RUN.match(text, pos)
        pos = pos if clean is None else clean.end()
        if pos == len(text):
            break
        closed_at = skip_string(text, pos)
        end = len(text) if closed_at is None else closed_at
        if dangling < 0 and closed_at is not None and _dangling_break(text, pos, end):
            dangling = end - 2 if text[end - 2] in "\r\n" else pos + 1
        for ctl in _CONTROL_CHAR.finditer(text, pos + 1, end):
            i = ctl.start()
            chunk = text[last:i]
            parts.append(chunk)
            out_len += len(chunk)
            char = ctl.group()
            escape = _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04x}"
            parts.append(escape)
            out_len += len(escape)
            total += len(escape) - 1
            at.append(out_len - 1)
            added.append(total)
            last = i + 1
        if closed_at is None:
            break
        pos = text.find('"', end)
    parts.append(text[last:])
    return Escaped("".join(parts), at, added, dangling)


def _dangling_break(text: str, start: int, end: int) -> bool:
    r"""Whether a string's only raw control character is a line break at an end.

    ``"https://x.org/p\n"}`` with a raw newline: more likely a quote that
    swapped places with the line break after it than a value that ends with
    one; so is ``{"a": 1,\n"\nb": 2}`` a stray quote before a line break
    rather than a key that starts with one. Neither reading is taken.
    """
    body_start, body_end = start + 1, end - 1
    cut = body_end
    if text[cut - 1 : cut] == "\n":
        cut -= 1
        if text[cut - 1 : cut] == "\r":
            cut -= 1
    lead = _LEADING_BREAK.match(text, body_start, body_end)
    first = body_start if lead is None else lead.end()
    at_start, at_end = first > body_start, cut < body_end
    if at_start == at_end and first <= cut:
        return False  # no break at an end, or one at each: a text framed so
    return _CONTROL_CHAR.search(text, first if not at_end else body_start, cut) is None


def _relocate(
    result: Decoded | DecodeFailure, escaped: Escaped | None
) -> Decoded | DecodeFailure:
    """Map offsets in an escaped text back to the text we were given."""
    if escaped is None or not escaped.at:
        return result
    if isinstance(result, Decoded):
        return Decoded(result.value, escaped.original(result.end), result.repairs)
    return DecodeFailure(result.kind, escaped.original(result.pos), result.message)
