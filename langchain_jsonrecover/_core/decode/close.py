r"""Close JSON that the token limit cut off.

Pure functions on ``str``; no LangChain imports.

The closing itself is pydantic-core's partial JSON parser
(``from_json(text, allow_partial="trailing-strings")``, a well-kept Rust
parser): an unfinished string keeps its prefix, an unfinished key or a key
without a value is dropped, an unfinished literal (``tr``, ``nul``) is
dropped, open containers are closed. Before it, a scalar at the cut is
dropped: a number (``10`` of ``[101, 102, 10``, ``2.5e1``) may have lost
digits, so it is never kept. The key of a member whose value the cut removed
is reported (``Closed.cut_key``): under a schema a default must not stand for
it. A text that ends right after a closer is refused unless the caller knows
the model stopped at its token limit: a lost closer before it reads so too.

Around it: raw control characters are escaped first (as the strict decoder
tolerates them); Normandy's opt-in rule trims a runaway of ``\n`` escapes
from a string cut at depth 1; and a cut the parser cannot close (inside a
``\u`` escape, say) falls back to the longest prefix that closes, found from
the parser's own error position, never by trying every prefix.
"""

from __future__ import annotations

import re
from typing import Any, Final, NamedTuple

from langchain_jsonrecover._core.decode.cut_scan import CutState, cut_state, read_tail
from langchain_jsonrecover._core.decode.skip import (
    skeleton_outside_strings,
    skip_string,
)
from langchain_jsonrecover._core.decode.tolerant import (
    DecodeFailure,
    escape_control_characters,
    too_deep,
    within_depth,
)

# A whole string, its loop unrolled (ten times faster in ``re`` than an
# alternation per character); and the longest prefix made of text outside
# strings and whole strings: it ends at the quote of a string the text ends
# in, or at the text's end. Possessive throughout, so one match in C, linear.
_STRING_BODY: Final = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_STRING: Final = re.compile(_STRING_BODY, re.DOTALL)
_CLOSED_STRINGS: Final = re.compile(f'[^"]*+(?:{_STRING_BODY}[^"]*+)*+', re.DOTALL)
_OPENERS_OR_QUOTE: Final = re.compile(r'[\[{"]')
# In a string the text ends in: a raw line break beside a closing bracket,
# the JSON's own end written inside a string whose closing quote is missing.
END_IN_STRING: Final = re.compile(r"[\]}][ \t]*\r?\n|\n[ \t]*[\]}]")
# In a string a cut text ends in: closers, then words on the same line. A
# run of closers (group 1) is tried from the spaces before its first closer
# only, not from each closer of the run: each try would read the rest of it.
_CLOSERS_THEN_WORDS: Final = re.compile(
    r"(?<![\]} \t])[ \t]*+([\]}](?:[ \t]*+[\]}])*+)[.,;:!?]?+[ \t]++[^\s\]}]"
)
# The same, closers that end the text.
_CLOSERS_AT_END: Final = re.compile(
    r"(?<![\]} \t])[ \t]*+([\]}](?:[ \t]*+[\]}])*+)[ \t\r\n]*+\Z"
)
_OPENERS: Final = re.compile(r"[\[{]")
_SPACE: Final = re.compile(r"[ \t]+")
_POSITION: Final = re.compile(r"at line (\d+) column (\d+)")
_STRUCTURAL: Final = re.compile(r'[\[\]{}":,]')
_RECURSION: Final = "recursion limit"
_MISSING_QUOTE: Final = (
    "a string runs to the end of the reply over a line that closes the JSON "
    "(a missing closing quote?)"
)
_CONTROL: Final = "control character"
_PARSER_DEPTH: Final = 200
_RETRIES: Final = 3
_NUMBER_CHARS: Final = frozenset("-+.0123456789eE")
_NUMBER_STARTS: Final = frozenset("-0123456789")
# A scalar the cut may have stopped inside: a JSON number's prefix, or a literal's.
_CUT_SCALAR: Final = re.compile(
    r"-|-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]*)?"
    r"|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?"
)
_LITERALS: Final = frozenset({"true", "false", "null"})
_LITERAL_ENDS: Final = tuple(_LITERALS)
_SWALLOWED: Final = re.compile(r'\\"[ \t\r\n]*[:,]')
AFTER_CLOSER: Final = (
    "the reply ends right after a closer: cut there, or a closer lost before "
    "it (two readings; the model did not say it stopped at its token limit)"
)
_ESCAPED_QUOTE_CLOSERS: Final = re.compile(r'\\"[ \t\r\n]*+[\]}][\]} \t\r\n]*+\Z')
"""An escaped quote, then closers to the end (``{"p": "x\\"}``)."""
ESCAPED_END: Final = (
    "the reply ends with an escaped quote and then closers: a backslash "
    "before the string's closing quote, or a cut inside the string (two "
    "readings; the model did not say it stopped at its token limit)"
)
AT_A_CLOSER: Final = frozenset({AFTER_CLOSER, ESCAPED_END})
"""The reasons :func:`close_truncated` gives for a text that ends at a closer
without a token-limit stop: a cut there, or a slip before it."""


class Closed(NamedTuple):
    """A truncated text, closed (a named tuple: a third of a dataclass's cost)."""

    value: Any
    repairs: tuple[str, ...]
    cut_key: str | None = None
    """The path (``steps[1].id``; the last key as written, perhaps partial) of
    a member whose value the cut removed; ``None`` when no member lost one."""


def _cut_path(text: str, state: CutState) -> str:
    """The removed member's path as errors write it: ``steps[1].id``."""
    parts: list[str] = []
    for opener, member in state.outer:
        if opener == "[":
            parts.append(f"[{member}]")
        else:
            parts.append(("." if parts else "") + _key_text(text, member))
    key = _key_text(text, state.key_start) if state.key_start is not None else ""
    return "".join(parts) + ("." if parts else "") + key


def _closes_then_words(
    text: str,
    string_start: int,
    depth: int,
    closers: re.Pattern[str] = _CLOSERS_THEN_WORDS,
) -> bool:
    r"""Whether the string a cut text ends in closes the JSON, then goes on in words.

    ``{"path": "/tmp} Please confirm.``: a run of closers that no opener in
    the string matches, as many as the containers open around the string,
    then words on the same line, or (``closers=_CLOSERS_AT_END``) the text's
    end; ``close_truncated`` asks the latter only of a string that runs over
    a line break (``[1,\n"2,\n3]``: a stray quote took the rest into one
    string; ``{"key": "value}`` is a cut, a closer in the string its text). A
    closing quote lost before the ``}``, or a stray one before the string,
    reads as well as a cut; without a token-limit stop the cut reading is not
    taken.

    Example:
        >>> _closes_then_words('{"p": "/tmp} Please confirm.', 6, 1)
        True
        >>> _closes_then_words('{"p": "Use {name} here', 6, 1)
        False
        >>> _closes_then_words('[1, "2, 3]', 4, 1, _CLOSERS_AT_END)
        True
    """
    openers = 0
    pos = string_start + 1
    for found in closers.finditer(text, pos):
        openers += len(_OPENERS.findall(text, pos, found.start()))
        pos = found.start()
        if openers == 0 and len(_SPACE.sub("", found.group(1))) == depth:
            return True
    return False


def swallows_structure(text: str) -> bool:
    r"""Whether a cut text ends in a string that holds ``\":`` or ``\",``.

    In a repaired text that is a quote the repair escaped or guessed, that
    took the members after it into one string running to the cut
    (``{"id": 7, 'name": "Ada", "ci``): a slip, not a cut.

    Example:
        >>> swallows_structure('{"id": 7, "name\\": \\"Ada')
        True
        >>> swallows_structure('{"a": "x')
        False
    """
    start = cut_state(text, path=False).string_start
    return start is not None and _SWALLOWED.search(text, start) is not None


def _key_text(text: str, start: int) -> str:
    end = skip_string(text, start)
    raw = text[start + 1 : (end - 1) if end is not None else len(text)]
    if raw.isascii() and "\\" not in raw:
        # What the decoder gives (a control character fails it: ``raw`` too),
        # without a call per key of the path.
        return raw
    try:
        import pydantic_core  # noqa: PLC0415 - loaded when first needed (start-up)

        return str(pydantic_core.from_json(f'"{raw}"'))
    except ValueError:
        return raw


def close_truncated(
    text: str,
    *,
    max_depth: int,
    trim_runaway_newlines: bool = False,
    final_only: bool = False,
    after_closer: bool = True,
    key_path: bool = True,
) -> Closed | DecodeFailure:
    r"""Close a JSON text that stops before its value does.

    Args:
        text: The candidate text, from its opening bracket to the cut.
        max_depth: Deeper nesting is a failure.
        trim_runaway_newlines: Normandy's rule: a string cut at depth 1 ends
            after its last character that is not part of a ``\n``/``\r``
            escape run.
        final_only: For a stream still arriving: it may end right after a
            closer (a number at the cut is dropped in every case).
        after_closer: Close a text that ends right after a closer (the model
            said it stopped at its token limit, or a stream still arriving);
            else that is a failure: a closer lost before it reads so too.
        key_path: Report the path of a member whose value the cut removed
            (``Closed.cut_key``: a schema reads it); else it is ``None``.

    Returns:
        The closed value and the repairs made, or why it cannot be closed.

    Example:
        >>> close_truncated('{"items": [{"a": 1}, {"b"', max_depth=200).value
        {'items': [{'a': 1}, {}]}
        >>> close_truncated('{"page": "Hi\\n\\n\\n', max_depth=200,
        ...                 trim_runaway_newlines=True).value
        {'page': 'Hi'}
    """
    repairs: list[str] = []
    if text and "\ud800" <= text[-1] <= "\udbff":
        text = text[:-1]  # half of a character the cut split
    stripped = text.rstrip(" \t\r\n")
    ends = _Ends(text, stripped)
    last_quote = text.rfind('"')
    if last_quote >= 0 and END_IN_STRING.search(text, last_quote):
        # Rare: only then is the whole text read to see if it ends in a string.
        string_start = ends.of(text)[1]
        if string_start is not None and END_IN_STRING.search(text, string_start):
            return DecodeFailure("invalid_json", string_start, _MISSING_QUOTE)
    if (
        not after_closer
        and last_quote >= 0
        and _CLOSERS_THEN_WORDS.search(text, last_quote)
    ):
        depth, string_start = ends.of(text)
        if string_start is not None and _closes_then_words(text, string_start, depth):
            return DecodeFailure("invalid_json", string_start, _MISSING_QUOTE)
    if trim_runaway_newlines:
        depth, string_start = ends.of(text)
        if string_start is not None and depth == 1:
            keep = _runaway_start(text, string_start + 1)
            if keep < len(text):
                text = text[:keep]
                repairs.append("runaway_newlines_trimmed")
                stripped = text.rstrip(" \t\r\n")
                ends = _Ends(text, stripped)
    if (
        not (after_closer or final_only)
        and stripped[-1:] in {"}", "]"}
        and _end_state(stripped)[1] is None
    ):
        # Outside a string the cut state says no more (read in C here).
        return DecodeFailure("invalid_json", len(stripped) - 1, AFTER_CLOSER)
    # A scalar that space follows, or a literal, is kept whole: no member
    # lost its value, so the path to one is not read (else read once more).
    path = (
        key_path and len(stripped) == len(text) and not stripped.endswith(_LITERAL_ENDS)
    )
    state = ends.cut_state(path=path)
    kept_scalar = False
    if (
        state.string_start is not None
        and not (after_closer or final_only)
        and _ESCAPED_QUOTE_CLOSERS.search(stripped, state.string_start)
    ):
        return DecodeFailure("invalid_json", len(stripped) - 1, ESCAPED_END)
    if (
        state.string_start is not None
        and state.key_start != state.string_start  # a cut key's member goes
        and not (after_closer or final_only)
        # ``_CLOSERS_AT_END`` needs a closer last; else no whole-text read.
        and stripped[-1:] in {"}", "]"}
    ):
        depth, string_start = ends.of(stripped)
        if (
            string_start is not None
            and "\n" in stripped[string_start:]  # it swallowed lines
            and _closes_then_words(stripped, string_start, depth, _CLOSERS_AT_END)
        ):
            return DecodeFailure("invalid_json", string_start, _MISSING_QUOTE)
    if state.string_start is None:
        if not (after_closer or final_only) and stripped[-1:] in {"}", "]"}:
            return DecodeFailure("invalid_json", len(stripped) - 1, AFTER_CLOSER)
        tail = stripped[state.scalar_start :].lstrip(" \t\r\n")
        # A scalar the text ends in may have lost characters; one that space
        # follows is whole.
        if tail and (
            tail in _LITERALS
            or len(stripped) < len(text)
            or not _CUT_SCALAR.fullmatch(tail)
        ):
            kept_scalar = True
        elif tail:
            text = stripped[: len(stripped) - len(tail)]
    cut_key = None
    if key_path and state.key_start is not None and not kept_scalar:
        cut_key = _cut_path(stripped, state if path else cut_state(stripped))
    repairs.append("truncation_closed")
    import pydantic_core  # noqa: PLC0415 - loaded when first needed (start-up)

    escaped = False
    for _ in range(_RETRIES + 1):
        try:
            value = pydantic_core.from_json(text, allow_partial="trailing-strings")
        except ValueError as exc:
            message = str(exc)
            if _CONTROL in message and not escaped:
                # Rare, so escaped only when the parser meets one.
                escaped = True
                text = escape_control_characters(text).text
                repairs.insert(0, "control_characters_escaped")
                continue
            pos = _offset(text, message)
            if _RECURSION in message:
                return too_deep(pos or 0, max_depth, _PARSER_DEPTH)
            if pos is None or pos == 0 or not error_at_cut(text, pos):
                # Not a cut the parser stumbles on: a real error before the end.
                return DecodeFailure("invalid_json", pos or 0, _reason(message))
            text = text[:pos]
            continue
        # pydantic-core refuses more than 200 levels itself.
        if max_depth < _PARSER_DEPTH and not within_depth(text, value, max_depth):
            return too_deep(0, max_depth)
        return Closed(value, tuple(repairs), cut_key)
    return DecodeFailure("invalid_json", len(text), "cannot be closed")


class _Ends:
    """Where a cut text ends, read once (:func:`read_tail`) for every check.

    The text with or without its trailing blanks (``stripped``): blanks end
    no string and hold no bracket, so both end alike. The tail is read from
    ``text``, whose UTF-8 form the decoder that failed on it cached (not from
    a copy without its blanks: encoding that is one more pass).
    """

    __slots__ = ("_tail", "_unread", "stripped", "text")

    def __init__(self, text: str, stripped: str) -> None:
        self.text = text
        self.stripped = stripped
        self._tail: tuple[CutState, int] | None = None
        self._unread = True

    def _read(self) -> tuple[CutState, int] | None:
        if self._unread:
            self._unread = False
            tail = self._tail = read_tail(self.text)
            if tail is not None and tail[0].string_start is not None:
                # As ``read_tail(stripped)`` reads it: the string runs to its end.
                state = tail[0]
                self._tail = CutState(*state[:2], len(self.stripped)), tail[1]
        return self._tail

    def of(self, text: str) -> tuple[int, int | None]:
        """``_end_state(text)``, ``text`` being ``stripped`` or it with blanks."""
        tail = self._read()
        return _end_state(text) if tail is None else (tail[1], tail[0].string_start)

    def cut_state(self, *, path: bool) -> CutState:
        """``cut_state(stripped, path=path)``."""
        tail = self._read()
        if tail is None or (path and tail[0].key_start is not None):
            return cut_state(self.stripped, path=path)
        return tail[0]


def opens_nested(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` opens a container inside its first one.

    Example:
        >>> opens_nested('{"a": "[x]", "b": 1', 0, 19), opens_nested('{"a": [1', 0, 8)
        (False, True)
    """
    opened = 0
    pos = start
    while True:
        token = _OPENERS_OR_QUOTE.search(text, pos, end)
        if token is None:
            return False
        if token.group() == '"':
            closed_at = skip_string(text, token.start(), end)
            if closed_at is None:
                return False
            pos = closed_at
            continue
        opened += 1
        if opened > 1:
            return True
        pos = token.end()


def error_at_cut(text: str, pos: int, end: int | None = None) -> bool:
    """Whether a decoder error at ``pos`` is the cut itself, not a syntax error.

    Only the last token may be broken by a cut: after the error there must be
    no structural character (``,:{}[]"``).

    Example:
        >>> error_at_cut('[1, 2, nul', 7), error_at_cut('{"a" 1, "b": [', 5)
        (True, False)
    """
    return _STRUCTURAL.search(text, pos, len(text) if end is None else end) is None


def ends_in_string(text: str) -> bool:
    """Whether the text ends inside a JSON string (one linear scan).

    Example:
        >>> ends_in_string('{"a": "x'), ends_in_string('{"a": 1')
        (True, False)
    """
    return _end_state(text)[1] is not None


def _end_state(text: str) -> tuple[int, int | None]:
    """Nesting depth where the text ends, and the start of a string it ends in.

    The brackets outside strings are counted (an opener adds one, a closer of
    either kind takes one), up to the string the text ends in: a few passes
    in C over the text's bytes, never a step per string (a backslash outside
    the strings: a few regex passes, still no step per string).

    Example:
        >>> _end_state('{"a": ["]", {"b": "x'), _end_state('[1, {"c": 2}')
        ((3, 18), (1, None))
    """
    raw = text.encode("utf-8", "surrogatepass")
    skeleton, opened = skeleton_outside_strings(raw)
    if b"\0" not in skeleton:  # no backslash outside the strings: paired so
        depth = skeleton.count(b"(") - skeleton.count(b")")
        if opened < 0:
            return depth, None
        # The string's own characters: fewer to decode than those before it.
        return depth, len(text) - len(raw[opened:].decode("utf-8", "surrogatepass"))
    closed = _CLOSED_STRINGS.match(text)
    end = len(text) if closed is None else closed.end()
    bare = _STRING.sub("", text[:end]) if '"' in text else text
    depth = bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")
    return depth, end if end < len(text) else None


def _runaway_start(text: str, lo: int) -> int:
    r"""Where a run of ``\n``/``\r`` escapes (or raw newlines) ending the text starts.

    Walks back from the end (a lone backslash the cut left goes too), so it
    costs the length of the run, never a search through the string.
    """
    end = len(text)
    if (
        end > lo
        and text[end - 1] == "\\"
        and _backslashes_before(text, end - 1, lo) % 2 == 0
    ):
        end -= 1
    while end > lo:
        if text[end - 1] in "\r\n":
            end -= 1
        elif (
            end - 2 >= lo
            and text[end - 2] == "\\"
            and text[end - 1] in "nr"
            and _backslashes_before(text, end - 2, lo) % 2 == 0
        ):
            end -= 2
        else:
            break
    return end


def _backslashes_before(text: str, index: int, lo: int) -> int:
    count = 0
    while index - count - 1 >= lo and text[index - count - 1] == "\\":
        count += 1
    return count


def _offset(text: str, message: str) -> int | None:
    """The offset pydantic-core's ``line L column C`` points at."""
    found = _POSITION.search(message)
    if found is None:
        return None
    line, column = int(found.group(1)), int(found.group(2))
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    return min(start + max(column - 1, 0), len(text))


def _reason(message: str) -> str:
    return _POSITION.sub("", message).strip().rstrip(",")
