"""Start-up of the ``jsonrecover`` command, against ``python -c pass``.

What it measures
    Wall-clock time of a fresh interpreter, the best of ``--repeat`` rounds
    (the best, not the median: start-up is a fixed cost, and load from other
    programs only ever adds to it), the commands interleaved within each
    round:

    * ``python -c pass`` (the floor);
    * ``jsonrecover --version``;
    * ``echo '{"a":1}' | jsonrecover`` (the extract path, the pure core);
    * ``jsonrecover batch -`` on one reply (the batch path, the pure core
      too; its summary and the pool's machinery loaded);
    * ``import langchain_jsonrecover.parsers`` (LangChain's share, for scale).

    The command runs as the console script does (``main()`` from
    ``langchain_jsonrecover.cli``), with this checkout first on the path and
    its bytecode cached as an installed wheel's is (``PYTHONDONTWRITEBYTECODE``
    is dropped for the children: compiling every module again would count
    otherwise). The load average is printed before and after, and beside the
    wall time the CPU time of the child (on a busy machine it moves less).

Run: ``python benchmarks/startup.py`` (``--repeat N``, default 7).
Targets (issue 24): ``--version`` under 100 ms over ``python -c pass``, the
extract path under 150 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
_MAIN = "import sys; from langchain_jsonrecover.cli import main; sys.exit(main())"
_CASES: dict[str, tuple[list[str], bytes]] = {
    "python -c pass": (["-c", "pass"], b""),
    "jsonrecover --version": (["-c", _MAIN, "--version"], b""),
    "echo '{\"a\":1}' | jsonrecover": (["-c", _MAIN], b'{"a":1}\n'),
    "echo '\"{}\"' | jsonrecover batch -": (["-c", _MAIN, "batch", "-"], b'"{}"\n'),
    "import langchain_jsonrecover.parsers": (
        ["-c", "import langchain_jsonrecover.parsers"],
        b"",
    ),
}


def _once(args: list[str], stdin: bytes) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh interpreter running ``args``."""
    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        check=True,
        env=env,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> None:
    """Print the best wall time of each case and its excess over the floor."""
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--repeat", type=int, default=7)
    repeat = options.parse_args().repeat
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for args, stdin in _CASES.values():
        _once(args, stdin)  # bytecode written, files in the page cache
    best = dict.fromkeys(_CASES, float("inf"))
    cpu = dict.fromkeys(_CASES, float("inf"))
    for _ in range(repeat):
        for name, (args, stdin) in _CASES.items():
            wall, used = _once(args, stdin)
            best[name] = min(best[name], wall)
            cpu[name] = min(cpu[name], used)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    floor, cpu_floor = best["python -c pass"], cpu["python -c pass"]
    print(f"| command | best of {repeat} | over python -c pass | CPU over it |")
    print("|---|---|---|---|")
    for name, seconds in best.items():
        over, cpu_over = seconds - floor, cpu[name] - cpu_floor
        print(
            f"| `{name}` | {seconds * 1e3:.0f} ms | {over * 1e3:.0f} ms"
            f" | {cpu_over * 1e3:.0f} ms |"
        )


if __name__ == "__main__":
    main()
