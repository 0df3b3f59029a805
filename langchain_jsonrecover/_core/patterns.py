"""Checking a caller's JSON-capturing pattern before any reply is seen.

Used by ``RegexJsonOutputParser`` at construction: a pattern that does not
compile, is a bytes pattern, or does not have exactly one capture group is a
``ValueError`` there, not a surprise at parse time.
"""

from __future__ import annotations

import re

__all__ = ["compile_pattern"]


def compile_pattern(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    """Compile a JSON-capturing pattern, checking it has one capture group.

    Args:
        pattern: A ``str`` (compiled with ``re.DOTALL``) or a compiled pattern.

    Returns:
        The compiled pattern.

    Raises:
        ValueError: It does not compile, is not a ``str`` pattern, or does not
            have exactly one capture group.

    Example:
        >>> compile_pattern(r"<json>(.*?)</json>").flags & re.DOTALL != 0
        True
        >>> compile_pattern(r"<j>.*</j>")
        Traceback (most recent call last):
        ...
        ValueError: pattern must have exactly one capture group, it has 0: '<j>.*</j>'
    """
    if isinstance(pattern, str):
        try:
            pattern = re.compile(pattern, re.DOTALL)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from exc
    if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
        raise ValueError("pattern must be a str or a compiled str pattern")  # noqa: TRY004
    if pattern.groups != 1:
        raise ValueError(
            f"pattern must have exactly one capture group, it has {pattern.groups}: "
            f"{pattern.pattern!r}"
        )
    return pattern
