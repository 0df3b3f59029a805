"""Find the JSON-like spans of a reply: balanced brackets in prose.

Pure functions on ``str``; no LangChain imports.

One pass, one stack, no recursion. A bracket opens a frame
(:mod:`~langchain_jsonrecover._core.spans.frames`) of the kind that the first
character after it shows (:mod:`~langchain_jsonrecover._core.spans.kinds`): plainly
JSON, maybe JSON (a bare first key), or prose.

JSON-like spans that no JSON-like span encloses are the candidates. Strings are
tracked inside JSON-like frames only, so an apostrophe or a stray quote in prose
cannot hide the JSON after it.

A candidate root is first handed to the decoder as it stands: orjson reads a
clean value at C speed and says where it ends, and the scan resumes there. The
text handed over is bounded by a budget proportional to the input, which keeps
the whole scan linear however many candidates the reply holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.decode.skip import (
    COMMENT_END,
    skip_comment,
    skip_string,
)
from langchain_jsonrecover._core.decode.tolerant import Decoded, DecodeFailure, decode
from langchain_jsonrecover._core.spans.after import (
    AFTER_ROOT,
    LOOK,
    QUOTE_AFTER_ROOT,
    after_key,
    cut_key_after,
)
from langchain_jsonrecover._core.spans.flat import (
    PROSE_BRACES,
    SKIP_WINDOW,
    take_flat_objects,
)
from langchain_jsonrecover._core.spans.frames import (
    Frame,
    close_run,
    pop_frame,
    pop_run_until,
    push_run,
    skip_nested,
    tokens_of,
)
from langchain_jsonrecover._core.spans.kinds import JSON, MAYBE, PROSE, Span, classify

if TYPE_CHECKING:
    from langchain_jsonrecover._core.decode.tolerant import Stopped

_OPENERS: Final = re.compile(r"[\[{]")
_SPACE: Final = re.compile(r"\s*")


def find_spans(
    text: str,
    lo: int,
    hi: int,
    *,
    max_depth: int,
    budget: list[int],
    stop: Stopped | None = None,
) -> list[Span]:
    """List the candidate spans of ``text[lo:hi]`` in text order.

    Candidate extents follow the structure: a closer of the wrong kind at a
    candidate's top level does not end it (it is a stray), and a closed
    candidate whose following text continues the structure (``, "key":``
    after an object, or a closer that matches nothing before prose resumes,
    after one or more values separated by commas) closed too early: the
    whole is one broken span. Values separated by commas in prose stay
    separate when nothing after them closes what they did not open.

    Args:
        text: The reply (reasoning masked).
        lo: Where to start.
        hi: Where to stop; a span still open there is unclosed.
        max_depth: Passed to the decoder for spans decoded during the scan.
        budget: A one-item list: how many characters the scan may still hand
            to the decoder untrimmed (shared across calls on one reply).
        stop: Where orjson stopped in all of ``text``, if a read learnt it.

    Returns:
        JSON-like spans that no JSON-like span encloses.

    Example:
        >>> [(s.start, s.end) for s in find_spans('see [1]. {"a": {"b": 2}}', 0, 24,
        ...                                       max_depth=9, budget=[99])]
        [(4, 7), (9, 24)]
        >>> [(s.start, s.end, s.broken) for s in find_spans('{"a": 1}}, "b": 2}', 0, 18,
        ...                                                 max_depth=9, budget=[99])]
        [(0, 18, True)]
    """
    first = _OPENERS.search(text, lo, hi)
    if first is None:
        return []  # prose only: nothing to set up
    scan = _Scan(text, lo, hi, max_depth, budget, first.start(), stop)
    scan.run()
    return scan.spans


@dataclass(slots=True)
class _Scan:
    """One :func:`find_spans` call: the text, the frames open, the spans found."""

    text: str
    lo: int
    hi: int
    max_depth: int
    budget: list[int]
    pos: int
    stop: Stopped | None  # orjson's stop in all of the text, known
    spans: list[Span] = field(default_factory=list)
    stack: list[Frame] = field(default_factory=list)
    open_count: dict[str, int] = field(default_factory=lambda: {"{": 0, "[": 0})
    chain: int = -1
    """The first span of a run of roots apart only by commas (-1: none)."""
    root_end: int = -1
    """Where a root just closed (its span is the last one; -1: none)."""
    stopped: int = -1
    """Where the decoder stopped in the root that just failed (-1: not decoded)."""
    failure: DecodeFailure | None = None
    """The decoder's failure on the root that just failed (from its opener to
    the limit)."""

    def run(self) -> None:
        """Walk the text once; frames still open at the limit are unclosed."""
        while True:
            if self.root_end >= 0 and self._resume_after_root():
                continue
            opener = self._next_in_frame() if self.stack else self._next_in_prose()
            if opener is None:
                break
            if opener >= 0 and self._open(opener):
                break
        while self.stack:
            _finish(self.stack.pop(), self.spans, self.hi, closed=False)

    def _resume_after_root(self) -> bool:
        """Read what follows the root that just closed.

        Returns:
            Whether the scan resumes at once past a span merged up to a
            stray closer.
        """
        reopen = self._after_root()
        self.root_end = -1
        if isinstance(reopen, Frame):
            self.stack.append(reopen)
            self.open_count[reopen.char] += 1
            self.chain = -1
            return False
        self.chain = reopen
        if reopen >= 0 and self.spans[-1].end > self.pos:
            self.pos = self.root_end = self.spans[-1].end
            return True
        return False

    def _after_root(self) -> Frame | int:
        """Read what follows the root that just closed (the last span).

        Returns:
            A frame to push when the root closed too early (a key follows: the
            root, with the run of roots before it, is reopened);
            else the index of the first span of the run of roots this one belongs
            to (the run merged into one broken span when a closer that matches
            nothing follows), or ``-1`` when prose resumes.
        """
        text, end, spans = self.text, self.root_end, self.spans
        if end >= self.hi:
            return -1  # nothing follows (each look below needs a character)
        first = self.chain if self.chain >= 0 else len(spans) - 1
        glued = QUOTE_AFTER_ROOT.match(text, end, min(self.hi, end + LOOK))
        if glued is not None:
            # The root's closer was inside a string (``"Paris"}", "n": 1}``):
            # one broken span, for the default parser to report and repair
            # to read from the root's opener.
            spans[-1] = _broken(
                spans[-1].start, glued.end(), is_object=spans[-1].is_object
            )
            return -1
        found = AFTER_ROOT.match(text, end, min(self.hi, end + LOOK))
        if found is None:
            if cut_key_after(text, end, self.hi):
                return self._reopen(first)
            return -1
        # A closer, or bare items and then one (``[] false]``): one broken span.
        closer = found.group(1) or (found.group(4) or "")[-1:] or None
        if closer is not None:
            if self.open_count["{" if closer == "}" else "["]:
                return -1  # it closes a bracket of the prose around
            start = spans[first].start
            is_object = spans[first].is_object
            del spans[first:]
            spans.append(_broken(start, found.end(), is_object=is_object))
            return first
        if (found.group(2) or found.group(3) or found.group(5)) is not None:
            return self._reopen(first)
        # The next value of the run: the walk resumes at its opener, past the
        # bare items before it (their strings may hold brackets: ``"{"``).
        self.pos = found.end() - 1
        return first

    def _reopen(self, first: int) -> Frame:
        """The root (with the run before it) reopened: a key follows it."""
        spans = self.spans
        start = spans[first].start
        del spans[first:]
        frame = Frame(
            start,
            self.text[start],
            JSON,
            empty=False,
            mark=len(spans),
            in_json=False,
            strings=True,
        )
        frame.broken = True
        return frame

    def _next_in_prose(self) -> int | None:
        """The next opener in prose: its offset, -1 after skipping prose braces.

        ``None`` when no opener remains.
        """
        found = _OPENERS.search(self.text, self.pos, self.hi)
        if found is None:
            return None
        i = found.start()
        if found.group() == "{":
            end = take_flat_objects(self.text, i, self.lo, self.hi, self.spans)
            if end >= 0:
                self.pos, self.chain = end, -1
                return -1
            prose = PROSE_BRACES.match(self.text, i, min(self.hi, i + SKIP_WINDOW))
            if prose is not None:
                self.pos = prose.end()
                return -1
        return i

    def _next_in_frame(self) -> int | None:
        """Step over the next token inside the top frame.

        Strings and comments are skipped whole, a colon is noted, a closer
        closes what it closes.

        Returns:
            The offset of an opener to open, -1 when the token was handled,
            ``None`` when the text ends (inside a string or comment, perhaps).
        """
        top = self.stack[-1]
        found = tokens_of(top).search(self.text, self.pos, self.hi)
        if found is None:
            return None
        i, char = found.start(), found.group()
        if char in "\"'":
            end = skip_string(self.text, i, self.hi)
        elif char in COMMENT_END:
            end = skip_comment(self.text, i, char, self.hi)
        elif char == ":":
            top.has_colon = True
            end = i + 1
        elif char in "]}":
            self._close(i, char)
            return -1
        else:
            return i
        if end is None:
            return None
        self.pos = end
        return -1

    def _close(self, i: int, char: str) -> None:
        """A closer at ``i``: close the frames it closes.

        At a candidate's top level a closer of the wrong kind is a stray
        inside it (the candidate is broken); inside JSON it is a typo for the
        right one and closes the top frame only, so the enclosing value keeps
        its real extent. A closer that matches no open bracket is prose.
        """
        stack, open_count = self.stack, self.open_count
        top = stack[-1]
        want = "{" if char == "}" else "["
        self.pos = i + 1
        if (top.in_json or top.mode == JSON) and top.char != want:
            if not top.in_json:
                top.broken = True
                return
            frame, _ = pop_frame(stack, open_count)
            root = _finish(frame, self.spans, i + 1, closed=False)
        elif open_count[want]:
            closed = close_run(self.text, i, self.hi, stack, open_count)
            if closed:
                self.pos = i + closed
                return
            root = _close_to(stack, open_count, want, self.spans, i + 1)
        else:
            return
        if root:
            self.root_end = i + 1

    def _open(self, i: int) -> bool:
        """Open the bracket at ``i``: a plainly-JSON root is decoded at once.

        Returns:
            Whether the scan stops (the root runs to the limit, cut off).
        """
        text, stack = self.text, self.stack
        mode, empty = classify(text, i, self.hi)
        in_json = bool(stack) and (stack[-1].in_json or stack[-1].mode == JSON)
        failed = False
        if mode == JSON and not in_json and not empty:
            decoded = self._decode_root(i)
            if decoded is not None:
                return decoded
            failed = True
        char = text[i]
        strings = mode != PROSE or (bool(stack) and stack[-1].strings)
        frame = Frame(i, char, mode, empty, len(self.spans), in_json, strings)
        # A dict written with single quotes (Python style): its strings are
        # quoted that way, and may hold brackets.
        space = _SPACE.match(text, i + 1, self.hi)
        after = space.end() if space else i + 1
        frame.squote = text.startswith("'", after) or (bool(stack) and stack[-1].squote)
        frame.nested = not in_json and mode != PROSE and after_key(text, i, self.lo)
        if failed and self.failure is not None:
            frame.failed = (self.hi, self.failure)  # for its span, if that is all
        stack.append(frame)
        self.open_count[char] += 1
        self.pos = i + 1
        if failed and not frame.squote and self._skip_nested(char):
            return False
        if text[self.pos : self.pos + 1] in {"[", "{"}:
            self.pos = push_run(text, self.pos, self.hi, stack, self.open_count)
        return False

    def _skip_nested(self, char: str) -> bool:
        """Skip in C what the walk reads blindly in a root that did not decode.

        The frames the walk would hold where the skip stops (see
        :func:`~langchain_jsonrecover._core.spans.frames.skip_nested`) are
        all inside JSON: each pops at the next closer whatever its kind and
        adds no span, so one kind stands for all. Its guesses: before the
        last closer of ``char``'s kind (where a root, opened by ``char``, with
        one slip inside closes), else where the decoder stopped.

        Returns:
            Whether anything was skipped.
        """
        text, hi, stopped = self.text, self.hi, self.stopped
        ends: tuple[int, ...] = ()
        if stopped > self.pos:  # the decoder was handed the rest: guesses cost as much
            last = text.rfind("}" if char == "{" else "]", stopped, hi)
            ends = (stopped, last) if last > stopped else ()
        pos, depth = skip_nested(text, self.pos, hi, 0, ends)
        if pos == self.pos:
            return False
        self.pos = pos
        for _ in range(depth):
            # Inside JSON, a frame's offset is never read (it adds no span).
            frame = Frame(
                -1,
                "[",
                JSON,
                empty=False,
                mark=len(self.spans),
                in_json=True,
                strings=True,
            )
            self.stack.append(frame)
        self.open_count["["] += depth
        return True

    def _decode_root(self, i: int) -> bool | None:
        """Hand a plainly-JSON root at ``i`` to the decoder, while the budget lasts.

        Returns:
            ``True`` when it is valid JSON cut off at the limit (the scan
            stops), ``False`` when it decoded (the scan resumes after it),
            ``None`` when it did not (the scan opens a frame).
        """
        text, hi, depth = self.text, self.hi, self.max_depth
        self.stopped, self.failure = -1, None
        if self.budget[0] < hi - i:
            return None
        self.budget[0] -= hi - i
        stop = self.stop and self.stop.of_rest(text, i, hi)  # orjson's, if known
        result = decode(text[i:hi], max_depth=depth, allow_trailing=True, stop=stop)
        if isinstance(result, DecodeFailure) and result.kind != "truncated":
            self.stopped = i + result.pos
            self.failure = result
            return None
        # Decoded, or valid JSON up to the limit (cut off): then the span runs
        # to the limit, and the frames around it close there too.
        decoded = result if isinstance(result, Decoded) else None
        end = hi if decoded is None else i + decoded.end
        span = Span(
            i,
            end,
            closed=decoded is not None,
            is_object=text[i] == "{",
            empty=False,
            decoded=decoded,
            cut=None if isinstance(result, Decoded) else result,
            nested=after_key(text, i, self.lo),
        )
        self.spans.append(span)
        if decoded is None:
            return True
        self.pos = self.root_end = end
        return False


def _broken(start: int, end: int, *, is_object: bool) -> Span:
    """A closed span that the structure shows to be one broken value."""
    return Span(start, end, closed=True, is_object=is_object, empty=False, broken=True)


def _close_to(
    stack: list[Frame],
    open_count: dict[str, int],
    want: str,
    spans: list[Span],
    end: int,
) -> bool:
    """Pop frames down to the last one ``want`` opened, which closes at ``end``.

    Frames above it are left unclosed (their brackets never closed).

    Returns:
        Whether the frame closed was a JSON-like root (a span was added).
    """
    while True:
        if len(stack[-1].run) > 1 and stack[-1].char != want:
            pop_run_until(stack, open_count, want)
            continue
        frame, popped = pop_frame(stack, open_count)
        matched = popped == want
        root = _finish(frame, spans, end, closed=matched)
        if matched:
            return root


def _finish(frame: Frame, spans: list[Span], end: int, *, closed: bool) -> bool:
    """Close a frame: a JSON-like root replaces the candidates inside it.

    Returns:
        Whether the frame was a JSON-like root that closed (a span was added).
    """
    if frame.in_json:
        return False
    if frame.mode == PROSE or (frame.mode == MAYBE and not frame.has_colon):
        return False
    del spans[frame.mark :]
    spans.append(
        Span(
            frame.start,
            end,
            closed,
            frame.char == "{",
            frame.empty and closed,
            broken=frame.broken,
            nested=frame.nested,
            failed=_failed(frame, end),
        )
    )
    return closed


def _failed(frame: Frame, end: int) -> DecodeFailure | None:
    """The decoder's failure on the frame's span, if it read just that text.

    It read it as a root that may go on; a broken span is read whole, where
    only a nesting too deep may fail otherwise (text after a value: the
    decoder's check of its depth never ran). That one is not kept.
    """
    if frame.failed is None or frame.failed[0] != end:
        return None
    failure = frame.failed[1]
    return None if frame.broken and failure.kind == "too_deep" else failure
