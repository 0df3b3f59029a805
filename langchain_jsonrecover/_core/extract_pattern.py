"""Find the JSON a caller's regex captures (``RegexJsonOutputParser``).

Pure functions on ``str``; no LangChain imports. The pattern's first match
with a capture that decodes (or, with ``repair``, is repaired) wins; the
choice among candidates is ``_extract.choose``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jsonrecover._core.candidates.find import (
    NON_SPACE,
    decode_place,
)
from langchain_jsonrecover._core.candidates.kinds import (
    Place,
    Scan,
)
from langchain_jsonrecover._core.extract import (
    DEFAULT_MAX_DEPTH,
    Extraction,
    Prefer,
    ReplyFailure,
    choose,
    refuse_too_large,
    report_no_json,
)
from langchain_jsonrecover._core.levels import Repair, guesses
from langchain_jsonrecover._core.limits import DEFAULT_MAX_CHARS
from langchain_jsonrecover._core.pattern_view import (
    find_capture,
    pattern_view,
    repair_capture,
)
from langchain_jsonrecover._core.reply.markup import prepare_reply

if TYPE_CHECKING:
    import re

    from langchain_jsonrecover._core.schema.validate import Schema


def extract_with_pattern(
    text: str,
    pattern: re.Pattern[str],
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    schema: Schema | None = None,
    prefer: Prefer = "first",
    repair: Repair = "safe",
) -> Extraction | ReplyFailure:
    """Decode the first capture of ``pattern`` (the regex processor's rule).

    The capture is stripped, and a fence around it removed, then decoded as a
    whole: text after the value is an error here, since the pattern was meant
    to capture exactly the JSON.

    Args:
        text: The model's reply (reasoning is hidden from the pattern).
        pattern: A compiled pattern with one capture group.
        max_chars: Longer replies are refused before any scan.
        max_depth: Deeper nesting is a failure.
        schema: What the value must match, if anything.
        prefer: ``"last"`` uses the last match instead of the first.
        repair: Repair the capture's syntax when it does not decode
            (``"safe"``: only the repairs with one reading, see ``guesses``).

    Returns:
        The value, or why not.

    Example:
        >>> import re
        >>> pattern = re.compile(r"<json>(.*?)</json>")
        >>> extract_with_pattern("<json>[1]</json>", pattern).value
        [1]
    """
    text = str(text)
    if len(text) > max_chars:
        return refuse_too_large(text, max_chars)
    prepared = prepare_reply(text)
    view, hidden = pattern_view(text)
    seen = None
    if view != prepared.text:  # markup the pattern may name: it sees it
        capture = find_capture(view, pattern, prefer, hidden)
        repairs = ("reasoning_skipped",) if hidden else ()
        repairs = (*repairs, "markup_matched")
        if capture is not None:
            seen = _decode_capture(
                view,
                capture,
                repairs,
                schema=schema,
                repair=repair,
                max_depth=max_depth,
            )
            if isinstance(seen, Extraction):
                return seen
    # As before: markup blanked (a capture of ``{…}<|eot_id|>`` decodes).
    capture = find_capture(prepared.text, pattern, prefer)
    if capture is None:
        return seen or ReplyFailure("no_json", "", detail=pattern.pattern)
    found = _decode_capture(
        prepared.text,
        capture,
        prepared.repairs,
        schema=schema,
        repair=repair,
        max_depth=max_depth,
        source=text,
    )
    return found or report_no_json(prepared)


def _decode_capture(
    masked: str,
    capture: tuple[int, int, bool],
    repairs: tuple[str, ...],
    *,
    schema: Schema | None,
    repair: Repair,
    max_depth: int,
    source: str | None = None,
) -> Extraction | ReplyFailure | None:
    """The capture decoded as a whole (repaired when asked), or why not.

    ``source`` is the reply as written, when ``masked`` blanked its markup.
    """
    start, end, fenced = capture
    repairs = (*repairs, "fence_stripped") if fenced else repairs
    # A capture that runs to the end of the reply can be cut off.
    closed = NON_SPACE.search(masked, end) is not None
    place = Place(start, end, repairs, "regex", closed=closed, whole=True)
    strict = choose((decode_place(masked, place, Scan(max_depth)),), schema)
    if repair and not isinstance(strict, Extraction):
        repaired = repair_capture(masked, place, max_depth, source)
        found = choose((repaired,), schema) if repaired is not None else None
        if isinstance(found, Extraction) and not (
            repair == "safe" and guesses(found.repairs, masked, found.span)
        ):
            return found
    return strict
