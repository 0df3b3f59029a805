"""The state of one repair pass: what it expects next, its open containers, its output.

:class:`Pass` is what every step of the pass reads and writes (the text,
the position, the output pieces, the open containers and their marks); the
steps themselves are in ``_repair_pass`` (tokens), ``_repair_strings``
(strings) and ``_repair_brackets`` (closing brackets).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import repeat
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.decode.tolerant import DECODER_DEPTH
from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.ahead import Ahead, Where
from langchain_jsonrecover._core.repair.tokens import match_end

if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

_IN_OBJECT: Final = Where.OBJECT  # (a module constant: enum members read slowly)

Rewritten = tuple[str, bool, int]
"""The strict text, whether the input ran out inside the value, where it stopped."""


class State(IntEnum):
    """What the pass expects next; each state has its own step."""

    KEY_FIRST = 0
    """After ``{``."""
    KEY = 1
    """After a comma in an object."""
    COLON = 2
    """After a key."""
    MEMBER = 3
    """After a colon: a member's value is due."""
    ITEM_FIRST = 4
    """After ``[``."""
    ITEM = 5
    """After a comma in an array."""
    AFTER = 6
    """After a value."""


_ITEM_FIRST: Final = State.ITEM_FIRST  # (a module constant: enum members read slowly)


@dataclass(slots=True)
class Mark:
    """An open container: where it starts in the output, and what closed inside it."""

    piece: int
    """The output piece holding its opening bracket."""
    offset: int = 0
    """The bracket's offset in that piece."""
    object_closed: bool = False
    """An object inside it has closed."""
    array_closed: bool = False
    """An array inside it has closed."""


@dataclass(slots=True, eq=False)
class Pass:
    """One pass over a candidate: what it has read, what it expects, what it wrote.

    Example:
        >>> p = Pass.start('{"a": 1}', {})
        >>> p.state, p.pos, p.stack
        (<State.KEY_FIRST: 0>, 1, ['{'])
    """

    text: str
    """The candidate, from its opening bracket."""
    repairs: dict[str, None]
    """The repairs made so far, in order (a dict used as an ordered set)."""
    ahead: Ahead
    """The quote rule, reading ahead in ``text``."""
    state: State
    """What is expected at ``pos``."""
    out: list[str]
    """The strict text written so far, in pieces."""
    stack: list[str]
    """The opening brackets of the open containers, innermost last."""
    marks: list[Mark]
    """Where each open container starts in ``out``, innermost last."""
    opened: dict[str, int]
    """How many objects (``{``) and arrays (``[``) are open."""
    pos: int = 1
    """Where the next token starts in ``text``."""
    comma_at: int = -1
    """The piece holding the comma before a pending key or item."""
    ticks: list[int] = field(default_factory=list[int])
    """Depths of open containers written in backticks (``"a": `{...}` ``),
    whose closing backtick is due when they close."""
    value_end: int = 1
    """Where the last value ended, before the spaces after it."""
    gap_at: int = 0
    """The piece just after that value, where a missing comma goes."""
    result: Rewritten | None = None
    """What the pass wrote once it stopped; ``None`` when it refused the text."""
    inner_quotes: bool = False
    """Every quote the quote rule does not close is text, beside structure or
    after an odd number of inner quotes too (see ``repair_inner_quotes``)."""
    floor: int = 0
    """How many containers opened before the pass started (:meth:`resume`):
    it stops when the one it started in closes."""

    @classmethod
    def start(
        cls, text: str, repairs: dict[str, None], *, inner_quotes: bool = False
    ) -> Pass:
        """Start a pass on ``text`` (opening with ``{`` or ``[``) after its bracket."""
        first = text[0]
        return cls(
            text=text,
            repairs=repairs,
            ahead=Ahead(text),
            state=State.KEY_FIRST if first == "{" else State.ITEM_FIRST,
            out=[first],
            stack=[first],
            marks=[Mark(0)],
            opened={"{": int(first == "{"), "[": int(first == "[")},
            inner_quotes=inner_quotes,
        )

    @classmethod
    def resume(
        cls, text: str, start: int, outer: str, repairs: dict[str, None]
    ) -> Pass:
        """The pass over all of ``text`` as it is at the object opened at ``start``.

        ``text[:start]`` is strict JSON with the containers ``outer`` open
        (outermost first), which the pass copies as it stands, making no
        repair and keeping no backtick due: what a step reads of the pass
        as it opens the object is its stack and the counts of open brackets
        (taken from ``outer``), the text (all of it, looked behind and ahead
        alike) and where the object starts. The output, the marks and the
        offsets of pieces start with the object: a step reads them only
        relative to the innermost container's mark, and the marks of the
        containers below only once the object has closed, where this pass
        stops (``floor``).

        Example:
            >>> p = Pass.resume('[1, {"a": 1}]', 4, "[", {})
            >>> p.stack, p.pos, p.opened
            (['[', '{'], 5, {'{': 1, '[': 1})
        """
        stack = [*outer, "{"]
        return cls(
            text=text,
            repairs=repairs,
            ahead=Ahead(text),
            state=State.KEY_FIRST,
            out=["{"],
            stack=stack,
            marks=[Mark(0) for _ in stack],
            opened={"{": stack.count("{"), "[": stack.count("[")},
            pos=start + 1,
            value_end=start + 1,
            floor=len(outer),
        )

    def take(self, pattern: re.Pattern[str]) -> None:
        """Copy the run ``pattern`` takes at ``pos`` (maybe empty) to the output."""
        pos = self.pos
        end = match_end(pattern, self.text, pos)
        if end > pos:
            self.out.append(self.text[pos:end])
            self.pos = end

    def refuse(self) -> bool:
        """Stop: the text cannot be repaired without a guess about its data."""
        self.result = None
        return False

    def cut(self) -> bool:
        """Stop: the text ended inside the value; what was written is its prefix."""
        self.result = "".join(self.out), True, len(self.text)
        return False

    def finish(self) -> bool:
        """Stop: the top-level value closed just before ``pos``."""
        self.result = "".join(self.out), False, self.pos
        return False

    def parent(self) -> str:
        """The bracket of the container around the innermost one, ``""`` at the top."""
        stack = self.stack
        return stack[-2] if len(stack) > 1 else ""

    def other_open(self, where: Where) -> bool:
        """Whether a bracket of the other kind than the string's container is open."""
        return self.opened["[" if where == _IN_OBJECT else "{"] > 0

    def value_closes(self, end: int, where: Where) -> bool:
        """Whether a value ending at ``end`` is followed by what may follow it."""
        stack = self.stack
        parent = stack[-2] if len(stack) > 1 else ""
        other_open = self.opened["[" if where == _IN_OBJECT else "{"] > 0
        return self.ahead.closes(end, where, parent, other_open)

    def push(self, bracket: str) -> None:
        """Open a container at ``pos``, written as its own piece."""
        self.marks.append(Mark(len(self.out)))
        self.out.append(bracket)
        self.stack.append(bracket)
        self.opened[bracket] += 1
        self.pos += 1

    def open_arrays(self) -> bool:
        """Open a run of ``[`` at once: deep nesting costs no step per level.

        A run that nests deeper than the decoder reads is refused at once.
        """
        end = match_end(tok.OPEN_ARRAYS, self.text, self.pos)
        run = self.text[self.pos : end]
        count = run.count("[")
        if len(self.stack) + count > DECODER_DEPTH:
            return self.refuse()
        piece = len(self.out)
        self.out.append(run)
        self.stack.extend("[" * count)
        # One mark per bracket, built by map (no Python step per mark); a run
        # of only brackets needs no search for their offsets.
        offsets = (
            range(count)
            if count == len(run)
            else [i for i, c in enumerate(run) if c == "["]
        )
        with collector_paused(count):
            self.marks.extend(map(Mark, repeat(piece, count), offsets))
        self.opened["["] += count
        self.pos = end
        self.state = _ITEM_FIRST
        return True

    def pop(self) -> None:
        """Close the top container: the one below now holds a closed container."""
        kind = self.stack.pop()
        self.opened[kind] -= 1
        marks = self.marks
        marks.pop()
        if marks:
            if kind == "{":
                marks[-1].object_closed = True
            else:
                marks[-1].array_closed = True

    def note_containers(self, start: int, end: int) -> None:
        """Note that a run the hot path took holds a container.

        A bracket in a string counts too: that only makes a later guess more
        careful.
        """
        mark = self.marks[-1]
        if not mark.object_closed and self.text.find("{", start, end) >= 0:
            mark.object_closed = True
        if not mark.array_closed and self.text.find("[", start, end) >= 0:
            mark.array_closed = True

    def content(self, mark: Mark, upto: int | None = None) -> str:
        """The strict text written for a container so far, from its bracket."""
        return "".join(self.out[mark.piece : upto])[mark.offset :]


_MANY_MARKS: Final = 10_000  # marks made at once before the collector is paused


@contextmanager
def collector_paused(count: int) -> Iterator[None]:
    """Pause the cycle collector while ``count`` marks are made, if many.

    A hostile run of a million ``[`` makes a million marks; the collector,
    triggered every few hundred allocations, would scan the growing list each
    time (three quarters of the run's cost). The marks hold no cycles, so one
    collection afterwards, if any, is enough. A collector the caller turned
    off stays off.
    """
    if count < _MANY_MARKS or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
