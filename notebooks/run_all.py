"""Execute the notebooks and save them with their outputs (and their figures).

How to run (from the repository root, with the ``notebooks`` and ``bench``
extras installed)::

    python notebooks/run_all.py                 # every notebook, saved in place
    python notebooks/run_all.py 04_benchmarks.ipynb
    python notebooks/run_all.py --check         # re-execute, save nothing, exit 1 if stale

Each notebook runs top to bottom in a fresh ``python3`` kernel with
``notebooks/`` as its working directory. Figures are drawn with matplotlib's
Agg backend; a cell whose metadata holds ``{"jsonrecover": {"save_figure":
"docs/benchmark.png"}}`` also has its PNG written there (the README shows it).
``--check`` is what ``tests/test_notebooks.py`` does: text outputs of cells
not tagged ``nondeterministic`` must equal the saved ones.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _notebooks import (
    REPO,
    execute,
    figure_targets,
    notebook_names,
    read_notebook,
    stale_cells,
    write_notebook,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook file names (default: all)")
    parser.add_argument(
        "--check", action="store_true", help="compare with the saved outputs only"
    )
    args = parser.parse_args(argv)
    names = args.names or notebook_names()
    failures = 0
    for name in names:
        started = time.perf_counter()
        saved = read_notebook(name)
        fresh = execute(copy.deepcopy(saved))
        elapsed = time.perf_counter() - started
        if args.check:
            stale = stale_cells(saved, fresh)
            failures += bool(stale)
            status = f"{len(stale)} stale cell(s)" if stale else "current"
            print(f"{name}: {status} ({elapsed:.1f} s)")
            for cell in stale:
                print(f"  {cell}")
            continue
        write_notebook(fresh, name)
        print(f"{name}: executed and saved ({elapsed:.1f} s)")
        for path, png in figure_targets(fresh).items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png)
            print(f"  figure: {path.relative_to(REPO)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
