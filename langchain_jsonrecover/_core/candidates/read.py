"""A prepared reply's candidates, in the order they are tried.

Pure functions on ``str``; no LangChain imports. The text is read first
(``find``'s readers of fences and prose, in the order its docstring gives),
then the arguments of tool calls written as key/value markup.

The common reply with one fenced block whose body decodes (a sentence, a
```` ```json ```` block, a sentence) has that block as its only candidate.
:func:`read_candidates` returns it as such, so that a caller choosing among
candidates can see there is nothing to choose (``extract`` then skips the
machinery that compares candidates); :func:`iter_candidates` yields the same
candidates either way.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.candidates.find import (
    MEMBERS_FIRST,
    MEMBERS_FIRST_REASON,
    NON_SPACE,
    OPENERS,
    decode_place,
    locate_fence_body,
    read_fences_then_prose,
    read_prose,
)
from langchain_jsonrecover._core.candidates.kinds import (
    Candidate,
    CandidateFailure,
    Place,
    Scan,
)
from langchain_jsonrecover._core.candidates.order import shift_fence
from langchain_jsonrecover._core.decode.tolerant import Decoded, decode
from langchain_jsonrecover._core.reply.fences import find_fences, outer_fence
from langchain_jsonrecover._core.reply.probe import find_token
from langchain_jsonrecover._core.spans.frames import json_extent

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from langchain_jsonrecover._core.reply.markup import Prepared

_MEMBERS_FIRST: Final = re.compile(
    r'(?:"(?:[^"\\\n]|\\.)*+"|[A-Za-z_][\w-]*+")[ \t]*+:'
)


def iter_candidates(prepared: Prepared, scan: Scan) -> Iterator[Candidate]:
    """Yield the reply's candidates in the order they are tried, decoded.

    Decoding is lazy: a caller that stops at the first success pays for no
    more.

    Args:
        prepared: The reply prepared by ``prepare_reply``.
        scan: The options.

    Yields:
        Candidates; each has a value or a failure.

    Example:
        >>> from langchain_jsonrecover._core.reply.markup import prepare_reply
        >>> prepared = prepare_reply("[1] or {}")
        >>> [c.value for c in iter_candidates(prepared, Scan(max_depth=200))]
        [[1], {}]
    """
    read = read_candidates(prepared, scan)
    if isinstance(read, Candidate):
        yield read
    else:
        yield from read


def read_candidates(prepared: Prepared, scan: Scan) -> Candidate | Iterator[Candidate]:
    r"""The candidates of :func:`iter_candidates`, or the one that is all of them.

    The one candidate is the reply's fenced block, decoded, when the text
    before its fence holds no bracket and its block holds nothing after the
    value (see ``outer_fence``), and no tool call is written as markup.
    Otherwise the candidates come lazily, the text's first read at this call.

    Example:
        >>> from langchain_jsonrecover._core.reply.markup import prepare_reply
        >>> read = read_candidates(prepare_reply('Hi ```json\n{"a": 1}\n```'), Scan(9))
        >>> read.value, read.repairs
        ({'a': 1}, ('fence_stripped',))
    """
    read = _read_text(prepared.text, prepared.repairs, scan)
    if not isinstance(read, Candidate):
        return _then_tool_calls(read, prepared, scan)
    if prepared.tool_calls:
        return _then_tool_calls((read,), prepared, scan)
    return read


def _then_tool_calls(
    read: Iterable[Candidate], prepared: Prepared, scan: Scan
) -> Iterator[Candidate]:
    yield from read
    yield from _read_tool_calls(prepared, scan)


def _read_tool_calls(prepared: Prepared, scan: Scan) -> Iterator[Candidate]:
    """The arguments of tool calls written as key/value markup.

    GLM's ``<arg_key>`` and Qwen's ``<parameter=…>`` calls are blanked whole
    from the text; built as JSON by the markup reader, their arguments are
    candidates after the text's.
    """
    for call in prepared.tool_calls:
        if NON_SPACE.search(prepared.text, call.start, call.end) is not None:
            continue  # the JSON is in the text, a candidate already
        repairs = (*prepared.repairs, "tool_call_read")
        result = decode(call.arguments, max_depth=scan.max_depth, allow_trailing=False)
        if isinstance(result, Decoded):
            yield Candidate(call.start, call.end, "prose", repairs, value=result.value)
        else:
            reason = "cut off" if not call.closed else result.message
            failure = CandidateFailure("invalid_json", reason, call.start)
            yield Candidate(call.start, call.end, "prose", repairs, failure=failure)


def _read_text(
    masked: str, base: tuple[str, ...], scan: Scan
) -> Candidate | Iterator[Candidate]:
    """The candidates of the prepared text, in order; or its one fenced block."""
    first = NON_SPACE.search(masked)
    members = _MEMBERS_FIRST.match(masked, first.start()) if first else None
    if members is not None and "}" in masked[members.end() :]:
        # The reply starts inside an object whose ``{`` was prefilled: that
        # object is its JSON, never a later value (an example, a second one).
        start = members.start()
        failure = CandidateFailure(
            "invalid_json", MEMBERS_FIRST_REASON, start, detail=MEMBERS_FIRST
        )
        return iter((Candidate(start, len(masked), "raw", base, failure=failure),))
    first_fence = find_token(masked, "```")  # through "`": far faster than "```"
    if first_fence < 0:
        return read_prose(masked, [], base, scan)
    # Backticks inside the strings of JSON that opens before the first fence
    # (the reply itself, or an object in the prose) are not fences.
    lead = OPENERS.search(masked, 0, first_fence)
    lead_end = json_extent(masked, lead.start()) if lead is not None else None
    if (
        lead is not None
        and lead_end is not None
        and (
            lead_end > first_fence or NON_SPACE.search(masked, 0, lead.start()) is None
        )
    ):
        if find_token(masked, "```", lead_end) < 0:
            return read_prose(masked, [], base, scan)
        fences = [f for f in find_fences(masked[lead_end:]) if f.start >= 0]
        fences = [shift_fence(f, lead_end) for f in fences]
        return read_fences_then_prose(masked, fences, base, scan)
    guess = outer_fence(masked, first_fence)
    place = locate_fence_body(masked, guess, base) if guess is not None else None
    known: tuple[Place, Candidate] | None = None
    if guess is not None and place is not None and (guess.is_json or not guess.tag):
        candidate = decode_place(masked, place, scan)
        if candidate.failure is None and (
            candidate.end == place.end
            or NON_SPACE.search(masked, candidate.end, place.end) is None
        ):
            return candidate  # the only block there is (see outer_fence)
        known = (place, candidate)
    return read_fences_then_prose(masked, find_fences(masked), base, scan, known)
