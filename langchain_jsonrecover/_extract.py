"""Find the JSON in a reply: candidates in order, first success wins.

Pure functions on ``str``; no LangChain imports. The order (LINEAGE.md, from
PtcRunner, made robust):

0. a fast path: the reply is clean JSON;
1. reasoning blocks are hidden;
2. fenced blocks: ``json``-tagged ones, then untagged ones whose body is
   JSON-like; when any fence holds a candidate, prose is not searched;
3. the trimmed reply when it starts with ``{`` or ``[`` (after a bare
   ``json`` label line);
4. JSON-like spans in prose: objects before arrays, each in text order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson

from langchain_jsonrecover._decode import (
    Decoded,
    DecodeFailure,
    decode,
    loads_within,
)
from langchain_jsonrecover._fences import Fence, find_fences, outer_fence
from langchain_jsonrecover._markup import Prepared, prepare_reply
from langchain_jsonrecover._recover import (
    Closed,
    close_truncated,
    ends_in_string,
    opens_nested,
)
from langchain_jsonrecover._repair import repair as repair_syntax
from langchain_jsonrecover._schema import Accepted, FieldError, Schema
from langchain_jsonrecover._spans import (
    Span,
    continues_structure,
    find_spans,
    json_extent,
)

Step = Literal["raw", "fence", "prose", "regex"]
Prefer = Literal["first", "last"]
ReplyFailureKind = Literal[
    "too_large", "no_json", "invalid_json", "truncated", "too_deep", "schema"
]

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

DEFAULT_MAX_CHARS: Final = 10_000_000
DEFAULT_MAX_DEPTH: Final = 200

_NON_SPACE: Final = re.compile(r"\S")
_JSON_LABEL: Final = re.compile(r"json[ \t]*\r?\n", re.IGNORECASE)
_END_OF_DATA: Final = "unexpected end of data"
_OPENERS: Final = re.compile(r"[\[{]")
_REPAIRABLE: Final = frozenset({"invalid_json", "truncated"})
_NESTED: Final = (
    "a value inside an object whose opening bracket is missing (a key and a "
    "colon come before it)"
)
_FILLS_NOTHING: Final = (
    "none of the schema's fields is in the JSON: every value would be a default"
)
_GOES_ON: Final = "the block goes on after the value ends (a stray or missing bracket?)"
_SCALAR_START: Final = frozenset('"-0123456789tfn')


@dataclass(frozen=True, slots=True)
class Extraction:
    r"""The JSON found in a reply, and how it was found.

    Example:
        >>> from langchain_jsonrecover import extract_json
        >>> found = extract_json('Sure! ```json\n{"a": 1}\n```')
        >>> found.value, found.step, found.repairs
        ({'a': 1}, 'fence', ('fence_stripped',))
    """

    value: Any
    """The decoded value."""
    span: tuple[int, int]
    """Where the value's text lies in the reply: ``reply[start:end]``."""
    step: Step
    """What found it: ``raw`` (the reply itself), ``fence``, ``prose`` or ``regex``."""
    repairs: tuple[str, ...] = ()
    """What was done to get the value, in order (``"reasoning_skipped"``,
    ``"fence_stripped"``, ``"json_label_dropped"``, ``"prose_trimmed"``,
    ``"control_characters_escaped"``, ``"truncation_closed"`` …)."""
    cut_off: bool = False
    """The model reported stopping at its token limit (``finish_reason`` and
    kin in the reply's metadata)."""


@dataclass(frozen=True, slots=True)
class ReplyFailure:
    """Why no value came out of a reply (or out of one candidate)."""

    kind: ReplyFailureKind
    """``no_json``, ``invalid``, ``truncated``, ``too_deep``, ``too_large`` or
    ``schema`` (decoded, but does not match the schema)."""
    reason: str
    """The decoder's reason in plain words (empty for ``no_json``)."""
    pos: int | None = None
    """Offset in the reply where decoding stopped."""
    start: int | None = None
    """Offset in the reply where the failing candidate starts."""
    detail: str = ""
    """Extra context: ``"reasoning_only"``, or the regex that matched nothing."""
    errors: tuple[FieldError, ...] = ()
    """For ``schema``: why the value does not match."""
    value: Any = None
    """For ``schema``: the decoded value that does not match."""
    recovered: bool = False
    """For ``schema``: the value came from closing a truncated reply."""
    cut_off: bool = False
    """The model reported stopping at its token limit."""


@dataclass(frozen=True, slots=True)
class Scan:
    """How to read the candidates of one reply."""

    max_depth: int = DEFAULT_MAX_DEPTH
    """Deeper nesting is a failure."""
    scalars: bool = False
    """A reply that is wholly one JSON scalar is a candidate (with a schema)."""
    close_truncated: bool = False
    """Close a candidate the reply ends inside, instead of failing."""
    final_only: bool = False
    """When closing, drop a number at the cut (a stream still arriving)."""
    trim_runaway_newlines: bool = False
    """When closing, trim a run of ``\\n`` escapes ending a depth-1 string."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One place in the reply that may hold the answer, decoded."""

    start: int
    end: int
    step: Step
    repairs: tuple[str, ...]
    value: Any = None
    failure: ReplyFailure | None = None
    whole: bool = False
    """The structure shows ``[start, end)`` is one value: a repair must read
    all of it."""

    def extraction(self) -> Extraction:
        """This candidate as an :class:`Extraction` (it must have decoded)."""
        return Extraction(self.value, (self.start, self.end), self.step, self.repairs)


def extract(
    text: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    schema: Schema | None = None,
    prefer: Prefer = "first",
    close_truncated: bool = False,
    trim_runaway_newlines: bool = False,
    repair: bool = False,
) -> Extraction | ReplyFailure:
    """Find and decode the JSON value a reply holds.

    Args:
        text: The model's reply.
        max_chars: Longer replies are refused before any scan.
        max_depth: Deeper nesting is a failure.
        schema: When given, the first candidate that validates wins, and a
            reply that is wholly one JSON scalar is a candidate too.
        prefer: ``"last"`` tries the candidates from the end of the reply.
        close_truncated: Close a candidate the reply ends inside (see
            ``_recover``) instead of failing.
        trim_runaway_newlines: With ``close_truncated``, Normandy's rule for
            a string cut inside a runaway of newlines.
        repair: When no candidate succeeds as it stands, repair the failing
            candidates' syntax (``_repair``) and try them again, in order.

    Returns:
        The first candidate that decodes (and validates), or the failure to
        report: the first failing candidate's (as it stood), else ``no_json``.

    Example:
        >>> extract('<think>{"draft": 1}</think> Answer: {"a": 1}').value
        {'a': 1}
    """
    text = str(text)
    if len(text) > max_chars:
        return ReplyFailure("too_large", f"{len(text)} characters, over {max_chars}")
    scan = Scan(
        max_depth,
        scalars=schema is not None,
        close_truncated=close_truncated,
        trim_runaway_newlines=trim_runaway_newlines,
    )
    fast = _fast_path(text, scan)
    memo: list[Prepared] = []

    def prepared() -> Prepared:
        # Prepared once per parse, and only when the fast path did not answer.
        if not memo:
            memo.append(prepare_reply(text))
        return memo[0]

    candidates: Iterable[Candidate]
    if fast is not None:
        candidates = (fast,)
    else:
        candidates = iter_candidates(text, scan, prepared())
        if prefer == "last":
            candidates = sorted(candidates, key=lambda c: c.start, reverse=True)
    strict_first = prefer == "first"
    if not repair:
        found = choose(candidates, schema, strict_first=strict_first)
        return found or _no_json(prepared())
    if fast is None:
        whole = _repaired_whole(prepared(), scan, schema)
        if whole is not None:
            return whole
    if prefer == "last":
        # The last candidate that decodes, strictly or after repair.
        masked = prepared().text
        either = (
            alt
            for candidate in candidates
            for alt in (candidate, *_repaired(masked, [candidate], scan))
        )
        return choose(either, schema) or _no_json(prepared())
    tried: list[Candidate] = []
    strict = choose(_recorded(candidates, tried), schema, strict_first=strict_first)
    if isinstance(strict, Extraction):
        return strict
    masked = prepared().text
    repaired = choose(_repaired(masked, tried, scan), schema, strict_first=strict_first)
    if isinstance(repaired, Extraction):
        return repaired
    return strict or repaired or _no_json(prepared())


def _repaired_whole(
    prepared: Prepared, scan: Scan, schema: Schema | None
) -> Extraction | None:
    """A reply that is one broken JSON value (and perhaps prose after it).

    The strict pass would have one candidate, failing, and the repair pass
    would then repair it: the same answer, without walking the broken value
    in Python to find its extent first. Only when nothing JSON-like follows
    the repaired value (no other candidate could exist); else ``None``.
    """
    masked = prepared.text
    lead = _NON_SPACE.search(masked)
    if lead is None or lead.group() not in "{[":
        return None
    start = lead.start()
    fixed = repair_syntax(masked[start:])
    if fixed is None or fixed.truncated:
        return None
    end = start + fixed.end
    if (
        "```" in masked[end:]
        or _OPENERS.search(masked, end) is not None
        or continues_structure(masked, end, len(masked))
    ):
        return None
    result = decode(fixed.text, max_depth=scan.max_depth, allow_trailing=False)
    if not isinstance(result, Decoded):
        return None
    repairs = (*prepared.repairs, *fixed.repairs)
    if _NON_SPACE.search(masked, end) is not None:
        repairs = (*repairs, "prose_trimmed")
    found = choose((Candidate(start, end, "raw", repairs, value=result.value),), schema)
    return found if isinstance(found, Extraction) else None


def _recorded(
    candidates: Iterable[Candidate], into: list[Candidate]
) -> Iterator[Candidate]:
    for candidate in candidates:
        into.append(candidate)
        yield candidate


def _repaired(masked: str, tried: list[Candidate], scan: Scan) -> Iterator[Candidate]:
    """The failing candidates with their syntax repaired, in the same order.

    The repair reads from a candidate's opener and decides itself where the
    value ends: the strict scan's bracket matching, and a fence finder that
    may take a ``` line inside a string for the closing fence, cannot be
    trusted on broken syntax. But a repaired value must account for the
    structure around it: it may not end before a candidate known to be one
    value does, nor where the text goes on as if it had not ended (a closer,
    or ``, "key":``). The text handed to the repair is bounded by twice the
    reply's length, so the pass stays linear.

    Args:
        masked: The reply with reasoning masked.
        tried: Candidates of the strict pass, in order.
        scan: The options.
    """
    budget = 2 * len(masked) + 1024
    limit = len(masked)
    for candidate in tried:
        failure = candidate.failure
        if (
            failure is None
            or failure.kind not in _REPAIRABLE
            or failure.detail == "nested_value"
        ):
            continue
        if limit - candidate.start > budget:
            return
        budget -= limit - candidate.start
        fixed = repair_syntax(
            masked[candidate.start : limit], entities=candidate.step == "fence"
        )
        if fixed is None:
            continue
        end = candidate.start + fixed.end
        if not fixed.truncated and (
            (candidate.whole and _NON_SPACE.search(masked, end, candidate.end))
            or continues_structure(masked, end, limit)
        ):
            continue
        repairs = tuple(
            r for r in candidate.repairs if r != "control_characters_escaped"
        )
        if fixed.truncated:
            if not scan.close_truncated:
                continue
            closing = close_truncated(fixed.text, max_depth=scan.max_depth)
            if not isinstance(closing, Closed):
                continue
            value, added = closing.value, (*fixed.repairs, *closing.repairs)
        else:
            result = decode(fixed.text, max_depth=scan.max_depth, allow_trailing=False)
            if not isinstance(result, Decoded):
                continue
            value, added = result.value, fixed.repairs
        yield Candidate(
            candidate.start, end, candidate.step, (*repairs, *added), value=value
        )


def extract_partial(
    text: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    trim_runaway_newlines: bool = False,
    prefer: Prefer = "first",
) -> Any:
    r"""The value so far of a reply still streaming in, or ``None``.

    Found as :func:`extract` finds it, with the cut candidate closed, and
    holding only what is final: a number at the cut may still grow and is
    left out; a string at the cut is kept as far as it goes.

    Example:
        >>> extract_partial('Sure! ```json\n{"name": "Ada", "age": 3')
        {'name': 'Ada'}
    """
    text = str(text)
    if len(text) > max_chars:
        return None
    scan = Scan(
        max_depth,
        close_truncated=True,
        final_only=True,
        trim_runaway_newlines=trim_runaway_newlines,
    )
    fast = _fast_path(text, scan)
    candidates: Iterable[Candidate] = (
        (fast,) if fast is not None else iter_candidates(text, scan)
    )
    if prefer == "last":
        candidates = sorted(candidates, key=lambda c: c.start, reverse=True)
    found = choose(candidates, None)
    return found.value if isinstance(found, Extraction) else None


def choose(
    candidates: Iterable[Candidate],
    schema: Schema | None,
    *,
    strict_first: bool = False,
) -> Extraction | ReplyFailure | None:
    """The first candidate that decodes and validates, else the first failure.

    Args:
        candidates: In the order they are tried.
        schema: What a value must match, if anything.
        strict_first: A value that validates as it stands wins over an
            earlier one read through the schema (keys matched …).

    Returns:
        The winner, the first failure, or ``None`` when there was no candidate.
        A value that validates only because every field has a default (it
        holds none of the schema's keys: an example, or keys the model
        misspelt) never wins: it fills nothing from the reply, so it fails.
    """
    first_failure: ReplyFailure | None = None
    aligned: Extraction | None = None
    for candidate in candidates:
        if candidate.failure is None:
            if schema is None:
                return candidate.extraction()
            verdict = schema.accept(candidate.value)
            if isinstance(verdict, Accepted):
                span = (candidate.start, candidate.end)
                repairs = (*candidate.repairs, *verdict.repairs)
                found = Extraction(verdict.value, span, candidate.step, repairs)
                if verdict.aligned and strict_first:
                    aligned = aligned or found
                    continue
                if verdict.repairs or not schema.fills_nothing(candidate.value):
                    return found
                errors: tuple[FieldError, ...] = (FieldError("", _FILLS_NOTHING, ""),)
            else:
                errors = verdict.errors
            failure = ReplyFailure(
                "schema",
                "",
                pos=candidate.start,
                start=candidate.start,
                errors=errors,
                value=candidate.value,
                recovered="truncation_closed" in candidate.repairs,
            )
        else:
            failure = candidate.failure
        if first_failure is None:
            first_failure = failure
    return aligned or first_failure


def _fast_path(text: str, scan: Scan) -> Candidate | None:
    """The reply is clean JSON, or clean JSON cut off: one orjson call, no scan.

    When orjson runs out of text without meeting an error, the whole reply is
    one JSON value cut off: with ``close_truncated`` it is closed at once (no
    other candidate can exist), else the general path reports it.
    """
    first = _NON_SPACE.search(text)
    if first is None or text[first.start()] not in "{[":
        return None
    try:
        value, shallow = loads_within(text, scan.max_depth)
    except orjson.JSONDecodeError as exc:
        if scan.close_truncated and exc.msg.startswith(_END_OF_DATA):
            return _decoded_failure(
                text,
                first.start(),
                len(text),
                "raw",
                (),
                scan,
                DecodeFailure("truncated", exc.pos - first.start(), "cut off"),
                closed=False,
            )
        return None
    if not shallow:
        return None
    end = len(text)
    while text[end - 1] in " \t\r\n":
        end -= 1
    return Candidate(first.start(), end, "raw", (), value=value)


def _no_json(prepared: Prepared) -> ReplyFailure:
    detail = "reasoning_only" if prepared.only_reasoning else ""
    return ReplyFailure("no_json", "", detail=detail)


def iter_candidates(
    text: str, scan: Scan, prepared: Prepared | None = None
) -> Iterator[Candidate]:
    """Yield the reply's candidates in the order they are tried, decoded.

    Decoding is lazy: a caller that stops at the first success pays for no
    more.

    Args:
        text: The model's reply.
        scan: The options.
        prepared: The reply prepared by ``prepare_reply``, when the caller
            has it already.

    Yields:
        Candidates; each has a value or a failure.

    Example:
        >>> [c.value for c in iter_candidates("[1] or {}", Scan())]
        [[1], {}]
    """
    if prepared is None:
        prepared = prepare_reply(text)
    yield from _text_candidates(prepared.text, prepared.repairs, scan)
    yield from _call_candidates(prepared, scan)


def _call_candidates(prepared: Prepared, scan: Scan) -> Iterator[Candidate]:
    """The arguments of tool calls written as key/value markup.

    GLM's ``<arg_key>`` and Qwen's ``<parameter=…>`` calls are blanked whole
    from the text; built as JSON by the markup reader, their arguments are
    candidates after the text's.
    """
    for call in prepared.tool_calls:
        if _NON_SPACE.search(prepared.text, call.start, call.end) is not None:
            continue  # the JSON is in the text, a candidate already
        repairs = (*prepared.repairs, "tool_call_read")
        result = decode(call.arguments, max_depth=scan.max_depth, allow_trailing=False)
        if isinstance(result, Decoded):
            yield Candidate(call.start, call.end, "prose", repairs, value=result.value)
        else:
            reason = "cut off" if not call.closed else result.message
            failure = ReplyFailure(
                "invalid_json", reason, pos=call.start, start=call.start
            )
            yield Candidate(call.start, call.end, "prose", repairs, failure=failure)


def _text_candidates(
    masked: str, base: tuple[str, ...], scan: Scan
) -> Iterator[Candidate]:
    """The candidates of the prepared text, in order (see :func:`iter_candidates`)."""
    if "```" not in masked:
        yield from _span_candidates(masked, [], base, scan)
        return
    # Backticks inside the strings of JSON that opens before the first fence
    # (the reply itself, or an object in the prose) are not fences.
    first_fence = masked.find("```")
    lead = _OPENERS.search(masked, 0, first_fence)
    lead_end = json_extent(masked, lead.start()) if lead is not None else None
    if (
        lead is not None
        and lead_end is not None
        and (
            lead_end > first_fence or _NON_SPACE.search(masked, 0, lead.start()) is None
        )
    ):
        if "```" not in masked[lead_end:]:
            yield from _span_candidates(masked, [], base, scan)
            return
        fences = [f for f in find_fences(masked[lead_end:]) if f.start >= 0]
        fences = [_shift(f, lead_end) for f in fences]
        yield from _fenced_then_spans(masked, fences, base, scan)
        return
    guess = outer_fence(masked)
    if guess is not None and (guess.is_json or not guess.tag):
        candidate = _fence_candidate(masked, guess, base, scan, whole=True)
        if candidate is not None and candidate.failure is None:
            yield candidate  # the only block there is (see outer_fence)
            return
    yield from _fenced_then_spans(masked, find_fences(masked), base, scan)


def _fenced_then_spans(
    text: str, fences: list[Fence], base: tuple[str, ...], scan: Scan
) -> Iterator[Candidate]:
    """Fenced candidates; the prose between fences only when there are none."""
    found_in_fences = False
    for fence in [f for f in fences if f.is_json] + [f for f in fences if not f.tag]:
        candidate = _fence_candidate(text, fence, base, scan)
        if candidate is not None:
            found_in_fences = True
            yield candidate
    if not found_in_fences:
        yield from _span_candidates(text, fences, base, scan)


def _shift(fence: Fence, offset: int) -> Fence:
    return Fence(
        fence.start + offset,
        fence.end + offset,
        fence.body_start + offset,
        fence.body_end + offset,
        fence.tag,
        closed=fence.closed,
    )


def _fence_candidate(
    text: str,
    fence: Fence,
    base: tuple[str, ...],
    scan: Scan,
    *,
    whole: bool = False,
) -> Candidate | None:
    """The candidate a fenced block holds (``whole``: nothing may follow the value)."""
    start, end = _strip(text, fence.body_start, fence.body_end)
    if start == end:
        return None  # an empty fence is no candidate
    if not fence.closed:
        end = fence.body_end  # a cut string keeps its trailing whitespace
    if text[start] not in "{[" and text.find("\n", fence.start, start) < 0:
        return None  # a one-line "block" of prose: ```json in a sentence
    repairs = (*base, "fence_stripped")
    label = _JSON_LABEL.match(text, start, end)
    if label is not None and not fence.is_json:
        start = label.end()
        repairs = (*repairs, "json_label_dropped")
    if start >= end:
        return None  # a block holding only the word "json"
    if not fence.is_json and text[start] not in "{[":
        return None  # an untagged block of something else (code, a table)
    candidate = _decoded(
        text, start, end, "fence", repairs, scan, closed=fence.closed, whole=whole
    )
    after = _NON_SPACE.search(text, candidate.end, end)
    if (
        candidate.failure is None
        and after is not None
        and (
            not isinstance(candidate.value, dict | list)
            or after.group() == ":"
            or _broken_block(text, start, end, scan)
        )
    ):
        # More of the block goes on as if the value had not ended: the value
        # is part of a broken one (a key read as a string, a stray closer).
        failure = ReplyFailure("invalid_json", _GOES_ON, pos=candidate.end, start=start)
        return Candidate(start, end, "fence", repairs, failure=failure, whole=True)
    return candidate


def _broken_block(text: str, start: int, end: int, scan: Scan) -> bool:
    """Whether the structure of a block shows its first value is part of a broken one.

    Read only when text follows the first value inside the block (rare).
    """
    budget = [2 * (end - start) + 1024]
    spans = find_spans(text, start, end, max_depth=scan.max_depth, budget=budget)
    return bool(spans) and spans[0].broken


def _span_candidates(
    text: str, fences: list[Fence], base: tuple[str, ...], scan: Scan
) -> Iterator[Candidate]:
    first = _NON_SPACE.search(text)
    if first is None:
        return
    lo, head = first.start(), base
    label = _JSON_LABEL.match(text, lo)
    if label is not None:
        lo = label.end()
        head = (*base, "json_label_dropped")
    if scan.scalars and not fences:
        scalar = _whole_scalar(text, lo, head, scan.max_depth)
        if scalar is not None:
            yield scalar
    budget = [2 * len(text) + 1024]
    spans: list[Span] = []
    gap_start = lo
    for fence in fences:
        if fence.start > gap_start:
            spans += find_spans(
                text, gap_start, fence.start, max_depth=scan.max_depth, budget=budget
            )
        gap_start = max(gap_start, fence.end)
    spans += find_spans(
        text, gap_start, len(text), max_depth=scan.max_depth, budget=budget
    )
    if any(not s.closed and s.end < len(text) for s in spans):
        # A JSON span runs into a "fence": the backticks were inside its
        # strings. Read the prose again as one piece.
        spans = find_spans(text, lo, len(text), max_depth=scan.max_depth, budget=budget)
    if not spans:
        return
    raw_start = _NON_SPACE.search(text, lo)
    ordered = sorted(
        spans,
        key=lambda s: (
            not (raw_start is not None and s.start == raw_start.start()),
            s.empty,
            not s.is_object,
            s.start,
        ),
    )
    for span in ordered:
        is_raw = raw_start is not None and span.start == raw_start.start()
        step: Step = "raw" if is_raw else "prose"
        repairs = head if is_raw else base
        if span.nested:
            failure = ReplyFailure(
                "invalid_json",
                _NESTED,
                pos=span.start,
                start=span.start,
                detail="nested_value",
            )
            yield Candidate(span.start, span.end, step, repairs, failure=failure)
        elif span.decoded is not None:
            yield _from_decoded(text, span.start, span.decoded, step, repairs)
        elif span.cut is not None:
            yield _decoded_failure(
                text, span.start, span.end, step, repairs, scan, span.cut, closed=False
            )
        else:
            yield _decoded(
                text,
                span.start,
                span.end,
                step,
                repairs,
                scan,
                closed=span.closed,
                whole=span.broken,
            )


def _whole_scalar(
    text: str, lo: int, repairs: tuple[str, ...], max_depth: int
) -> Candidate | None:
    """The reply when it is wholly one JSON scalar: a number, a JSON string…."""
    start, end = _strip(text, lo, len(text))
    if start == end or text[start] not in _SCALAR_START:
        return None
    result = decode(text[start:end], max_depth=max_depth, allow_trailing=False)
    if not isinstance(result, Decoded):
        return None
    return Candidate(start, end, "raw", (*repairs, *result.repairs), value=result.value)


def _decoded(  # noqa: PLR0917
    text: str,
    start: int,
    end: int,
    step: Step,
    repairs: tuple[str, ...],
    scan: Scan,
    *,
    closed: bool,
    whole: bool = False,
) -> Candidate:
    result = decode(text[start:end], max_depth=scan.max_depth, allow_trailing=not whole)
    if isinstance(result, Decoded):
        return _from_decoded(text, start, result, step, repairs)
    return _decoded_failure(
        text, start, end, step, repairs, scan, result, closed=closed, whole=whole
    )


def _decoded_failure(  # noqa: PLR0917
    text: str,
    start: int,
    end: int,
    step: Step,
    repairs: tuple[str, ...],
    scan: Scan,
    result: DecodeFailure,
    *,
    closed: bool,
    whole: bool = False,
) -> Candidate:
    """A candidate that did not decode: closed, if it was cut and we close."""
    failure = _failure(text, start, end, result, closed)
    if (
        step == "fence"
        and closed
        and result.kind == "truncated"
        and ends_in_string(text[start:end])
    ):
        # A closing fence inside a JSON string (a ``` line in a code value):
        # the body was cut by the fence finder, not by the model.
        return Candidate(start, end, step, repairs, failure=failure, whole=whole)
    if (
        scan.close_truncated
        and result.kind == "truncated"
        and not (closed and opens_nested(text, start, end))
    ):
        # A block the model closed, or JSON that prose follows, was not cut:
        # a closer is missing, and only a flat value shows where (its end).
        closing = close_truncated(
            text[start:end],
            max_depth=scan.max_depth,
            trim_runaway_newlines=scan.trim_runaway_newlines,
            final_only=scan.final_only,
        )
        if isinstance(closing, Closed):
            return Candidate(
                start, end, step, (*repairs, *closing.repairs), value=closing.value
            )
        failure = _failure(text, start, end, closing, closed=True)
    return Candidate(start, end, step, repairs, failure=failure, whole=whole)


def _failure(
    text: str, start: int, end: int, result: DecodeFailure, closed: bool
) -> ReplyFailure:
    kind: ReplyFailureKind
    if result.kind == "too_deep":
        kind = "too_deep"
    elif result.kind == "truncated" and not closed and _at_end(text, end):
        kind = "truncated"
    else:
        kind = "invalid_json"
    reason = result.message
    if kind == "invalid_json" and result.kind == "truncated":
        reason = "not closed"
    return ReplyFailure(kind, reason, pos=start + result.pos, start=start)


def _from_decoded(
    text: str, start: int, result: Decoded, step: Step, repairs: tuple[str, ...]
) -> Candidate:
    end = start + result.end
    repairs = (*repairs, *result.repairs)
    if step != "fence" and _has_prose(text, start, end, check_before=step != "raw"):
        repairs = (*repairs, "prose_trimmed")
    return Candidate(start, end, step, repairs, value=result.value)


def _at_end(text: str, end: int) -> bool:
    """Whether only whitespace follows ``end``: the reply stops there."""
    return _NON_SPACE.search(text, end) is None


def _has_prose(text: str, start: int, end: int, *, check_before: bool) -> bool:
    """Whether visible text stands before ``start`` or after ``end``."""
    if check_before and _NON_SPACE.search(text, 0, start) is not None:
        return True
    return _NON_SPACE.search(text, end) is not None


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\r\n":
        start += 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return start, end


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
        >>> pattern = re.compile(r"<json>(.*?)</json>")
        >>> extract_with_pattern("<json>[1]</json>", pattern).value
        [1]
    """
    text = str(text)
    if len(text) > max_chars:
        return ReplyFailure("too_large", f"{len(text)} characters, over {max_chars}")
    prepared = prepare_reply(text)
    masked = prepared.text
    match = pattern.search(masked)
    if prefer == "last" and match is not None:
        for match in pattern.finditer(masked):  # noqa: B007 - keep the last
            pass
    if match is None or match.start(1) < 0:
        return ReplyFailure("no_json", "", detail=pattern.pattern)
    start, end = _strip(masked, match.start(1), match.end(1))
    repairs: tuple[str, ...] = prepared.repairs
    if masked.startswith("```", start, end):
        fence = find_fences(masked[start:end])[0]
        start, end = _strip(masked, start + fence.body_start, start + fence.body_end)
        repairs = (*repairs, "fence_stripped")
    if start == end:
        return ReplyFailure("no_json", "", detail=pattern.pattern)
    result = decode(masked[start:end], max_depth=max_depth, allow_trailing=False)
    if isinstance(result, Decoded):
        candidate = _from_decoded(masked, start, result, "regex", repairs)
    else:
        # A capture that runs to the end of the reply can be cut off.
        failure = _failure(masked, start, end, result, closed=not _at_end(masked, end))
        candidate = Candidate(start, end, "regex", repairs, failure=failure)
    strict = choose((candidate,), schema)
    if repair and not isinstance(strict, Extraction):
        fixed = repair_syntax(masked[start:end])
        if (
            fixed is not None
            and not fixed.truncated
            and _NON_SPACE.search(masked, start + fixed.end, end) is None
        ):
            result = decode(fixed.text, max_depth=max_depth, allow_trailing=False)
            if isinstance(result, Decoded):
                repaired = Candidate(
                    start, end, "regex", (*repairs, *fixed.repairs), value=result.value
                )
                found = choose((repaired,), schema)
                if isinstance(found, Extraction):
                    return found
    return strict or _no_json(prepared)
