"""A Griffe extension: read a Google-style ``Example:`` section as examples.

The package's docstrings title their doctests ``Example:`` (singular); Griffe's
Google parser reads only ``Examples:`` as an examples section and renders the
singular as an admonition, whose ``>>>`` lines would then be read as markdown.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

_SINGULAR = re.compile(r"^(\s*)Example:$", re.MULTILINE)


class ExampleSections(Extension):
    """Retitle each ``Example:`` section ``Examples:`` before it is parsed."""

    def on_object(self, *, obj: Object, **kwargs: Any) -> None:
        """Rewrite the object's docstring text in place."""
        del kwargs
        if obj.docstring is not None:
            obj.docstring.value = _SINGULAR.sub(r"\1Examples:", obj.docstring.value)
