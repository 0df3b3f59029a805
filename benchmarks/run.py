"""Every speed table in one run: extraction, truncated, streaming, repair, targets.

Each table is also a script of its own (``extraction.py``, ``truncated.py``,
``streaming.py``, ``syntax_repair.py``, ``targets.py``); this one runs their
sections in one process, in that order, with the shared options. The method
(ratios to ``orjson.loads`` on the clean payload, same process and run,
interleaved, median of the samples, CPU time) is written once in the README
("Benchmarks"); the shared helpers are ``_timing.py`` (clocks and medians),
``_data.py`` and ``_faults.py`` (payloads, fixed seeds), ``_cases.py`` (tools,
checked and timed rows) and ``_report.py`` (tables and the ``main``).
Comparing with older revisions of the package: ``beside.py``.

How to run
    pip install -e '.[bench]'            # json-repair is optional
    python benchmarks/run.py             # full run, about four minutes
    python benchmarks/run.py --quick     # smoke run, about 30 seconds
    python benchmarks/run.py --markdown  # the tables as markdown
    python benchmarks/run.py --wall      # wall-clock samples (idle machine)

The exit status is 1 when our extractor or parsers (whole or streamed) return
a wrong value or raise on any case (speed targets only print PASS/FAIL;
timings are too noisy to gate on).
"""

from __future__ import annotations

import sys
from typing import Final

import extraction
import streaming
import syntax_repair
import targets
import truncated
from _report import run_sections

SECTIONS: Final = (
    extraction.SECTION,
    truncated.SECTION,
    streaming.SECTION,
    syntax_repair.SECTION,
    targets.SECTION,
)


if __name__ == "__main__":
    sys.exit(run_sections(SECTIONS, script=__file__, doc=__doc__))
