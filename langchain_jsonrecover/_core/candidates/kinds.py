"""The kinds of a candidate: where it lies, how it decoded, how it was read.

Pure dataclasses and named tuples, no LangChain imports. ``_candidates``
finds and decodes the candidates; ``_candidate_order`` orders the spans they
come from; both speak of them in these types.

Example:
    >>> from langchain_jsonrecover._core.candidates.kinds import Place
    >>> Place(0, 2, (), "prose", closed=True).end
    2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:
    from langchain_jsonrecover._core.decode.tolerant import Stopped

Step = Literal["raw", "fence", "prose", "regex"]
CandidateFailureKind = Literal["invalid_json", "truncated", "too_deep"]


@dataclass(frozen=True, slots=True)
class Scan:
    """How to read the candidates of one reply."""

    max_depth: int
    """Deeper nesting is a failure."""
    scalars: bool = False
    """A reply that is wholly one JSON scalar is a candidate (with a schema)."""
    close_truncated: bool = False
    """Close a candidate the reply ends inside, instead of failing."""
    final_only: bool = False
    """When closing, the reply is a stream still arriving."""
    cut_off: bool = False
    """The model said it stopped at its token limit: a reply that ends right
    after a closer is closed as a cut (else two readings: an error)."""
    trim_runaway_newlines: bool = False
    """When closing, trim a run of ``\\n`` escapes ending a depth-1 string."""
    last: bool = False
    """``prefer="last"``: within each group of candidates (json fences,
    untagged fences, objects in prose, arrays in prose), the last comes first."""
    stop: Stopped | None = None
    """Where orjson stopped in all of the prepared text (its first strict
    read): a candidate that is the rest of that text is not decoded again to
    learn it. Only for the candidates of that one text (never a repair's)."""

    def reading(self, stop: Stopped | None) -> Scan:
        """These options, for the candidates of a text orjson stopped in at ``stop``.

        Example:
            >>> from langchain_jsonrecover._core.decode.tolerant import Stopped
            >>> Scan(9).reading(Stopped(3, "trailing comma is not allowed")).stop.pos
            3
        """
        if stop is None:
            return self
        # Built field by field: ``dataclasses.replace`` costs twice as much,
        # about half of what orjson takes on a 300-byte reply.
        return Scan(
            self.max_depth,
            scalars=self.scalars,
            close_truncated=self.close_truncated,
            final_only=self.final_only,
            cut_off=self.cut_off,
            trim_runaway_newlines=self.trim_runaway_newlines,
            last=self.last,
            stop=stop,
        )


class CandidateFailure(NamedTuple):
    """Why one candidate gave no value."""

    kind: CandidateFailureKind
    """``invalid_json``, ``truncated`` (the reply stops inside it) or ``too_deep``."""
    reason: str
    """The decoder's reason in plain words."""
    pos: int
    """Offset in the reply where decoding stopped."""
    detail: str = ""
    """``"nested_value"``: a value inside an object whose opener is missing."""


class Candidate(NamedTuple):
    """One place in the reply that may hold the answer, decoded.

    Named tuples, this and :class:`CandidateFailure`, not frozen dataclasses:
    JSON-like prose gives one of each per brace, and a tuple is made four
    times as fast.
    """

    start: int
    end: int
    step: Step
    repairs: tuple[str, ...]
    value: Any = None
    failure: CandidateFailure | None = None
    cut_key: str | None = None
    """Closed from a cut that removed this key's value (see ``_recover``)."""
    rival: tuple[Any, ...] = ()
    """Another reading of the same text, when the repair had two: the value
    with a stray closer dropped where ``value`` has an opener inserted
    (``{"a": 1}]``). Only a schema that takes one of them decides."""
    whole: bool = False
    """The structure shows ``[start, end)`` is one value: a repair must read
    all of it."""


class Place(NamedTuple):
    """Where a candidate lies and what is known of it before it is decoded.

    A named tuple, as :class:`Candidate` is: one is built per candidate
    before it is decoded, at a third of a frozen dataclass's cost (on a
    300-byte fenced reply, a tenth of what decoding it costs).
    """

    start: int
    end: int
    """The candidate's text is ``reply[start:end]``."""
    repairs: tuple[str, ...]
    """What was done to the reply to find it (``fence_stripped`` …)."""
    step: Step
    closed: bool
    """Something after it (a closing fence, prose) shows the model went on:
    a cut inside it is a missing closer, not the end of the reply."""
    whole: bool = False
    """It is one value: text after the value inside it is a failure."""
