"""Find the JSON in a reply: candidates in order, first success wins.

Pure functions on ``str``; no LangChain imports. The reply is prepared once
(reasoning and markup blanked, ``_markup``), its candidates are found and
decoded lazily in order (``_candidates``), and the first that decodes (and
validates against the schema, if any) wins. With ``repair``, the failing
candidates are repaired and tried again (``_candidate_repair``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson

from langchain_jsonrecover._core.candidates.choice import (
    Reading,
    broken_before,
    defaulted,
    noted,
    read_all,
    recorded,
)
from langchain_jsonrecover._core.candidates.cut_fence import read_cut_fence
from langchain_jsonrecover._core.candidates.find import NON_SPACE, close_or_fail
from langchain_jsonrecover._core.candidates.kinds import (
    Candidate,
    CandidateFailure,
    Place,
    Scan,
)
from langchain_jsonrecover._core.candidates.read import iter_candidates, read_candidates
from langchain_jsonrecover._core.candidates.repair import RepairPass
from langchain_jsonrecover._core.decode.tolerant import (
    END_OF_DATA,
    DecodeFailure,
    Stopped,
    loads_within,
)
from langchain_jsonrecover._core.found import (
    GUESSED,
    TWO_READINGS,
    Extraction,
    ReplyFailure,
    ReplyFailureKind,
)
from langchain_jsonrecover._core.levels import Repair, guesses
from langchain_jsonrecover._core.limits import DEFAULT_MAX_CHARS
from langchain_jsonrecover._core.recheck import recheck, refuse_guess, unless_repeated
from langchain_jsonrecover._core.reply.markup import Prepared, prepare_reply
from langchain_jsonrecover._core.rereads import reread
from langchain_jsonrecover._core.schema.validate import FieldError, Schema, two_readings
from langchain_jsonrecover._core.strict_gate import CLOSER, may_be_one_broken_value

# What the package imports from here; the value types live in ``found``.
__all__ = [
    "DEFAULT_MAX_DEPTH",
    "GUESSED",
    "TWO_READINGS",
    "Extraction",
    "Prefer",
    "ReplyFailure",
    "ReplyFailureKind",
    "choose",
    "extract",
    "extract_partial",
    "refuse_too_large",
    "report_no_json",
]

Prefer = Literal["first", "last"]

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable

DEFAULT_MAX_DEPTH: Final = 200

_FILLS_NOTHING: Final = (
    "none of the schema's fields is in the JSON: every value would be a default"
)
_FILLS_NOTHING_ERRORS: Final = (FieldError("", _FILLS_NOTHING, ""),)


def extract(
    text: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    schema: Schema | None = None,
    prefer: Prefer = "first",
    close_truncated: bool = False,
    trim_runaway_newlines: bool = False,
    repair: Repair = "safe",
    cut_off: bool = False,
) -> Extraction | ReplyFailure:
    r"""Find and decode the JSON value a reply holds.

    The reply is prepared once (reasoning and markup blanked) for every stage;
    clean JSON is answered before that. Without a schema, a value after a
    broken candidate that repairs to another value is two readings.

    Args:
        text: The model's reply.
        max_chars: Longer replies are refused before any scan.
        max_depth: Deeper nesting is a failure.
        schema: When given, the first candidate that validates wins, and a
            reply that is wholly one JSON scalar is a candidate too.
        prefer: ``"last"`` tries each group of candidates from the end of the
            reply (objects still before arrays).
        close_truncated: Close a candidate the reply ends inside (see
            ``_recover``) instead of failing.
        trim_runaway_newlines: With ``close_truncated``, a string at depth 1
            cut inside a run of ``\n`` escapes loses the run (a model that
            wrote newlines until its token limit).
        repair: When no candidate succeeds as it stands, repair the failing
            candidates' syntax (``_repair``) and try them again, in order.
            ``"safe"``: a value only a repair that chooses reads (``guesses``)
            is refused with the failure ``repair=False`` gives.
        cut_off: The model said it stopped at its token limit: with
            ``close_truncated``, a reply that ends right after a closer is
            closed as a cut (else it is an error: a lost closer reads so too).

    Returns:
        The first candidate that decodes (and validates), or the failure to
        report: the first failing candidate's (as it stood), else ``no_json``.

    Example:
        >>> extract('<think>{"draft": 1}</think> Answer: {"a": 1}').value
        {'a': 1}
    """
    text = str(text)
    if len(text) > max_chars:
        return refuse_too_large(text, max_chars)
    scan = _scan(
        (
            max_depth,
            schema is not None,
            close_truncated,
            trim_runaway_newlines,
            cut_off,
            prefer == "last",
        )
    )
    strict_first = prefer == "first"
    fast = _read_clean_reply(text, scan)
    stopped = None
    if isinstance(fast, Stopped):
        stopped, fast = fast, None
    if fast is not None and (fast.failure is None or not repair):
        found = choose((fast,), schema, strict_first=strict_first)
        if found is not None and schema is None:  # always, for one candidate
            return found
        if found is not None and schema is not None:
            found = unless_repeated(text, found)
            if repair and isinstance(found, ReplyFailure):
                return reread(text, found, schema, max_depth=max_depth)
            return found
    prepared = prepare_reply(text)
    if fast is None and prepared.text is not text:  # <think> blanked: no scan
        fast = _read_clean_prepared(text, prepared, scan)
    stop = stopped if prepared.text is text else None  # where orjson stopped in it
    cut = (fast,) if fast is not None else read_cut_fence(prepared, scan)
    read = cut or read_candidates(prepared, scan.reading(stop))
    if (
        isinstance(read, Candidate)
        and schema is None
        and strict_first
        and not read.rival
        and not (repair and may_be_one_broken_value(prepared.text, stop))
    ):  # one candidate that decodes: none to compare; its repairs never choose
        found = Extraction(read.value, (read.start, read.end), read.step, read.repairs)
        return recheck(prepared, found, max_depth, schema=None)
    candidates: Iterable[Candidate] = (read,) if isinstance(read, Candidate) else read

    def repairs() -> RepairPass:
        return RepairPass(prepared, scan, source=text, stop=stop)

    if not repair:
        tried: list[Candidate] = []
        found = choose(recorded(candidates, tried), schema, strict_first=strict_first)
        if schema is None and strict_first and isinstance(found, Extraction):
            found = broken_before(found, tried, repairs) or found
        found = found or report_no_json(prepared)
        return recheck(prepared, found, max_depth, schema=schema)
    whole = fast is None and may_be_one_broken_value(prepared.text, stop)
    if whole or not strict_first:
        picked = _choose_repairing(
            candidates, repairs(), schema, prefer=prefer, whole=whole
        )
    else:  # the strict reading first, at its own cost: no repair built yet
        tried = []
        strict = choose(recorded(candidates, tried), schema, strict_first=True)
        picked = _repair_after_strict(strict, tried, repairs, schema)
    found = recheck(prepared, picked, max_depth, schema=schema)
    if schema is not None and isinstance(found, ReplyFailure):
        found = reread(text, found, schema, max_depth=max_depth)
    if repair != "safe" or not isinstance(found, Extraction):
        return found
    chosen = guesses(found.repairs, text, found.span)
    if not chosen:
        return found
    strict = extract(
        text,
        max_chars=max_chars,
        max_depth=max_depth,
        schema=schema,
        prefer=prefer,
        close_truncated=close_truncated,
        trim_runaway_newlines=trim_runaway_newlines,
        repair=False,
        cut_off=cut_off,
    )
    return strict if isinstance(strict, ReplyFailure) else refuse_guess(found, chosen)


_ScanKey = tuple[int, bool, bool, bool, bool, bool]


@functools.lru_cache(maxsize=64)
def _scan(key: _ScanKey) -> Scan:
    """One frozen ``Scan`` per set of :func:`extract`'s options.

    ``key``: ``max_depth``, then whether to read scalars, close a cut, trim
    runaway newlines, take a cut-off reply's closer as a cut, prefer the last.
    """
    max_depth, scalars, close_truncated, trim, cut_off, last = key
    return Scan(
        max_depth,
        scalars=scalars,
        close_truncated=close_truncated,
        trim_runaway_newlines=trim,
        cut_off=cut_off,
        last=last,
    )


def _choose_repairing(
    candidates: Iterable[Candidate],
    repair_pass: RepairPass,
    schema: Schema | None,
    *,
    prefer: Prefer,
    whole: bool,
) -> Extraction | ReplyFailure:
    """The winner when failing candidates may be repaired.

    Args:
        candidates: The strict candidates, in the order they are tried.
        repair_pass: The repairs of the same prepared reply.
        schema: What a value must match, if anything.
        prefer: ``"first"``: every candidate as it stands, then each repaired;
            ``"last"``: each candidate, then its repair, from the end.
        whole: Try the reply as one broken value first.
    """
    if whole:
        candidate = repair_pass.repair_whole()
        if candidate is not None:
            found = choose((candidate,), schema)
            if isinstance(found, Extraction):
                return found
    if prefer == "last":
        # The last candidate that decodes, strictly or after repair.
        repaired: dict[int, Candidate] = {}
        either = (
            alt
            for candidate in candidates
            for alt in (
                candidate,
                *noted(repair_pass.repair_each((candidate,)), repaired),
            )
        )
        found_last = choose(either, schema, repaired=repaired.keys())
        return found_last or report_no_json(repair_pass.prepared)
    tried: list[Candidate] = []
    strict = choose(recorded(candidates, tried), schema, strict_first=True)
    return _repair_after_strict(strict, tried, lambda: repair_pass, schema)


def _repair_after_strict(
    strict: Extraction | ReplyFailure | None,
    tried: list[Candidate],
    repairs: Callable[[], RepairPass],
    schema: Schema | None,
) -> Extraction | ReplyFailure:
    """The winner once the strict candidates (``tried``, in order) gave ``strict``.

    ``repairs`` makes the repairs of the same prepared reply when first needed
    (a strict value with no broken candidate before or beside it needs none).
    """
    if isinstance(strict, ReplyFailure) and strict.detail == TWO_READINGS:
        return strict  # final: no repair reads past two readings
    if isinstance(strict, Extraction):
        if schema is not None and any(c.failure is not None for c in tried):
            # A broken candidate whose repair gives another value: two readings.
            fixed = list(repairs().repair_each(tried))
            both = sorted([*tried, *fixed], key=lambda c: c.start)
            ids = {id(c) for c in fixed}
            checked = choose(both, schema, strict_first=True, repaired=ids)
            if isinstance(checked, ReplyFailure):
                return checked
        return strict if schema else broken_before(strict, tried, repairs) or strict
    repair_pass = repairs()
    repaired_each = choose(repair_pass.repair_each(tried), schema, strict_first=True)
    if isinstance(repaired_each, Extraction):
        return repaired_each
    return strict or repaired_each or report_no_json(repair_pass.prepared)


def extract_partial(
    text: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    trim_runaway_newlines: bool = False,
    prefer: Prefer = "first",
    repair: bool = False,
) -> Any:
    r"""The value so far of a reply still streaming in, or ``None``.

    Found as :func:`extract` finds it, with the cut candidate closed, and
    holding only what is final: a number at the cut may still grow and is
    left out; a string at the cut is kept as far as it goes.

    With ``repair``, the last member of the root (or its last item) is left
    out too, until the next one starts: the final repair may still put it
    in a container whose opener was lost (``{"tags": "a", "b"]``), or read a
    lost ``{`` before its value (``{"args": "q": 1}``); a member followed by
    the next key and its colon, or an item by the next item, keeps its place.

    Example:
        >>> extract_partial('Sure! ```json\n{"name": "Ada", "age": 3')
        {'name': 'Ada'}
        >>> extract_partial('{"tags": "a", "n": 1, "b": "c', repair=True)
        {'tags': 'a', 'n': 1}
    """
    text = str(text)
    if len(text) > max_chars:
        return None
    scan = Scan(
        max_depth,
        close_truncated=True,
        final_only=True,
        trim_runaway_newlines=trim_runaway_newlines,
        last=prefer == "last",
    )
    fast = _read_clean_reply(text, scan)
    candidates: Iterable[Candidate] = (
        (fast,)
        if isinstance(fast, Candidate)
        else iter_candidates(prepare_reply(text), scan)
    )
    found = choose(candidates, None)
    if not isinstance(found, Extraction):
        return None
    return _settled(found.value) if repair else found.value


def _settled(value: Any) -> Any:
    """A partial root without its last member or item (see ``extract_partial``)."""
    if isinstance(value, dict) and value:
        last = next(reversed(value))
        return {key: item for key, item in value.items() if key != last}
    if isinstance(value, list):
        return value[:-1]
    return value


def _read_clean_reply(
    text: str, scan: Scan, repairs: tuple[str, ...] = (), *, close: bool = True
) -> Candidate | Stopped | None:
    """The reply is clean JSON, or clean JSON cut off: one orjson call, no scan.

    When orjson runs out of text without meeting an error, the whole reply is
    one JSON value cut off: with ``close_truncated`` (and ``close``) it is
    closed at once (no other candidate can exist), else the general path
    reports it. Otherwise a reply whose last character is not the closer of
    its first is not read here at all (orjson could only fail on it).
    ``repairs``: those of the candidate (what preparing the reply blanked).
    Where orjson stopped at an error, that stop, for the readers after this one.
    """
    first = NON_SPACE.search(text)
    if first is None or text[first.start()] not in "{[":
        return None
    end = len(text.rstrip(" \t\r\n"))
    close = close and scan.close_truncated
    if not close and text[end - 1] != CLOSER[text[first.start()]]:
        return None
    try:
        value, shallow = loads_within(text, scan.max_depth)
    except orjson.JSONDecodeError as exc:
        if close and exc.msg.startswith(END_OF_DATA):
            place = Place(first.start(), len(text), (), "raw", closed=False)
            cut = DecodeFailure("truncated", exc.pos - first.start(), "cut off")
            return close_or_fail(text, place, scan, cut)
        return Stopped(exc.pos, exc.msg)
    if not shallow:
        return None
    return Candidate(first.start(), end, "raw", repairs, value=value)


def _read_clean_prepared(text: str, prepared: Prepared, scan: Scan) -> Candidate | None:
    """The prepared reply is one clean JSON value (a ``<think>`` block blanked).

    The candidate the scan would find first and alone, read by one orjson
    call: the root of the prose, with what preparing blanked as its repairs.
    Only where nothing else could be a candidate: no tool call read from
    markup, and no backtick (a fence the scan might take apart); a cut is
    left to the scan.
    """
    masked = prepared.text
    if masked is text or prepared.tool_calls or "`" in masked:
        return None
    found = _read_clean_reply(masked, scan, prepared.repairs, close=False)
    return found if isinstance(found, Candidate) else None


def choose(
    candidates: Iterable[Candidate],
    schema: Schema | None,
    *,
    strict_first: bool = False,
    repaired: Container[int] = frozenset(),
) -> Extraction | ReplyFailure | None:
    """The first candidate that decodes and validates, else the first failure.

    Args:
        candidates: In the order they are tried.
        schema: What a value must match, if anything.
        strict_first: A value that validates as it stands wins over an
            earlier one read through the schema (keys matched …).
        repaired: The ``id`` of each candidate that is a syntax repair.

    Returns:
        The winner, the first failure, or ``None`` when there was no candidate.
        A value that validates only because every field has a default (it
        holds none of the schema's keys: an example, or keys the model
        misspelt) never wins: it fills nothing from the reply, so it fails.
        With a schema, every candidate is read: where one validates as it
        stands and another only read through the schema or repaired, with a
        different value, those are two readings, a ``schema`` failure naming
        both (``_schema.two_readings``).
    """
    found = read_all(candidates, schema, repaired, _FILLS_NOTHING_ERRORS)
    if found.clash is not None:
        return _two_readings(*found.clash)
    pick = (found.standing or found.read) if strict_first else found.winner
    if pick is not None:
        candidate = pick.candidate
        span = (candidate.start, candidate.end)
        repairs = pick.repairs
        if "truncation_closed" in repairs and schema and defaulted(pick.value):
            repairs = (*repairs, "unreached_fields_defaulted")
        return Extraction(pick.value, span, candidate.step, repairs)
    failed = found.failure
    if failed is None:
        return None
    if failed.failure is not None:
        return _to_reply_failure(failed, failed.failure)
    return ReplyFailure(
        "schema",
        "",
        pos=failed.start,
        start=failed.start,
        errors=found.errors or (),
        value=failed.value,
        recovered="truncation_closed" in failed.repairs,
    )


def _two_readings(first: Reading, second: Reading) -> ReplyFailure:
    """Two candidates, one as it stands and one read or repaired: which one?"""
    error = two_readings(
        (first.value, first.candidate.start, first.read),
        (second.value, second.candidate.start, second.read),
    )
    start = first.candidate.start
    return ReplyFailure(
        "schema", "", pos=start, start=start, detail=TWO_READINGS, errors=(error,)
    )


def _to_reply_failure(candidate: Candidate, failure: CandidateFailure) -> ReplyFailure:
    """A candidate's failure as the reply's (it is the first one met)."""
    return ReplyFailure(
        failure.kind,
        failure.reason,
        pos=failure.pos,
        start=candidate.start,
        detail=failure.detail,
    )


def refuse_too_large(text: str, max_chars: int) -> ReplyFailure:
    return ReplyFailure("too_large", f"{len(text)} characters, over {max_chars}")


def report_no_json(prepared: Prepared) -> ReplyFailure:
    detail = "reasoning_only" if prepared.only_reasoning else ""
    return ReplyFailure("no_json", "", detail=detail)
