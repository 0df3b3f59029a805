"""Read a reply's candidates against a schema: the first of each kind, or a clash.

Pure functions over decoded candidates (``_candidates``) and a ``Schema``; no
LangChain imports. ``_extract.choose`` turns what is found here into the
caller's ``Extraction`` or ``ReplyFailure``.

A candidate's value either validates as it stands, or only once read through
the schema (``_align``: keys matched, an enum's case, a wrapper unwrapped …)
or repaired (``repair=True``). Where one of each validates with different
values, the reply holds two readings and no order of candidates may choose
between them: that is a clash, reported with both. A candidate the reading
refuses (``_schema_keys``), or several values in one place, before any value
validates ends the search: it holds the answer in a form to ask again for.
Without a schema, the first candidate that decodes is all there is to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from langchain_jsonrecover._core.candidates.kinds import CandidateFailure
from langchain_jsonrecover._core.candidates.order import SEVERAL
from langchain_jsonrecover._core.found import Extraction, ReplyFailure
from langchain_jsonrecover._core.repair.python_reads import STRAY_BRACE
from langchain_jsonrecover._core.schema.validate import (
    Accepted,
    FieldError,
    Rejected,
    is_model,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Iterator

    from langchain_jsonrecover._core.candidates.kinds import Candidate
    from langchain_jsonrecover._core.candidates.repair import RepairPass
    from langchain_jsonrecover._core.schema.validate import Schema

_OPENS_MEMBER: Final = re.compile(r'\{[ \t\r\n]*+"[^"\\\n]{1,80}"[ \t\r\n]*+:')
"""An object's opener, a quoted key and its colon: JSON, not a placeholder."""
_TWO_CLOSER_READINGS: Final = (
    "a stray closer after the JSON, or a lost opener before it (two readings)"
)
_CLOSER_INSIDE: Final = (
    "a stray closer after the JSON, or one too many inside it (two readings)"
)
_SETTLED: Final = frozenset({"character_inserted", STRAY_BRACE})
"""The names of the readings ``settle`` chooses among, replaced by its choice's."""


@dataclass(frozen=True, slots=True)
class Reading:
    """A candidate whose value validates, and how it was had."""

    candidate: Candidate
    value: Any
    """The validated value."""
    repairs: tuple[str, ...]
    """The candidate's repairs, then the schema's."""
    read: bool
    """Read through the schema or repaired, not as it stands."""


@dataclass(slots=True)
class Readings:
    """What the candidates gave, each kind's first, in the order tried."""

    standing: Reading | None = None
    """The first value that validates as it stands."""
    read: Reading | None = None
    """The first value read through the schema, or repaired."""
    winner: Reading | None = None
    """The first of the two."""
    failure: Candidate | None = None
    """The first candidate that failed."""
    errors: tuple[FieldError, ...] | None = None
    """Its schema errors (``None``: it did not decode)."""
    clash: tuple[Reading, Reading] | None = None
    """Two readings with different values, in the reply's order: one as it
    stands, one read or repaired."""


def read_all(
    candidates: Iterable[Candidate],
    schema: Schema | None,
    repaired: Container[int],
    fills_nothing: tuple[FieldError, ...],
) -> Readings:
    """Read every candidate (with a schema), stopping at a clash.

    Args:
        candidates: In the order they are tried.
        schema: What a value must match; ``None``: the first that decodes.
        repaired: The ``id`` of each candidate that is a syntax repair.
        fills_nothing: The errors of a value that fills no field.
    """
    out = Readings()
    # Per kind (as it stands, read), its first value unlike the kind's first.
    alts: list[Reading | None] = [None, None]
    for candidate in candidates:
        if candidate.rival:
            candidate = settle(candidate, schema)  # noqa: PLW2901 - one of its readings
        if candidate.failure is not None:
            if out.failure is None:
                out.failure = candidate
            if candidate.failure.detail == SEVERAL and out.winner is None:
                # Several values in one place: the answer, in a form to ask
                # again for; an earlier draft or a later note is not it.
                out.failure, out.errors = candidate, None
                return out
            continue
        if schema is None:
            out.winner = out.standing = Reading(
                candidate, candidate.value, candidate.repairs, read=False
            )
            return out
        verdict = (
            schema.accept(candidate.value)
            if candidate.cut_key is None
            else cut_value(candidate.cut_key)
        )
        if isinstance(verdict, Accepted) and (
            verdict.repairs or not schema.fills_nothing(candidate.value)
        ):
            read = verdict.aligned or id(candidate) in repaired
            found = Reading(
                candidate, verdict.value, (*candidate.repairs, *verdict.repairs), read
            )
            # Against the other kind's first value, or its second where the
            # first agrees (the other kind then holds two values: one differs).
            first, second = (out.standing, alts[0]) if read else (out.read, alts[1])
            other = first if first is None or first.value != found.value else second
            if other is not None:
                earlier = other.candidate.start < candidate.start
                out.clash = (other, found) if earlier else (found, other)
                return out
            mine = out.read if read else out.standing
            if mine is None:
                if read:
                    out.read = found
                else:
                    out.standing = found
            elif alts[read] is None and mine.value != found.value:
                alts[read] = found
            out.winner = out.winner or found
            continue
        if out.failure is None:
            out.failure = candidate
            out.errors = (
                fills_nothing if isinstance(verdict, Accepted) else verdict.errors
            )
        if (
            not isinstance(verdict, Accepted)
            and (verdict.refused or "values_listed" in candidate.repairs)
            and not out.winner
        ):
            # The answer, in a form the reading refuses (or several values
            # the schema does not take as a list): a later value is not the
            # answer either (an example, a format note), nor an earlier draft.
            out.failure, out.errors = candidate, verdict.errors
            return out
    return out


def noted(
    candidates: Iterable[Candidate], into: dict[int, Candidate]
) -> Iterator[Candidate]:
    """The candidates, each kept in ``into`` by ``id`` (alive, so ids stay theirs)."""
    for candidate in candidates:
        into[id(candidate)] = candidate
        yield candidate


def settle(candidate: Candidate, schema: Schema | None) -> Candidate:
    """One reading of a candidate the repair read several ways, or a failure.

    A root and a closer after it is the root with an opener lost (the value,
    an array of the root: ``{"a": 1}]``) or a stray closer (the root, its
    rival); a root and a ``}`` after it (``STRAY_BRACE``) is the root, or a
    ``}`` slipped in inside it (each rival: ``{"a": {"b": 1}, "c": 2}}``).
    A schema decides when exactly one of them validates as it stands (an
    object schema takes the root, a list schema the array), else when exactly
    one validates at all.
    """
    readings: tuple[tuple[Any, str], ...] = (
        (candidate.value, "opener_inserted"),
        (candidate.rival[0], STRAY_BRACE),
    )
    reason = _TWO_CLOSER_READINGS
    if STRAY_BRACE in candidate.repairs:
        readings = (
            (candidate.value, STRAY_BRACE),
            *((value, "character_dropped") for value in candidate.rival),
        )
        reason = _CLOSER_INSIDE
    if schema is not None:
        verdicts = [(schema.accept(value), value, name) for value, name in readings]
        for strict in (True, False):
            fits = [
                (value, name)
                for verdict, value, name in verdicts
                if isinstance(verdict, Accepted)
                and (not strict or not (verdict.repairs or verdict.aligned))
            ]
            if len(fits) == 1:
                value, name = fits[0]
                kept = tuple(r for r in candidate.repairs if r not in _SETTLED)
                return candidate._replace(value=value, repairs=(*kept, name), rival=())
    failure = CandidateFailure("invalid_json", reason, candidate.start)
    return candidate._replace(value=None, failure=failure, rival=())


def cut_value(key: str) -> Rejected:
    """A member the cut removed: its default would stand for the reply's value."""
    message = (
        "the reply was cut off in this field's value: its default would stand "
        "for what the reply was writing"
    )
    return Rejected((FieldError(key, message, ""),))


def defaulted(value: Any) -> bool:
    """Whether a validated value left a field of some model to its default."""
    stack = [value]
    while stack:
        node = stack.pop()
        if is_model(node):
            if len(node.model_fields_set) < len(type(node).model_fields):
                return True
            stack.extend(getattr(node, name) for name in type(node).model_fields)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
    return False


def broken_before(
    found: Extraction, tried: Iterable[Candidate], repairs: Callable[[], RepairPass]
) -> ReplyFailure | None:
    """A broken candidate before the chosen value: two readings, unless it agrees.

    Without a schema, a value that decodes after an earlier candidate that
    does not (``Answer: {"a": 1, "b" 2}`` then ``Example: {"a": 0, "b": 0}``)
    holds two readings: the broken one is the answer with a slip, or a draft
    the later value replaces. That is an ``invalid_json`` failure where the
    broken candidate's repair gives another value, or where it has no repair
    and opens in prose as an object does, with a quoted key and its colon
    (``{"a":``; a broken fence before one that decodes stays documented: the
    first block that decodes wins);
    ``None`` where no earlier candidate broke, each repairs to ``found``'s
    value itself, or none repairs and none opens so (``Use {name: value}``).
    ``repairs`` is called only when an earlier candidate broke.
    """
    start, value = found.span[0], found.value
    broken = [
        c
        for c in tried
        if c.start < start
        and c.failure is not None
        and c.failure.kind == "invalid_json"
    ]
    if not broken:
        return None
    repair_pass = repairs()
    fixed = {c.start: c for c in repair_pass.repair_each(broken) if c.failure is None}
    text = repair_pass.prepared.text
    for candidate in broken:
        other = fixed.get(candidate.start)
        if (
            other is None
            and candidate.step != "fence"
            and _OPENS_MEMBER.match(text, candidate.start)
        ):
            reason = (
                "a broken JSON value comes before the one that decodes: the "
                "answer with a slip, or a draft? (two readings)"
            )
        elif other is not None and other.value != value:
            reason = (
                f"a broken JSON value before the one that decodes reads "
                f"{_short(other.value)} once repaired, the later one "
                f"{_short(value)}: the answer with a slip, or a draft? "
                "(two readings)"
            )
        else:
            continue
        at = candidate.start
        return ReplyFailure("invalid_json", reason, pos=at, start=at)
    return None


def _short(value: Any) -> str:
    """A value's repr, cut to 60 characters for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def recorded(
    candidates: Iterable[Candidate], into: list[Candidate]
) -> Iterator[Candidate]:
    """The candidates, each kept in ``into`` as it is tried."""
    for candidate in candidates:
        into.append(candidate)
        yield candidate
