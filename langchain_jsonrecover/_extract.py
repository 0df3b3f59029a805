"""Where :class:`~langchain_jsonrecover.Extraction` lived before the core moved.

Kept so that the class keeps its ``__module__`` (pickles name a class by its
module): the class is defined in ``langchain_jsonrecover._core.extract``.

Example:
    >>> from langchain_jsonrecover._extract import Extraction
    >>> Extraction.__module__
    'langchain_jsonrecover._extract'
"""

from __future__ import annotations

from typing import Any

from langchain_jsonrecover._core.candidates.kinds import Step
from langchain_jsonrecover._core.extract import Extraction

# The names its fields' annotations use, for ``typing.get_type_hints``.
__all__ = ["Any", "Extraction", "Step"]
