"""The places in a prepared reply that may hold its JSON, each decoded.

Pure functions on ``str``: the readers of fences and prose that
``read.iter_candidates`` runs. The candidates come in the order they are tried:

1. fenced blocks: ``json``-tagged ones, then untagged ones whose body is
   JSON-like; when any fence holds a candidate, prose is not searched;
2. JSON-like spans in prose (``_candidate_order``): the reply's own object,
   then objects before arrays, in text order (``prefer="last"``: reversed);
   arrays only when no object failed (a broken object is the reply's JSON,
   not a ``[1]`` beside it), unless a schema was given; when the prose holds
   none, the one block tagged with another language (``xml``) whose body is
   JSON-like (``mislabelled_fence_read``);
3. the arguments of tool calls written as key/value markup.

Reasoning and markup are blanked by ``prepare_reply`` first; each candidate's
text is handed to the decoder once (a block with text after its value is read
again by the span scan, to tell a stray closer from a second value).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from langchain_jsonrecover._core.candidates.kinds import (
    Candidate,
    CandidateFailure,
    CandidateFailureKind,
    Place,
    Scan,
    Step,
)
from langchain_jsonrecover._core.candidates.order import (
    SEVERAL,
    SEVERAL_REASON,
    block_is_broken,
    closer_follows,
    find_prose_spans,
    fold_runs,
    has_prose,
    only_brackets,
    order_spans,
    reuse_guess,
    value_follows,
    value_in_rest,
    values_after,
)
from langchain_jsonrecover._core.decode.close import (
    Closed,
    close_truncated,
    ends_in_string,
    opens_nested,
)
from langchain_jsonrecover._core.decode.tolerant import Decoded, DecodeFailure, decode
from langchain_jsonrecover._core.spans.after import item_before, item_follows
from langchain_jsonrecover._core.spans.flat import BARE_KEY_REASON, bare_first_key

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_jsonrecover._core.reply.fences import Fence
    from langchain_jsonrecover._core.spans.kinds import Span

MISLABELLED_FENCE: Final = "mislabelled_fence_read"
"""The repair of a block tagged with another language read as JSON."""
NON_SPACE: Final = re.compile(r"\S")
_JSON_LABEL: Final = re.compile(r"json[ \t]*\r?\n", re.IGNORECASE)
OPENERS: Final = re.compile(r"[\[{]")
_NESTED: Final = (
    "a value inside an object whose opening bracket is missing (a key and a "
    "colon come before it)"
)
MEMBERS_FIRST: Final = "members_first"
"""``CandidateFailure.detail``: the reply starts with a key, its ``{`` missing."""
MEMBERS_FIRST_REASON: Final = (
    "the reply starts inside an object whose opening brace is missing (a key "
    "and a colon come first)"
)
_GOES_ON: Final = "the block goes on after the value ends (a stray or missing bracket?)"
_SCALAR_START: Final = frozenset('"-0123456789tfn')


def decode_place(text: str, place: Place, scan: Scan) -> Candidate:
    """Decode the text at ``place``: its value, closed, or why it failed."""
    body, whole = text[place.start : place.end], place.whole
    stop = scan.stop and scan.stop.of_rest(text, place.start, place.end)
    result = decode(body, max_depth=scan.max_depth, allow_trailing=not whole, stop=stop)
    if isinstance(result, Decoded):
        return _take_decoded(text, place.start, result, place.step, place.repairs)
    return close_or_fail(text, place, scan, result, body)


def strip_space(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow ``[start, end)`` to leave out whitespace at either end."""
    while start < end and text[start] in " \t\r\n":
        start += 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return start, end


def read_fences_then_prose(
    text: str,
    fences: list[Fence],
    base: tuple[str, ...],
    scan: Scan,
    known: tuple[Place, Candidate] | None = None,
) -> Iterator[Candidate]:
    """Fenced candidates; the prose between fences only when there are none.

    ``known``: the outer guess's place and what it decoded to, for the block
    that starts where the guess did.
    """
    found_in_fences = tagged_failed = False
    tagged = [f for f in fences if f.is_json]
    untagged = [f for f in fences if not f.tag]
    if scan.last:
        tagged.reverse()
        untagged.reverse()
    for fence in tagged + untagged:
        place = locate_fence_body(text, fence, base)
        if place is None:
            continue
        if tagged_failed and not fence.is_json and not scan.scalars:
            return  # a broken json block answers, not an untagged one after it
        found_in_fences = True
        decoded = reuse_guess(known, place) or decode_place(text, place, scan)
        candidate = _check_block(text, place, decoded, scan)
        yield candidate
        tagged_failed = tagged_failed or (
            fence.is_json and candidate.failure is not None
        )
    if not found_in_fences:
        prose_read = False
        for candidate in read_prose(text, fences, base, scan):
            prose_read = True
            yield candidate
        if not prose_read:
            yield from _read_mislabelled(text, fences, base, scan)


def _read_mislabelled(
    text: str, fences: list[Fence], base: tuple[str, ...], scan: Scan
) -> Iterator[Candidate]:
    """The one block tagged with another language whose body is JSON-like.

    Read only when the reply holds no other candidate (```` ```xml ```` around
    a call envelope): with two such blocks, none is read.
    """
    places = [
        place
        for fence in fences
        if fence.tag and not fence.is_json
        for place in [locate_fence_body(text, fence, base)]
        if place is not None
    ]
    if len(places) != 1:
        return
    (place,) = places
    place = Place(
        place.start,
        place.end,
        (*place.repairs, MISLABELLED_FENCE),
        place.step,
        closed=place.closed,
    )
    yield _check_block(text, place, decode_place(text, place, scan), scan)


def locate_fence_body(text: str, fence: Fence, base: tuple[str, ...]) -> Place | None:
    """Where the candidate of a fenced block lies, if it holds one."""
    start, end = strip_space(text, fence.body_start, fence.body_end)
    if start == end:
        return None  # an empty fence is no candidate
    if not fence.closed:
        end = fence.body_end  # a cut string keeps its trailing whitespace
    if text[start] not in "{[" and text.find("\n", fence.start, start) < 0:
        return None  # a one-line "block" of prose: ```json in a sentence
    repairs = (*base, "fence_stripped")
    if not fence.is_json:
        label = _JSON_LABEL.match(text, start, end)
        if label is not None:
            start = label.end()
            repairs = (*repairs, "json_label_dropped")
            if start >= end:
                return None  # a block holding only the word "json"
        if text[start] not in "{[":
            return None  # an untagged block of something else (code, a table)
    return Place(start, end, repairs, "fence", fence.closed)


def _check_block(
    text: str, place: Place, candidate: Candidate, scan: Scan
) -> Candidate:
    """The decoded candidate of a block, failed if the block goes on after it."""
    after = NON_SPACE.search(text, candidate.end, place.end)
    if candidate.failure is not None or after is None:
        return candidate
    if value_follows(text, candidate.end, place.end):
        # Several values in the block (JSON Lines): a failure, or their list;
        # unless a closer follows them (a lost opener: one broken value).
        rest = values_after(text, candidate.end, place.end, max_depth=scan.max_depth)
        if rest is not None and item_follows(text, rest[1], place.end):
            return _several(place, None, scan)  # more items: not these alone
        if rest is not None and not closer_follows(text, rest[1], place.end):
            kept = Place(place.start, rest[1], candidate.repairs, "fence", closed=True)
            return _several(kept, [candidate.value, *rest[0]], scan)
        if rest is None and not only_brackets(text, candidate.end, place.end):
            return _several(place, None, scan)
    if (
        not isinstance(candidate.value, dict | list)
        or after.group() == ":"
        or block_is_broken(text, place.start, place.end, max_depth=scan.max_depth)
    ):
        # More of the block goes on as if the value had not ended: the value
        # is part of a broken one (a key read as a string, a stray closer).
        failure = CandidateFailure("invalid_json", _GOES_ON, candidate.end)
        return Candidate(
            place.start, place.end, "fence", place.repairs, failure=failure, whole=True
        )
    if value_in_rest(text, candidate.end, place.end, max_depth=scan.max_depth):
        return _several(place, None, scan)  # a value, a note, another value
    return candidate


def read_prose(
    text: str, fences: list[Fence], base: tuple[str, ...], scan: Scan
) -> Iterator[Candidate]:
    """The JSON-like spans of the prose, the reply's own first (see the module)."""
    first = NON_SPACE.search(text)
    if first is None:
        return
    lo, head = first.start(), base
    label = _JSON_LABEL.match(text, lo)
    if label is not None:
        lo = label.end()
        head = (*base, "json_label_dropped")
    if scan.scalars and not fences:
        scalar = _read_whole_scalar(text, lo, head, scan.max_depth)
        if scalar is not None:
            yield scalar
    spans = find_prose_spans(text, lo, fences, max_depth=scan.max_depth, stop=scan.stop)
    raw_start = NON_SPACE.search(text, lo)
    raw = raw_start.start() if raw_start is not None else -1
    spans, runs = fold_runs(text, spans)
    object_failed = False
    for span in order_spans(text, spans, raw, last=scan.last):
        step: Step = "raw" if span.start == raw else "prose"
        if object_failed and not span.is_object:
            # A broken object is the reply's JSON, not a citation such as
            # ``[1]`` beside it: its error (or its repair) answers. With a
            # schema, the schema decides (it may want an array).
            return
        repairs = head if step == "raw" else base
        run = runs.get(span.start) if runs else None
        candidate = (
            _read_run(text, run, step, repairs, scan)
            if run is not None
            else _read_span(text, span, step, repairs, scan)
        )
        yield candidate
        object_failed = object_failed or (
            (span.is_object or run is not None)
            and candidate.failure is not None
            and not scan.scalars
        )


def _read_run(
    text: str, run: list[Span], step: Step, repairs: tuple[str, ...], scan: Scan
) -> Candidate:
    """Several values glued together: a failure, or their list for a schema."""
    read = [_read_span(text, span, step, repairs, scan) for span in run]
    whole = (
        run[-1].closed
        and all(c.failure is None for c in read)
        # more items after or before: not these alone
        and not item_follows(text, run[-1].end, len(text))
        and not item_before(text, run[0].start, 0)
    )
    values = [c.value for c in read] if whole else None  # cut: never a list
    place = Place(run[0].start, run[-1].end, repairs, step, closed=True)
    return _several(place, values, scan)


def _several(place: Place, values: list[Any] | None, scan: Scan) -> Candidate:
    """Several values (``None``: one broken): their list for a schema, else fail."""
    start, end, step, repairs = place.start, place.end, place.step, place.repairs
    if scan.scalars and values is not None:
        listed = (*repairs, "values_listed")
        return Candidate(start, end, step, listed, value=values)
    failure = CandidateFailure("invalid_json", SEVERAL_REASON, start, detail=SEVERAL)
    return Candidate(start, end, step, repairs, failure=failure, whole=True)


def _read_span(
    text: str, span: Span, step: Step, repairs: tuple[str, ...], scan: Scan
) -> Candidate:
    """The candidate of one span, decoded (by the span scan already, if it could)."""
    if span.nested:
        failure = CandidateFailure("invalid_json", _NESTED, span.start, "nested_value")
        return Candidate(span.start, span.end, step, repairs, failure=failure)
    if span.decoded is not None:
        return _take_decoded(text, span.start, span.decoded, step, repairs)
    if span.cut is not None:
        # The scan ran out of text inside the span: nothing closed it.
        place = Place(span.start, span.end, repairs, step, closed=False)
        return close_or_fail(text, place, scan, span.cut)
    bare = span.bare if span.bare >= 0 else bare_first_key(text, span.start, span.end)
    if bare >= 0:  # what the decoder would say, without decoding
        why = ("invalid_json", BARE_KEY_REASON, bare, "")
        # No value, cut key or rival; one value when the span is broken.
        read = (step, repairs, None, tuple.__new__(CandidateFailure, why), None, ())
        return tuple.__new__(Candidate, (span.start, span.end, *read, span.broken))
    if span.failed is not None:  # the scan decoded this very text (Span.failed)
        why = describe_failure(text, *span[:2], span.failed, closed=span.closed)
        return Candidate(*span[:2], step, repairs, failure=why, whole=span.broken)
    place = Place(span.start, span.end, repairs, step, span.closed, whole=span.broken)
    return decode_place(text, place, scan)


def _read_whole_scalar(
    text: str, lo: int, repairs: tuple[str, ...], max_depth: int
) -> Candidate | None:
    """The reply when it is wholly one JSON scalar: a number, a JSON string…."""
    start, end = strip_space(text, lo, len(text))
    if start == end or text[start] not in _SCALAR_START:
        return None
    result = decode(text[start:end], max_depth=max_depth, allow_trailing=False)
    if not isinstance(result, Decoded):
        return None
    return Candidate(start, end, "raw", (*repairs, *result.repairs), value=result.value)


def close_or_fail(
    text: str,
    place: Place,
    scan: Scan,
    result: DecodeFailure,
    body: str | None = None,
) -> Candidate:
    """A candidate that did not decode: closed, if it was cut and we close.

    ``body``: ``text[place.start:place.end]`` as the decoder read it (its
    UTF-8 form cached: the closing reads it again, a copy it would encode).
    """
    start, end, step, repairs = place.start, place.end, place.step, place.repairs
    if (
        step == "fence"
        and place.closed
        and result.kind == "truncated"
        and ends_in_string(text[start:end])
    ):
        # A closing fence inside a JSON string (a ``` line in a code value):
        # the body was cut by the fence finder, not by the model.
        failure = describe_failure(text, start, end, result, closed=True)
        return Candidate(start, end, step, repairs, failure=failure, whole=place.whole)
    if (
        scan.close_truncated
        and result.kind == "truncated"
        and not (place.closed and opens_nested(text, start, end))
    ):
        # Closed (or prose after it), not cut: a flat value lost a closer at its end.
        closing = close_truncated(
            text[start:end] if body is None else body,
            max_depth=scan.max_depth,
            trim_runaway_newlines=scan.trim_runaway_newlines,
            final_only=scan.final_only,
            after_closer=scan.cut_off,
            key_path=scan.scalars,  # only a schema (scalars) reads the path
        )
        if isinstance(closing, Closed):
            return Candidate(
                start,
                end,
                step,
                (*repairs, *closing.repairs),
                value=closing.value,
                cut_key=closing.cut_key,
            )
        failure = describe_failure(text, start, end, closing, closed=True)
    else:  # described only where it is the answer (a closed cut needs none)
        failure = describe_failure(text, start, end, result, closed=place.closed)
    return Candidate(start, end, step, repairs, failure=failure, whole=place.whole)


def describe_failure(
    text: str, start: int, end: int, result: DecodeFailure, *, closed: bool
) -> CandidateFailure:
    """The decoder's failure on ``text[start:end]``, in the reply's terms.

    A text the decoder ran out of is ``truncated`` only when the reply stops
    there; anywhere else a closer is missing: ``invalid_json``, "not closed".
    """
    kind: CandidateFailureKind
    if result.kind == "too_deep":
        kind = "too_deep"
    elif (
        result.kind == "truncated"
        and not closed
        and NON_SPACE.search(text, end) is None
    ):
        kind = "truncated"
    else:
        kind = "invalid_json"
    reason = result.message
    if kind == "invalid_json" and result.kind == "truncated":
        reason = "not closed"
    return CandidateFailure(kind, reason, start + result.pos)


def _take_decoded(
    text: str, start: int, result: Decoded, step: Step, repairs: tuple[str, ...]
) -> Candidate:
    """A decoded value as a candidate: prose around it is trimmed (and said)."""
    end = start + result.end
    repairs = (*repairs, *result.repairs)
    if step != "fence" and has_prose(text, start, end, check_before=step != "raw"):
        repairs = (*repairs, "prose_trimmed")
    return Candidate(start, end, step, repairs, value=result.value)
