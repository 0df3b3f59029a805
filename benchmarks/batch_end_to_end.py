"""``jsonrecover batch`` end to end: one job against ``--jobs 2``, start-up included.

What it measures
    The log of ``batch_throughput.py`` (fixed seed, ten shapes of logged
    replies; ``--lines``, default 20,000), re-parsed with
    ``jsonrecover batch LOG --repair --truncated --jobs N -o OUT`` run as the
    console script runs it, in a fresh interpreter: wall-clock time from the
    process's start to its exit (start-up, imports, the pool's start, reading,
    writing, the summary), the best of ``--repeat`` rounds (default 3), one
    job and two jobs interleaved within each round. Beside it, the time
    ``main()`` takes inside the process (``batch_throughput.time_cli``:
    start-up left out), to show what start-up costs. The rows of both modes
    are compared (they must be the same bytes). The load average is printed
    before and after: the machine's other programs take cores from the pool.
    The same command on an empty log gives the fixed cost of each mode
    (start-up, the pool's start, exit), and from it the best speed-up two
    cores allow: the fixed cost of two jobs plus half the work of one.

Run: ``python benchmarks/batch_end_to_end.py`` (``--lines N``, ``--repeat R``).
``--beside REV`` runs that revision's package too (``git archive``, on
``PYTHONPATH`` in its processes), its runs interleaved with this tree's in
every round, so that load hits both alike; its table follows this tree's
(end to end only). Both packages are compiled to bytecode first, so that
neither run pays for compiling (``PYTHONDONTWRITEBYTECODE`` would make every
fresh interpreter compile a package without ``.pyc`` files).
Target (issue 24): ``--jobs 2`` at least 1.8x one job, end to end.
"""

from __future__ import annotations

import argparse
import compileall
import io
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from batch_throughput import make_log, time_cli

_ROOT = Path(__file__).resolve().parent.parent
_MAIN = "import sys; from langchain_jsonrecover.cli import main; sys.exit(main())"


def _cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def end_to_end(
    log: Path, out: Path, jobs: int, root: Path = _ROOT
) -> tuple[float, float]:
    """Wall and CPU seconds of ``jsonrecover batch`` in a fresh interpreter.

    The CPU time is the process's and its workers' (reaped by it), user and
    system: what the run cost the machine, however loaded it is. ``root``
    holds the package that runs (default: this tree's).
    """
    argv = ["batch", str(log), "--repair", "--truncated", "--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    cpu = _cpu_of_children()
    start = time.perf_counter()
    subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
        [sys.executable, "-c", _MAIN, *argv, "-o", str(out)],
        capture_output=True,
        check=True,
        env=env,
        timeout=3600,
    )
    return time.perf_counter() - start, _cpu_of_children() - cpu


def unpack_revision(revision: str, into: Path) -> Path:
    """The package at ``revision`` (``git archive``) under ``into``: its root."""
    archive = subprocess.run(  # noqa: S603 - git, fixed arguments
        ["git", "archive", "--format=tar", revision, "langchain_jsonrecover"],  # noqa: S607
        capture_output=True,
        check=True,
        cwd=_ROOT,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    _compile(into / "langchain_jsonrecover")
    return into


def _compile(package: Path) -> None:
    """Write the package's bytecode, so that no run compiles it again.

    With ``PYTHONDONTWRITEBYTECODE`` set, a package without up-to-date
    ``.pyc`` files is compiled in every fresh interpreter (0.1 s here), which
    would be counted against it.
    """
    if not compileall.compile_dir(package, quiet=1):
        raise SystemExit(f"{package} does not compile")


def _table(best: dict[str, float]) -> None:
    print("| mode | one job | --jobs 2 | speed-up |")
    print("|---|---|---|---|")
    rows = [("end to end (start-up included)", best["e1"], best["e2"])]
    if "i1" in best:
        rows.append(("main() only (start-up left out)", best["i1"], best["i2"]))
    for name, one, two in rows:
        print(f"| {name} | {one:.2f} s | {two:.2f} s | {one / two:.2f}x |")
    print(
        f"| CPU, end to end (all processes) | {best['c1']:.2f} s | "
        f"{best['c2']:.2f} s | {best['c1'] / best['c2']:.2f}x |"
    )
    work = best["e1"] - best["f1"]
    ceiling = best["e1"] / (best["f2"] + work / 2)
    print(
        f"| fixed cost (an empty log) | {best['f1']:.2f} s | {best['f2']:.2f} s "
        f"| ceiling {ceiling:.2f}x |"
    )
    print(
        f"Ceiling: one job's {best['e1']:.2f} s over --jobs 2's fixed "
        f"{best['f2']:.2f} s plus half of one job's work ({work:.2f} s)."
    )


def main() -> None:
    """Print the best times of one job and two, end to end and in-process."""
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--lines", type=int, default=20_000)
    options.add_argument("--repeat", type=int, default=3)
    options.add_argument("--beside", metavar="REV", help="another revision too")
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = folder / "log.jsonl"
        size = make_log(log, args.lines)
        _compile(_ROOT / "langchain_jsonrecover")
        roots = {"this tree": _ROOT}
        if args.beside is not None:
            roots[args.beside] = unpack_revision(args.beside, folder / "beside")
        load_before = os.getloadavg()
        empty = folder / "empty.jsonl"
        empty.write_bytes(b"")
        keys = ("e1", "e2", "c1", "c2", "f1", "f2")
        best = {name: dict.fromkeys(keys, float("inf")) for name in roots}
        best["this tree"].update(i1=float("inf"), i2=float("inf"))
        outputs: set[bytes] = set()
        for _ in range(args.repeat):
            for name, root in roots.items():
                mine = best[name]
                for jobs in (1, 2):
                    out = folder / f"{jobs}.jsonl"
                    wall, cpu = end_to_end(log, out, jobs, root)
                    outputs.add(out.read_bytes())
                    mine[f"e{jobs}"] = min(mine[f"e{jobs}"], wall)
                    mine[f"c{jobs}"] = min(mine[f"c{jobs}"], cpu)
                    fixed, _ = end_to_end(empty, folder / "none.jsonl", jobs, root)
                    mine[f"f{jobs}"] = min(mine[f"f{jobs}"], fixed)
            mine = best["this tree"]
            mine["i1"] = min(mine["i1"], time_cli(log, folder / "in1.jsonl", 1))
            mine["i2"] = min(mine["i2"], time_cli(log, folder / "in2.jsonl", 2))
        load_after = os.getloadavg()
        if len(outputs) != 1:
            raise SystemExit("the runs wrote different rows")
    print(
        f"Log: {args.lines:,} lines, {size / 1e6:.1f} MB; best of {args.repeat} "
        f"rounds; {os.cpu_count()} CPUs; load average {load_before[0]:.2f} "
        f"before, {load_after[0]:.2f} after"
    )
    for name in roots:
        if len(roots) > 1:
            print(f"\n{name}:")
        _table(best[name])


if __name__ == "__main__":
    main()
