"""Lines per second re-parsing a JSONL log: 1 process, ``--jobs 2``, Dask with 2 workers.

What it measures
    A generated log of logged replies (fixed seed; ten shapes: prose around
    JSON, fences, replies cut at the token limit with their metadata, prose
    with no JSON, reasoning blocks, Python-literal syntax, content blocks,
    records without a reply …; replies of a few hundred bytes to a few KB),
    re-parsed with ``TruncationRecoveringOutputParser(repair=True)`` three
    ways, each writing JSONL rows to files:

    * ``jsonrecover batch LOG -o OUT`` (``main([...])`` timed in a fresh
      process, its interpreter start-up and imports not counted);
    * the same with ``--jobs 2`` (starting the pool is counted);
    * ``dask.bag``: ``read_text(LOG).map(orjson.loads).map(recover_record)``
      written with ``to_textfiles``, on a ``distributed.LocalCluster`` of 2
      worker processes started before the timing (a cluster is long-lived).

    First, CPU time per line in this process (``time.process_time``, which
    other programs' load barely moves), overall and per shape. Then
    wall-clock time (processes run in parallel), the median of ``--repeat``
    rounds, the three modes interleaved within each round so that load from
    other programs hits them alike. The load average is printed before and
    after: on a shared machine, parallel speed-ups shrink with it.

Run: ``pip install -e '.[dask]' && python benchmarks/batch_throughput.py``
(``--lines N``, ``--repeat R``, ``--markdown`` for the README table).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

import langchain_jsonrecover
from langchain_jsonrecover import TruncationRecoveringOutputParser, recover_record
from langchain_jsonrecover.cli import main
from langchain_jsonrecover.records import dump_json, recover_line

PARSER = TruncationRecoveringOutputParser(repair=True)
WORDS = ["the", "of", "and", "report", "city", "value", "score", "note", "item", "data"]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _document(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "id": i,
        "title": _text(rng, 6).title(),
        "score": round(rng.uniform(0, 100), 2),
        "tags": [rng.choice(WORDS) for _ in range(rng.randint(1, 6))],
        "items": [
            {"name": _text(rng, 2), "qty": rng.randint(1, 9), "ok": rng.random() < 0.5}
            for _ in range(rng.randint(1, 12))
        ],
        "summary": _text(rng, rng.randint(5, 60)),
    }


def log_line(rng: random.Random, i: int) -> bytes:
    """One logged reply, of shape ``i % 10``."""
    doc = orjson.dumps(_document(rng, i)).decode()
    pretty = orjson.dumps(orjson.loads(doc), option=orjson.OPT_INDENT_2).decode()
    cut = {"finish_reason": "length"}
    shape = i % 10
    record: Any
    if shape == 0:
        record = f"Sure! Here is the data: {doc} Anything else?"
    elif shape == 1:
        record = {
            "content": f"Here you go:\n```json\n{pretty}\n```\n",
            "response_metadata": {},
        }
    elif shape == 2:
        record = {"content": doc[: len(doc) * 7 // 10], "response_metadata": cut}
    elif shape == 3:
        record = {"content": f"Sorry, I cannot find {_text(rng, 20)}."}
    elif shape == 4:
        record = f"<think>{_text(rng, 80)} {{draft}}</think>\n{doc}"
    elif shape == 5:
        python = doc.replace("true", "True").replace("false", "False")
        record = {"content": python.replace('"', "'")}
    elif shape == 6:
        record = {"content": [{"type": "text", "text": doc}]}
    elif shape == 7:
        record = {"id": i, "outputs": {"reply": doc}}
    elif shape == 8:
        record = f"```json\n{pretty[: len(pretty) // 2]}"
    else:
        record = doc
    return orjson.dumps(record)


def make_log(path: Path, lines: int) -> int:
    rng = random.Random(20261130)
    data = b"".join(log_line(rng, i) + b"\n" for i in range(lines))
    path.write_bytes(data)
    return len(data)


def time_cli(log: Path, out: Path, jobs: int) -> float:
    """Time ``jsonrecover batch`` in a fresh process (its start-up not counted).

    A fresh process, as a user runs it: this one holds the Dask client's
    threads, which would rule out forking the workers.
    """
    done = subprocess.run(  # noqa: S603 - this script, this interpreter
        [sys.executable, __file__, "--time-cli", str(jobs), str(log), str(out)],
        capture_output=True,
        check=True,
        timeout=3600,
    )
    return float(done.stdout)


def _time_cli_here(jobs: str, log: str, out: str) -> None:
    argv = ["batch", log, "--repair", "--truncated", "--jobs", jobs, "-o", out]
    with contextlib.redirect_stderr(io.StringIO()):
        start = time.perf_counter()
        code = main(argv)
        seconds = time.perf_counter() - start
    if code != 0:
        msg = f"jsonrecover batch exited {code}"
        raise SystemExit(msg)
    print(seconds)


SHAPES = [
    "prose around JSON",
    "fenced, pretty",
    "cut at 70 %, metadata says length",
    "prose, no JSON",
    "reasoning block, then JSON",
    "Python literals, single quotes",
    "content blocks",
    "record without a reply",
    "unclosed fence cut halfway",
    "clean JSON",
]


def cpu_per_line(log: Path) -> tuple[float, dict[int, float]]:
    """CPU seconds per line in this process: overall, and per shape (i % 10)."""
    lines = log.read_bytes().splitlines()
    start = time.process_time()
    for number, data in enumerate(lines, 1):
        recover_line(data, PARSER, line=number)
    overall = (time.process_time() - start) / len(lines)
    per_shape: dict[int, list[float]] = {}
    for i, data in enumerate(lines):
        start = time.process_time()
        recover_line(data, PARSER, line=i + 1)
        per_shape.setdefault(i % 10, []).append(time.process_time() - start)
    return overall, {k: statistics.mean(v) for k, v in sorted(per_shape.items())}


def _row_text(row: dict[str, Any]) -> str:
    return dump_json(row).decode()


def time_dask(log: Path, out_dir: Path) -> float:
    db = importlib.import_module("dask.bag")  # the dask extra (untyped)

    start = time.perf_counter()
    (
        db.read_text(str(log), blocksize=1 << 20)
        .map(orjson.loads)
        .map(recover_record, parser=PARSER)
        .map(_row_text)
        .to_textfiles(str(out_dir / "*.jsonl"))
    )
    return time.perf_counter() - start


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--time-cli", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time_cli:
        _time_cli_here(*args.time_cli)
        return

    dask = importlib.import_module("dask")  # the dask extra (untyped)
    distributed = importlib.import_module("distributed")

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = folder / "log.jsonl"
        size = make_log(log, args.lines)
        cpu, cpu_shapes = cpu_per_line(log)
        load_before = os.getloadavg()
        times: dict[str, list[float]] = {
            "1 process": [],
            "--jobs 2": [],
            "Dask, 2 workers": [],
        }
        with (
            distributed.LocalCluster(
                n_workers=2,
                processes=True,
                threads_per_worker=1,
                dashboard_address=None,
            ) as cluster,
            distributed.Client(cluster),
        ):
            time_dask(log, folder / "warm")  # workers import the package once
            for round_ in range(args.repeat):
                times["1 process"].append(time_cli(log, folder / "one.jsonl", 1))
                times["--jobs 2"].append(time_cli(log, folder / "two.jsonl", 2))
                times["Dask, 2 workers"].append(
                    time_dask(log, folder / f"dask{round_}")
                )
        load_after = os.getloadavg()
        one = (folder / "one.jsonl").read_bytes()
        if (folder / "two.jsonl").read_bytes() != one:
            raise SystemExit("--jobs 2 wrote other rows than 1 process")

    print(
        f"Versions: python {platform.python_version()} | dask {dask.__version__} | "
        f"langchain-jsonrecover {langchain_jsonrecover.__version__} | "
        f"{platform.machine()} ({os.cpu_count()} CPUs, {platform.system()})"
    )
    print(
        f"Log: {args.lines:,} lines, {size / 1e6:.1f} MB; median of {args.repeat} "
        f"rounds; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
    )
    print()
    base = statistics.median(times["1 process"])
    if args.markdown:
        print("| mode | seconds | lines/s | speed-up |")
        print("| --- | ---: | ---: | ---: |")
    for mode, samples in times.items():
        seconds = statistics.median(samples)
        rate = args.lines / seconds
        if args.markdown:
            print(f"| {mode} | {seconds:.2f} | {rate:,.0f} | {base / seconds:.2f}x |")
        else:
            print(
                f"{mode:>16}: {seconds:6.2f} s  {rate:8,.0f} lines/s  {base / seconds:.2f}x"
            )
    print()
    print(
        f"CPU time per line, one process: {cpu * 1e6:.0f} us "
        f"(about {1 / cpu:,.0f} lines per CPU-second); by shape:"
    )
    for shape, per_line in cpu_shapes.items():
        print(f"- {SHAPES[shape]}: {per_line * 1e6:.0f} us")


if __name__ == "__main__":
    main_bench()
