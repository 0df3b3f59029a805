"""The oracle scripts' tables: a count with its share, rows as text or markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections import Counter

Verdict = TypeVar("Verdict", bound=str)


def cell(counts: Counter[Verdict], verdict: Verdict) -> str:
    """``counts[verdict]`` and its share of all counts: ``12 (3.4%)``."""
    total = sum(counts.values())
    share = 100 * counts[verdict] / total if total else 0.0
    return f"{counts[verdict]} ({share:.1f}%)"


def table(header: list[str], rows: list[list[str]], *, markdown: bool) -> str:
    """The rows under the header: aligned columns, or a markdown table."""
    if markdown:
        lines = ["| " + " | ".join(header) + " |"]
        lines.append(
            "|" + "|".join(":--" if i == 0 else "--:" for i in range(len(header))) + "|"
        )
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(
        f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)
    )
    return "\n".join(fmt.format(*r) for r in [header, *rows])
