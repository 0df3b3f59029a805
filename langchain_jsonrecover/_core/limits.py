"""The extraction's default limits, in a module that imports nothing.

The command line reads them to write its ``--help`` without loading the
extraction (whose patterns take a tenth of a second to compile).

Example:
    >>> DEFAULT_MAX_CHARS
    10000000
"""

from __future__ import annotations

from typing import Final

DEFAULT_MAX_CHARS: Final = 10_000_000
"""Longer replies are refused before any scan."""
