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
    strip_space,
)
from langchain_jsonrecover._core.candidates.kinds import (
    Candidate,
    Place,
    Scan,
)
from langchain_jsonrecover._core.decode.tolerant import Decoded, decode
from langchain_jsonrecover._core.extract import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_DEPTH,
    Extraction,
    Prefer,
    ReplyFailure,
    choose,
    refuse_too_large,
    report_no_json,
)
from langchain_jsonrecover._core.repair.syntax import repair as repair_syntax
from langchain_jsonrecover._core.reply.fences import find_fences
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
    repair: bool = False,
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
        repair: Repair the capture's syntax when it does not decode.

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
    masked = prepared.text
    capture = _find_capture(masked, pattern, prefer)
    if capture is None:
        return ReplyFailure("no_json", "", detail=pattern.pattern)
    start, end, fenced = capture
    repairs = (*prepared.repairs, "fence_stripped") if fenced else prepared.repairs
    # A capture that runs to the end of the reply can be cut off.
    closed = NON_SPACE.search(masked, end) is not None
    place = Place(start, end, repairs, "regex", closed=closed, whole=True)
    strict = choose((decode_place(masked, place, Scan(max_depth)),), schema)
    if repair and not isinstance(strict, Extraction):
        repaired = _repair_capture(masked, place, max_depth)
        found = choose((repaired,), schema) if repaired is not None else None
        if isinstance(found, Extraction):
            return found
    return strict or report_no_json(prepared)


def _find_capture(
    masked: str, pattern: re.Pattern[str], prefer: Prefer
) -> tuple[int, int, bool] | None:
    """Where the pattern's capture lies, stripped and out of its fence.

    Returns:
        The capture's start and end, and whether a fence was taken off; or
        ``None`` when nothing (or only whitespace) was captured.
    """
    match = pattern.search(masked)
    if prefer == "last" and match is not None:
        for match in pattern.finditer(masked):  # noqa: B007 - keep the last
            pass
    if match is None or match.start(1) < 0:
        return None
    start, end = strip_space(masked, match.start(1), match.end(1))
    fenced = masked.startswith("```", start, end)
    if fenced:
        fence = find_fences(masked[start:end])[0]
        start, end = strip_space(
            masked, start + fence.body_start, start + fence.body_end
        )
    return None if start == end else (start, end, fenced)


def _repair_capture(masked: str, place: Place, max_depth: int) -> Candidate | None:
    """The capture with its syntax repaired, when the repair reads all of it."""
    fixed = repair_syntax(masked[place.start : place.end])
    if (
        fixed is None
        or fixed.truncated
        or NON_SPACE.search(masked, place.start + fixed.end, place.end) is not None
    ):
        return None
    result = decode(fixed.text, max_depth=max_depth, allow_trailing=False)
    if not isinstance(result, Decoded):
        return None
    repairs = (*place.repairs, *fixed.repairs)
    return Candidate(place.start, place.end, "regex", repairs, value=result.value)
