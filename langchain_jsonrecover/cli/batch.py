"""``jsonrecover batch``: a JSONL file of logged replies to a JSONL file of rows.

Each input line goes through :class:`~langchain_jsonrecover.cli.rows.RowReader`
(the pure core; the rows :func:`~langchain_jsonrecover.records.recover_line`
gives, with no LangChain unless a record needs it), in chunks; with
``jobs > 1`` the chunks go to a pool of processes and come back in input
order, with a bounded number in flight so memory stays flat on any input
size. A progress line is drawn on standard error when it is a terminal;
a summary ends the run there.
"""

from __future__ import annotations

import multiprocessing
import os
import stat
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final, TextIO

from langchain_jsonrecover._core.reply.record import MALFORMED_LINE, dump_json
from langchain_jsonrecover._core.schema.load import load_schema
from langchain_jsonrecover.cli.extract import Reader
from langchain_jsonrecover.cli.rows import RowReader

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_jsonrecover._core.extract import Prefer
    from langchain_jsonrecover._core.levels import Repair
    from langchain_jsonrecover.records import Parser

__all__ = [
    "ParserSpec",
    "ReadFailedError",
    "Tally",
    "WriteFailedError",
    "load_schema",
    "pool_context",
    "run_batch",
]

CHUNK_LINES: Final = 256
CHUNK_BYTES: Final = 1 << 20
IN_FLIGHT_PER_JOB: Final = 4
MALFORMED_SHOWN: Final = 20
PROGRESS_EVERY: Final = 0.2  # seconds

_worker_rows: RowReader | None = None


@dataclass(frozen=True, slots=True)
class ParserSpec:
    """How to build the parser, in a form that crosses to worker processes."""

    schema: str | None = None
    """``MODULE:NAME`` of the schema, or ``None``."""
    repair: Repair = "safe"
    """``--repair``: ``True``; ``--no-repair``: ``False``; else the default."""
    truncated: bool = False
    regex: str | None = None
    prefer: Prefer = "first"
    max_chars: int | None = None
    search_path: str = field(default_factory=lambda: str(Path.cwd()))
    """Where ``schema`` is imported from first (the caller's directory)."""

    def reader(self) -> Reader:
        """The pure core's reader of these options (no LangChain).

        Raises:
            ValueError: The schema cannot be imported or is unusable, the
                regex is unusable, or ``truncated`` is combined with ``regex``.
        """
        return Reader.build(
            schema=self.schema,
            repair=self.repair,
            truncated=self.truncated,
            regex=self.regex,
            prefer=self.prefer,
            max_chars=self.max_chars,
            search_path=self.search_path,
        )

    def rows(self) -> RowReader:
        """The batch's reader of lines: :meth:`reader`, and :meth:`build` when needed.

        Raises:
            ValueError: As :meth:`reader`.
        """
        return RowReader(self.reader(), self.build)

    def build(self) -> Parser:
        """Build the parser (LangChain's classes), for the records that need it.

        Raises:
            ValueError: The schema cannot be imported, the regex is unusable,
                or ``truncated`` is combined with ``regex``.
        """
        from langchain_jsonrecover.parsers import (  # noqa: PLC0415 - LangChain only for the records that need it
            JsonFenceOutputParser,
            RegexJsonOutputParser,
            TruncationRecoveringOutputParser,
        )

        options: dict[str, Any] = {"prefer": self.prefer, "repair": self.repair}
        if self.max_chars is not None:
            options["max_chars"] = self.max_chars
        if self.schema is not None:
            options["pydantic_object"] = load_schema(self.schema, self.search_path)
        if self.regex is not None:
            if self.truncated:
                msg = "--truncated cannot be combined with --regex"
                raise ValueError(msg)
            return RegexJsonOutputParser(self.regex, **options)
        if self.truncated:
            return TruncationRecoveringOutputParser(**options)
        return JsonFenceOutputParser(**options)


@dataclass(slots=True)
class Tally:
    """What a run (or one chunk of it) gave."""

    lines: int = 0
    recovered: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    repairs: Counter[str] = field(default_factory=Counter)
    cut_off: int = 0
    malformed: list[tuple[int, str]] = field(default_factory=list)
    """The first malformed lines: (number, why)."""

    def add(self, other: Tally) -> None:
        """Add a chunk's tally to this one."""
        self.lines += other.lines
        self.recovered += other.recovered
        self.failed.update(other.failed)
        self.repairs.update(other.repairs)
        self.cut_off += other.cut_off
        room = MALFORMED_SHOWN - len(self.malformed)
        self.malformed.extend(other.malformed[: max(room, 0)])

    def summary(self, seconds: float) -> list[str]:
        """The lines of the summary printed at the end of a run."""
        failed = sum(self.failed.values())
        head = f"jsonrecover: {self.lines:,} lines: {self.recovered:,} recovered"
        lines = [f"{head}, {failed:,} failed"]
        if failed:
            lines.append(f"  failed: {_format_counts(self.failed)}")
        if self.repairs:
            lines.append(f"  repairs: {_format_counts(self.repairs)}")
        if self.cut_off:
            lines.append(f"  cut off at the token limit: {self.cut_off:,}")
        rate = f", {self.lines / seconds:,.0f} lines/s" if seconds > 0 else ""
        lines.append(f"  {seconds:.2f} s{rate}")
        return lines


def _format_counts(counter: Counter[str]) -> str:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{name} {count:,}" for name, count in ranked)


Chunk = list[tuple[int, bytes]]


def recover_chunk(
    chunk: Chunk, rows: RowReader, field_path: str | None
) -> tuple[bytes, Tally]:
    """Recover every line of a chunk: the output lines and their tally."""
    out: list[bytes] = []
    tally = Tally(lines=len(chunk))
    for number, data in chunk:
        row = rows.read(data, field_path, line=number)
        out.append(dump_json(row))
        error = row["error"]
        if error is None:
            tally.recovered += 1
            tally.repairs.update(row["repairs"])
        else:
            tally.failed[error["kind"]] += 1
            if error["kind"] == MALFORMED_LINE and len(tally.malformed) < (
                MALFORMED_SHOWN
            ):
                tally.malformed.append((number, error["message"]))
        tally.cut_off += row["cut_off"]
    out.append(b"")
    return b"\n".join(out), tally


def _start_worker(spec: ParserSpec) -> None:
    global _worker_rows  # noqa: PLW0603 - one reader per worker process
    _worker_rows = spec.rows()


def _recover_in_worker(chunk: Chunk, field_path: str | None) -> tuple[bytes, Tally]:
    if _worker_rows is None:  # pragma: no cover - the initializer sets it
        msg = "worker started without a reader"
        raise RuntimeError(msg)
    return recover_chunk(chunk, _worker_rows, field_path)


def read_chunks(stream: BinaryIO, name: str) -> Iterator[tuple[Chunk, int]]:
    """Number the lines of a stream (from 1) and group them: (chunk, bytes read).

    Raises:
        ReadFailedError: The stream failed.
    """
    chunk: Chunk = []
    size = 0
    lines = enumerate(stream, 1)
    while True:
        try:
            number, raw = next(lines)
        except StopIteration:
            break
        except OSError as exc:
            raise ReadFailedError(name, exc) from exc
        size += len(raw)
        chunk.append((number, raw.rstrip(b"\r\n")))
        if len(chunk) >= CHUNK_LINES or size >= CHUNK_BYTES:
            yield chunk, size
            chunk, size = [], 0
    if chunk:
        yield chunk, size


class WriteFailedError(Exception):
    """The output could not be written (a broken pipe is not one)."""

    def __init__(self, target: str, error: OSError) -> None:
        """Name the target and the system's reason."""
        super().__init__(f"cannot write {target}: {error.strerror or error}")


class ReadFailedError(Exception):
    """The input failed while being read."""

    def __init__(self, source: str, error: OSError) -> None:
        """Name the source and the system's reason."""
        super().__init__(f"cannot read {source}: {error.strerror or error}")


class Progress:
    """A one-line progress display on a terminal; silent elsewhere."""

    def __init__(self, stream: TextIO, total_bytes: int | None) -> None:
        """Draw on ``stream`` only when it is a terminal."""
        self.stream = stream
        self.enabled = stream.isatty()
        self.total = total_bytes
        self.start = time.perf_counter()
        self.last = 0.0
        self.shown = False

    def update(self, lines: int, done_bytes: int, *, force: bool = False) -> None:
        """Redraw, at most every ``PROGRESS_EVERY`` seconds."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        rate = lines / (now - self.start) if now > self.start else 0.0
        if self.total:
            share = min(done_bytes / self.total, 1.0)
            filled = int(share * 24)
            bar = f"[{'#' * filled}{'.' * (24 - filled)}] {share:4.0%} "
        else:
            bar = ""
        self.stream.write(f"\r{bar}{lines:,} lines, {rate:,.0f} lines/s\x1b[K")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        """Erase the progress line (before other output on the terminal)."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


@dataclass(slots=True)
class _Run:
    """One run's moving parts: where rows go, what was seen so far."""

    write: BinaryIO
    target: str
    progress: Progress
    err: TextIO
    tally: Tally = field(default_factory=Tally)
    done_bytes: int = 0
    malformed_said: int = 0
    rows_on_terminal: bool = False
    """Rows and progress share a terminal: erase the progress line first."""

    def deliver(self, out: bytes, tally: Tally, size: int) -> None:
        try:
            if self.rows_on_terminal:
                self.progress.clear()
                self.write.flush()
            self.write.write(out)
            if self.rows_on_terminal:
                self.write.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise WriteFailedError(self.target, exc) from exc
        self.tally.add(tally)
        self.done_bytes += size
        for number, why in tally.malformed:
            self.say_malformed(number, why)
        self.progress.update(self.tally.lines, self.done_bytes)

    def say_malformed(self, number: int, why: str) -> None:
        self.malformed_said += 1
        if self.malformed_said > MALFORMED_SHOWN:
            return
        self.progress.clear()
        self.err.write(f"jsonrecover: line {number}: {MALFORMED_LINE}: {why}\n")
        if self.malformed_said == MALFORMED_SHOWN:
            self.err.write(
                "jsonrecover: further malformed lines are counted in the summary only\n"
            )

    def finish(self) -> None:
        try:
            self.write.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise WriteFailedError(self.target, exc) from exc


def run_batch(
    source: BinaryIO,
    sink: BinaryIO,
    spec: ParserSpec,
    *,
    rows: RowReader | None = None,
    field_path: str | None = None,
    jobs: int = 1,
    source_name: str = "standard input",
    target: str = "standard output",
    total_bytes: int | None = None,
    err: TextIO | None = None,
) -> Tally:
    """Recover every line of ``source`` into ``sink``, one row per line.

    Args:
        source: The JSONL input, read line by line.
        sink: Where the rows go (one JSON object per line).
        spec: The parser to build (here, and in each worker process).
        rows: ``spec.rows()`` built already (default: built here).
        field_path: Dotted path to the reply in each record.
        jobs: Worker processes; 1 runs in this process.
        source_name: The source's name, for a read error.
        target: The sink's name, for a write error.
        total_bytes: The input's size, for the progress bar.
        err: Standard error (progress, malformed lines and the summary).

    Returns:
        The run's tally.

    Raises:
        ValueError: The parser cannot be built from ``spec``.
        ReadFailedError: The source failed.
        WriteFailedError: The sink failed (a full disk …).
        BrokenPipeError: The reader of ``sink`` went away.
    """
    err = sys.stderr if err is None else err
    if rows is None:
        rows = spec.rows()  # a usage error surfaces before any work
    run = _Run(sink, target, Progress(err, total_bytes), err)
    run.rows_on_terminal = run.progress.enabled and _is_terminal(sink)
    start = time.perf_counter()
    chunks = read_chunks(source, source_name)
    if jobs == 1:
        for chunk, size in chunks:
            out, tally = recover_chunk(chunk, rows, field_path)
            run.deliver(out, tally, size)
    else:
        _run_pool(run, chunks, spec, field_path, jobs)
    run.finish()
    run.progress.update(run.tally.lines, run.done_bytes, force=True)
    run.progress.clear()
    for line in run.tally.summary(time.perf_counter() - start):
        err.write(line + "\n")
    return run.tally


def _run_pool(
    run: _Run,
    chunks: Iterator[tuple[Chunk, int]],
    spec: ParserSpec,
    field_path: str | None,
    jobs: int,
) -> None:
    context = pool_context()
    pending: deque[tuple[Future[tuple[bytes, Tally]], int]] = deque()
    with ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=_start_worker,
        initargs=(spec,),
    ) as pool:
        try:
            for chunk, size in chunks:
                pending.append(
                    (pool.submit(_recover_in_worker, chunk, field_path), size)
                )
                if len(pending) >= jobs * IN_FLIGHT_PER_JOB:
                    future, done = pending.popleft()
                    run.deliver(*future.result(), done)
            while pending:
                future, done = pending.popleft()
                run.deliver(*future.result(), done)
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def pool_context() -> multiprocessing.context.BaseContext:
    """How to start the worker processes.

    ``fork`` on Linux when this process runs a single thread: workers start
    in milliseconds with the package already imported, and forking is safe
    with no other thread. Otherwise ``forkserver`` (workers fork from a clean
    server that imported this package once; forking a threaded process can
    deadlock), else ``spawn``; both re-import the main module in each worker,
    so a script that runs ``batch`` with jobs needs the ``if __name__ ==
    "__main__":`` guard, as any ``multiprocessing`` program does.
    """
    methods = multiprocessing.get_all_start_methods()
    if sys.platform == "linux" and "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["langchain_jsonrecover.cli.batch"])
        return context
    return multiprocessing.get_context("spawn")


def _is_terminal(stream: BinaryIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def input_size(stream: BinaryIO) -> int | None:
    """The size of a regular file behind ``stream``, else ``None``."""
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return status.st_size if stat.S_ISREG(status.st_mode) else None
