"""Speed when streaming: the compact document in 4-character message chunks.

What it measures
    The document of ``_data.py`` at about 16 KB, 64 KB and 128 KB, delivered
    as 4-character ``AIMessageChunk``s (a list built once, outside the timing),
    through a whole ``parser.transform(iter(chunks))`` run (keeping the last
    value, checked against the document) of ``JsonFenceOutputParser``,
    ``TruncationRecoveringOutputParser``, a floor (langchain-core's
    ``transform`` machinery with one ``orjson.loads`` at the end, no partial
    values) and langchain-core's ``JsonOutputParser``, whose cumulative parser
    re-parses the whole text on every chunk: quadratic. It gets one run per
    size, stopped at 45 s (3 s with ``--quick``): a stopped run shows its time
    so far, a lower bound, and the whole time extrapolated from its progress;
    after a stopped or 20-second run, larger replies are skipped for it. Cells
    give the total time per reply in ms, then the ratio to ``orjson.loads``.
    Target: doubling the reply multiplies our time by at most about 2.5
    (128 KB against 64 KB). The method is in the README ("Benchmarks").

    Then end to end, as a user runs it: a chat model that streams the compact
    document (3 KB and 30 KB) in 4-character chunks, through
    ``(model | parser).stream(...)`` consumed to its last value, beside the
    model's own ``stream()`` alone.

How to run
    python benchmarks/streaming.py [--quick] [--markdown] [--wall]
"""

from __future__ import annotations

import collections
import dataclasses
import math
import sys
import time
from typing import TYPE_CHECKING, Any, Final

import orjson
from _cases import CORE, OURS_PARSER, OURS_TRUNCATION, Measurement, Row, check_value
from _data import canonical, sized_documents
from _report import Section, number, run_sections
from _timing import Budget, FreshCall, time_long_calls, timed_call
from _typed_stream import DICTS, TYPED, TYPED_TARGET, as_json, typed_parsers
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import BaseTransformOutputParser, JsonOutputParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.messages import BaseMessage

STREAM_SIZES: Final = (("16 KB", 16_000), ("64 KB", 64_000), ("128 KB", 128_000))
CHUNK_CHARS: Final = 4
"""A streamed reply arrives in message chunks of this many characters."""
STREAM_SHAPE: Final = f"{CHUNK_CHARS}-char chunks"
STREAM_FLOOR: Final = "transform() floor"
SLOW_SKIP_SECONDS: Final = 20.0
"""After a streaming run of langchain-core's parser longer than this (or one
stopped at ``Budget.slow_seconds``), larger replies are skipped for it."""


def stream_chunks(reply: str, chars: int = CHUNK_CHARS) -> list[AIMessageChunk]:
    """The reply cut into ``chars``-character message chunks, as a chat model
    streams it into ``model | parser``."""
    return [
        AIMessageChunk(content=reply[i : i + chars])
        for i in range(0, len(reply), chars)
    ]


def last_streamed(
    parser: BaseTransformOutputParser[Any], chunks: Iterable[AIMessageChunk]
) -> Any:
    """Stream the chunks through ``parser.transform``; the last value yielded.

    Only the last value is kept (``None`` when nothing was yielded):
    langchain-core's parser yields a fresh partial value for most chunks,
    thousands of copies of a growing document that a ``list`` would hold.
    """
    tail: collections.deque[Any] = collections.deque(
        parser.transform(iter(chunks)), maxlen=1
    )
    return tail[-1] if tail else None


class ParseAtEnd(BaseTransformOutputParser[Any]):
    """The floor of any parser streamed through langchain-core.

    Its ``transform`` runs langchain-core's machinery (a run with callbacks,
    the input accumulated for tracing), then joins the chunks and calls
    ``orjson.loads`` once: no partial values.
    """

    def parse(self, text: str) -> Any:
        """Decode the whole reply with ``orjson``."""
        return orjson.loads(text)

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[Any]:  # noqa: A002
        yield self.parse("".join(c if isinstance(c, str) else c.text for c in input))


class Deadline:
    """Chunks handed out until a wall-clock deadline, noting when each was asked for.

    The wrapper costs well under a microsecond per chunk; it is used only for
    langchain-core's parser, which spends milliseconds on each.
    """

    def __init__(
        self,
        chunks: Sequence[AIMessageChunk],
        seconds: float,
        clock: Callable[[], float],
    ) -> None:
        """Hand out ``chunks`` for at most ``seconds`` of wall time."""
        self.chunks = chunks
        self.seconds = seconds
        self.clock = clock
        self.asked: list[float] = []
        """``asked[i]``: ``clock`` seconds from the first request until chunk
        ``i`` was asked for, that is once chunks ``0 .. i-1`` were processed."""
        self.stopped = False

    def __iter__(self) -> Iterator[AIMessageChunk]:
        """The chunks, until the deadline passes."""
        deadline = time.perf_counter() + self.seconds
        start = self.clock()
        for chunk in self.chunks:
            self.asked.append(self.clock() - start)
            if time.perf_counter() > deadline:
                self.stopped = True
                return
            yield chunk

    def extrapolate(self) -> float | None:
        """The whole run's seconds, from its progress when it was stopped.

        With ``k`` chunks processed in ``t(k)``, and ``t(k) / t(k/2) = 2**p``
        (``p`` is 2 when the run is quadratic), ``t(k) * (n / k)**p``.
        """
        done = len(self.asked) - 1
        half = done // 2
        if not self.stopped or half < 1 or self.asked[half] <= 0:
            return None
        power = math.log(self.asked[done] / self.asked[half]) / math.log(done / half)
        return self.asked[done] * math.pow(len(self.chunks) / done, power)


def _streaming(
    parser: BaseTransformOutputParser[Any], chunks: Iterable[AIMessageChunk]
) -> Callable[[], Any]:
    return lambda: last_streamed(parser, chunks)


def run_slow(
    parser: BaseTransformOutputParser[Any],
    chunks: Sequence[AIMessageChunk],
    expected: bytes,
    budget: Budget,
) -> Measurement:
    """One streaming run of a slow parser, stopped at ``budget.slow_seconds``.

    Returns:
        The run's time and whether its last value is the document; for a
        stopped run, the time so far (a lower bound), how far it got and the
        extrapolated whole time.
    """
    feed = Deadline(chunks, budget.slow_seconds, budget.clock)
    try:
        seconds, value = timed_call(_streaming(parser, feed), budget.clock)
    except Exception as exc:  # noqa: BLE001 - any failure is a result to report
        return Measurement("error", detail=type(exc).__name__)
    if not feed.stopped:
        return dataclasses.replace(check_value(value, expected), seconds=seconds)
    done = len(feed.asked) - 1
    return Measurement(
        "stopped",
        seconds,
        detail=f"{done / len(chunks):.0%} of the chunks",
        estimated_seconds=feed.extrapolate(),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Streamed:
    """One streamed reply: its size, compact text, chunks and expected value."""

    size: str
    clean: str
    chunks: list[AIMessageChunk]
    expected: bytes


def streamed_replies() -> list[Streamed]:
    """The compact document at each streaming size, cut into chunks."""
    replies = []
    for size, document, clean in sized_documents(STREAM_SIZES):
        expected = canonical(document)
        if expected is None:
            raise ValueError(f"{size} document is not JSON")
        replies.append(Streamed(size, clean, stream_chunks(clean), expected))
    return replies


def fast_row(reply: Streamed, budget: Budget) -> Row:
    """Ours and the floor on one reply, round robin with ``orjson.loads``."""
    fast: tuple[tuple[str, BaseTransformOutputParser[Any]], ...] = (
        (OURS_PARSER, JsonFenceOutputParser()),
        (OURS_TRUNCATION, TruncationRecoveringOutputParser()),
        (STREAM_FLOOR, ParseAtEnd()),
    )
    results: dict[str, Measurement] = {}
    timed: list[str] = []
    funcs: list[Callable[[], object]] = []
    first: list[float] = []
    for name, parser in fast:
        func = _streaming(parser, reply.chunks)
        try:
            seconds, value = timed_call(func, budget.clock)
        except Exception as exc:  # noqa: BLE001 - any failure is a result
            results[name] = Measurement("error", detail=type(exc).__name__)
            continue
        results[name] = check_value(value, reply.expected)
        timed.append(name)
        funcs.append(func)
        first.append(seconds)
    baseline, times = time_long_calls(
        FreshCall(orjson.loads, reply.clean), funcs, first, budget
    )
    for name, seconds in zip(timed, times, strict=True):
        results[name] = dataclasses.replace(results[name], seconds=seconds)
    extra = (("chunks", f"{len(reply.chunks):,}"),)
    return Row(
        STREAM_SHAPE, reply.size, len(reply.clean.encode()), baseline, results, extra
    )


def streaming_rows(budget: Budget) -> list[Row]:
    """Compact documents streamed in 4-character chunks, each size.

    Ours (and the floor) are timed first at every size, round robin with
    ``orjson.loads`` on the same document; then langchain-core's parser, one
    run per size, smallest first, until a run is stopped or too long.
    """
    replies = streamed_replies()
    rows = [fast_row(reply, budget) for reply in replies]
    core = JsonOutputParser()
    skip = ""
    for row, reply in zip(rows, replies, strict=True):
        if skip:
            row.results[CORE] = Measurement("skipped", detail=skip)
            continue
        measured = run_slow(core, reply.chunks, reply.expected, budget)
        row.results[CORE] = measured
        if measured.status == "stopped" or (measured.seconds or 0) > SLOW_SKIP_SECONDS:
            skip = "quadratic"
    return rows


STREAM_DOUBLING_TARGET: Final = 2.5
"""Issue: doubling a streamed reply multiplies our time by at most about this."""


def _quotient(top: Measurement, bottom: Measurement) -> str | None:
    """``top`` over ``bottom`` seconds, as ``12.3x``.

    A stopped ``top`` gives a lower bound, ``> 12.3x``, with the quotient of
    its extrapolated time when there is one.
    """
    if top.seconds is None or bottom.seconds is None or bottom.status != "ok":
        return None
    if top.status == "ok":
        return f"{number(top.seconds / bottom.seconds)}x"
    if top.status != "stopped":
        return None
    text = f"> {number(top.seconds / bottom.seconds)}x"
    if top.estimated_seconds is not None:
        estimate = number(top.estimated_seconds / bottom.seconds)
        text += f", about {estimate}x extrapolated"
    return text


def _own_work_lines(mid: Row, large: Row) -> list[str]:
    """Our time minus the floor's (a difference of medians: rough), doubled."""
    floor_a, floor_b = (
        mid.results[STREAM_FLOOR].seconds,
        large.results[STREAM_FLOOR].seconds,
    )
    if not (floor_a and floor_b):
        return []
    parts, shares = [], []
    for tool in (OURS_PARSER, OURS_TRUNCATION):
        a, b = mid.results[tool].seconds, large.results[tool].seconds
        if a and b and a > floor_a:
            parts.append(f"{tool} {(b - floor_b) / (a - floor_a):.2f}x")
            shares.append(f"{floor_b / b:.0%} of {tool}'s")
    if not parts:
        return []
    line = (
        f"Our own work (time minus the {STREAM_FLOOR}'s, roughly):"
        f" time(128 KB) / time(64 KB) = {', '.join(parts)}; at 128 KB the"
        f" floor is {' and '.join(shares)} time"
    )
    return [line]


def _doubling_lines(mid: Row, large: Row) -> list[str]:
    """128 KB over 64 KB: ours against the target, and the floor's."""
    lines: list[str] = []
    for tool in (OURS_PARSER, OURS_TRUNCATION, STREAM_FLOOR):
        a, b = mid.results[tool], large.results[tool]
        growth = mid.growth(large, tool)
        shown = "-" if growth is None else f"{growth:.2f}x"
        if tool == STREAM_FLOOR:
            lines.append(
                f"Doubling, {tool}: time(128 KB) / time(64 KB) = {shown}"
                " (langchain-core's transform() with one orjson.loads at the"
                " end: its run accumulates the input by string concatenation,"
                " a quadratic copy that every streamed parser pays)"
            )
            continue
        ok = growth is not None and growth <= STREAM_DOUBLING_TARGET
        ok = ok and a.status == "ok" and b.status == "ok"
        lines.append(
            f"Target doubling, {tool}: time(128 KB) / time(64 KB)"
            f" <= ~{STREAM_DOUBLING_TARGET:g}x, measured {shown}"
            f" (reply bytes x{large.reply_bytes / mid.reply_bytes:.2f},"
            f" orjson.loads x{large.baseline_seconds / mid.baseline_seconds:.2f}):"
            f" {'PASS' if ok else 'FAIL'}"
        )
    return [*lines, *_own_work_lines(mid, large)]


def _core_lines(small: Row | None, mid: Row | None) -> list[str]:
    """langchain-core's growth from 16 KB to 64 KB, and our speed-up over it."""
    lines: list[str] = []
    if small is not None and mid is not None:
        quadrupling = _quotient(mid.results[CORE], small.results[CORE])
        lines.append(
            f"Doubling twice, {CORE}: time(64 KB) / time(16 KB) ="
            f" {quadrupling or 'not measured'}; about 16x when quadratic (reply"
            f" bytes x{mid.reply_bytes / small.reply_bytes:.2f})"
        )
    if mid is not None:
        speedups = [
            f"{tool} {_quotient(mid.results[CORE], mid.results[tool]) or '-'}"
            for tool in (OURS_PARSER, OURS_TRUNCATION)
        ]
        lines.append(
            f"Speed-up over {CORE} at 64 KB (its time / ours): {'; '.join(speedups)}"
        )
    return lines


def _stopped_lines(rows: Sequence[Row]) -> list[str]:
    lines: list[str] = []
    for row in rows:
        core = row.results[CORE]
        if core.status == "stopped" and core.seconds is not None:
            estimate = (
                f"; the whole run extrapolated from its progress: about"
                f" {core.estimated_seconds:,.0f} s"
                if core.estimated_seconds is not None
                else ""
            )
            lines.append(
                f"{CORE} at {row.size} was stopped at its time budget"
                f" ({core.seconds:,.1f} s, {core.detail} processed){estimate}"
            )
    return lines


def streaming_notes(rows: Sequence[Row]) -> list[str]:
    """Doubling figures (ours against the target, langchain-core's), speed-up."""
    by_size = {r.size: r for r in rows}
    small, mid, large = (by_size.get(s) for s in ("16 KB", "64 KB", "128 KB"))
    lines: list[str] = []
    if mid is not None and large is not None:
        lines.extend(_doubling_lines(mid, large))
    lines.extend(_core_lines(small, mid))
    lines.extend(_stopped_lines(rows))
    lines.append(
        f"Each run: the compact document as {CHUNK_CHARS}-character AIMessageChunks"
        " (built once, outside the timing) through parser.transform() (no"
        " config: a run with callbacks, as for every tool), keeping the last"
        " value, checked against the document"
    )
    return lines


class ChunkedChatModel(BaseChatModel):
    """A chat model that streams a fixed reply in the chunks it is given.

    The model a user's ``(model | parser).stream(...)`` runs on, offline: its
    ``_stream`` yields one ``ChatGenerationChunk`` per text, so the chain's
    whole machinery (callbacks, chunk merging, the parser's transform) runs as
    it does for a real model.
    """

    texts: list[str]
    """The reply, in the chunks the model streams."""

    @property
    def _llm_type(self) -> str:
        return "chunked-benchmark"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = AIMessage(content="".join(self.texts))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for text in self.texts:
            yield ChatGenerationChunk(message=AIMessageChunk(content=text))


CHAIN_SIZES: Final = (("3 KB", 3_000), ("30 KB", 30_000))
"""End to end: the sizes replies have."""
MODEL_ALONE: Final = "model.stream() alone"


def chain_rows(budget: Budget) -> list[Row]:
    """``(model | parser).stream(...)`` end to end, at the sizes replies have.

    The model streams the compact document in 4-character chunks; each run
    consumes the whole stream and keeps the last value (checked against the
    document). ``model.stream() alone`` is the model's own streaming cost,
    which every parser pays on top of its own work.
    """
    rows = []
    for size, document, clean in sized_documents(CHAIN_SIZES):
        expected = canonical(document)
        if expected is None:
            raise ValueError(f"{size} document is not JSON")
        texts = [clean[i : i + CHUNK_CHARS] for i in range(0, len(clean), CHUNK_CHARS)]
        model = ChunkedChatModel(texts=texts)
        parsers: tuple[tuple[str, BaseTransformOutputParser[Any]], ...] = (
            (OURS_PARSER, JsonFenceOutputParser()),
            (OURS_TRUNCATION, TruncationRecoveringOutputParser()),
            (STREAM_FLOOR, ParseAtEnd()),
        )
        calls: list[tuple[str, Callable[[], Any]]] = [
            (name, _chain_stream(model | parser))
            for name, parser in (*parsers, *typed_parsers())
        ]
        results: dict[str, Measurement] = {}
        timed: list[str] = []
        funcs: list[Callable[[], object]] = []
        first: list[float] = []
        for name, func in calls:
            seconds, value = timed_call(func, budget.clock)
            results[name] = check_value(as_json(value), expected)
            timed.append(name)
            funcs.append(func)
            first.append(seconds)
        alone = _model_alone(model)
        seconds, _ = timed_call(alone, budget.clock)
        results[MODEL_ALONE] = Measurement("ok")
        timed.append(MODEL_ALONE)
        funcs.append(alone)
        first.append(seconds)
        baseline, times = time_long_calls(
            FreshCall(orjson.loads, clean), funcs, first, budget
        )
        for name, seconds in zip(timed, times, strict=True):
            results[name] = dataclasses.replace(results[name], seconds=seconds)
        extra = (("chunks", f"{len(texts):,}"),)
        rows.append(
            Row("model | parser", size, len(clean.encode()), baseline, results, extra)
        )
    return rows


def _chain_stream(chain: Any) -> Callable[[], Any]:
    def run() -> Any:
        tail: collections.deque[Any] = collections.deque(chain.stream("q"), maxlen=1)
        return tail[-1] if tail else None

    return run


def _model_alone(model: ChunkedChatModel) -> Callable[[], object]:
    def run() -> object:
        return collections.deque(model.stream("q"), maxlen=0)

    return run


def chain_notes(rows: Sequence[Row]) -> list[str]:
    """What a run is, and each parser's share beyond the model's own streaming."""
    lines = []
    for row in rows:
        alone = row.results[MODEL_ALONE].seconds
        parts = []
        for tool in (OURS_PARSER, OURS_TRUNCATION, STREAM_FLOOR):
            seconds = row.results[tool].seconds
            if alone and seconds:
                parts.append(f"{tool} {seconds / alone:.2f}x")
        lines.append(
            f"{row.size}: (model | parser).stream over model.stream alone: "
            + ", ".join(parts)
        )
        typed, dicts = row.results[TYPED].seconds, row.results[DICTS].seconds
        if typed and dicts:
            ok = typed / dicts <= TYPED_TARGET
            lines.append(
                f"Target {row.size}: typed partials / dict partials (the same"
                f" parser, paired rounds) <= {TYPED_TARGET:g}x, measured"
                f" {typed / dicts:.2f}x: {'PASS' if ok else 'FAIL'}"
            )
    lines.append(
        f"Each run: a chat model streaming the compact document in {CHUNK_CHARS}"
        "-character chunks, (model | parser).stream('q') consumed to its last"
        " value (checked against the document), as a user runs it"
    )
    return lines


CHAIN_SECTION: Final = Section(
    f"End to end: (model | parser).stream(), {CHUNK_CHARS}-character chunks",
    chain_rows,
    chain_notes,
    ours=(OURS_PARSER, OURS_TRUNCATION),
    absolute=True,
)


SECTION: Final = Section(
    f"Streaming (reply delivered in {CHUNK_CHARS}-character chunks)",
    streaming_rows,
    streaming_notes,
    ours=(OURS_PARSER, OURS_TRUNCATION),
    absolute=True,
)


if __name__ == "__main__":
    sys.exit(run_sections([SECTION, CHAIN_SECTION], script=__file__, doc=__doc__))
