"""What the source distribution ships, for tests that read files outside it.

An sdist holds the package, the tests, the docs and the top-level files, not
the repository's ``.ci/`` or ``notebooks/``. A test that reads one of those
skips with a reason when it runs from an unpacked sdist (which has
``PKG-INFO`` at its top), and runs, strictly, in a clone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_SDIST = (ROOT / "PKG-INFO").is_file()


def needs(relative: str) -> pytest.MarkDecorator:
    """Skip in an sdist that does not ship ``relative``; never in a clone."""
    missing = IN_SDIST and not (ROOT / relative).exists()
    return pytest.mark.skipif(
        missing, reason=f"{relative} is not shipped in the sdist (run in a clone)"
    )
