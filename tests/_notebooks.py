"""Execute the notebooks, save their outputs, and tell stale outputs apart.

Shared by ``notebooks/run_all.py`` (which executes the notebooks and saves them
with their outputs, and the figures they draw) and ``tests/test_notebooks.py``
(which re-executes them and fails when a saved text output is stale).

A code cell tagged ``nondeterministic`` (timings, figures, cluster output) is
run but its outputs are not compared. A cell whose metadata holds
``{"jsonrecover": {"save_figure": "docs/name.png"}}`` has the PNG it displays
written to that path, relative to the repository, by ``notebooks/run_all.py``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import nbclient
import nbformat

REPO: Final = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR: Final = REPO / "notebooks"
KERNEL_NAME: Final = "python3"
TIMEOUT_SECONDS: Final = 180
NONDETERMINISTIC: Final = "nondeterministic"

# nbformat ships py.typed but leaves read() and the v4 constructors unannotated,
# hence the narrow no-untyped-call ignores below.


def notebook_names() -> list[str]:
    return sorted(path.name for path in NOTEBOOKS_DIR.glob("*.ipynb"))


def read_notebook(name: str) -> nbformat.NotebookNode:
    nb: nbformat.NotebookNode = nbformat.read(  # type: ignore[no-untyped-call]
        NOTEBOOKS_DIR / name, as_version=4
    )
    return nb


def write_notebook(nb: nbformat.NotebookNode, name: str) -> None:
    nbformat.write(nb, NOTEBOOKS_DIR / name)  # type: ignore[no-untyped-call]


def execute(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run every cell in a fresh kernel, in ``notebooks/``; raise on a cell error.

    ``force_raise_errors`` also fails cells tagged ``raises-exception``. No
    per-cell timing is recorded, so a re-run changes only what the cells print.
    """
    client = nbclient.NotebookClient(
        nb,
        timeout=TIMEOUT_SECONDS,
        kernel_name=KERNEL_NAME,
        force_raise_errors=True,
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )
    client.execute()
    return nb


def code_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def is_nondeterministic(cell: nbformat.NotebookNode) -> bool:
    return NONDETERMINISTIC in cell.metadata.get("tags", [])


def text_outputs(cell: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """What a cell shows as text, in a form two runs can compare.

    Stream output is joined per stream (the kernel may split one print into
    several outputs); results and displays give their ``text/plain``; errors
    their name and value. Images and HTML are not compared.
    """
    streams: dict[str, str] = {}
    shown: list[tuple[str, str]] = []
    for output in cell.outputs:
        kind = output.output_type
        if kind == "stream":
            streams[output.name] = streams.get(output.name, "") + output.text
        elif kind in {"execute_result", "display_data"}:
            text = output.get("data", {}).get("text/plain")
            if text is not None:
                shown.append((kind, text))
        elif kind == "error":
            shown.append((kind, f"{output.ename}: {output.evalue}"))
    return [(f"stream:{name}", text) for name, text in sorted(streams.items())] + shown


@dataclass(frozen=True, slots=True)
class Stale:
    """A cell whose saved text output differs from a fresh run's."""

    index: int
    source: str
    saved: list[tuple[str, str]]
    fresh: list[tuple[str, str]]

    def __str__(self) -> str:
        first_line = self.source.splitlines()[0] if self.source else ""
        return (
            f"cell {self.index} ({first_line!r}):\n"
            f"    saved: {self.saved!r}\n"
            f"    fresh: {self.fresh!r}"
        )


def stale_cells(
    saved: nbformat.NotebookNode, fresh: nbformat.NotebookNode
) -> list[Stale]:
    """Cells whose text output changed, except those tagged nondeterministic."""
    if [cell.source for cell in saved.cells] != [cell.source for cell in fresh.cells]:
        msg = "the two notebooks do not hold the same cells"
        raise ValueError(msg)
    return [
        Stale(index, old.source, text_outputs(old), text_outputs(new))
        for index, (old, new) in enumerate(zip(saved.cells, fresh.cells, strict=True))
        if old.cell_type == "code"
        and not is_nondeterministic(old)
        and text_outputs(old) != text_outputs(new)
    ]


def figure_targets(nb: nbformat.NotebookNode) -> dict[Path, bytes]:
    """The PNG of each cell that asks for it to be saved, by repository path."""
    targets: dict[Path, bytes] = {}
    for cell in code_cells(nb):
        target = cell.metadata.get("jsonrecover", {}).get("save_figure")
        if target is None:
            continue
        images: list[Any] = [
            output["data"]["image/png"]
            for output in cell.outputs
            if output.output_type in {"display_data", "execute_result"}
            and "image/png" in output.get("data", {})
        ]
        if len(images) != 1:
            msg = f"a cell saving {target} must display exactly one PNG, not {len(images)}"
            raise ValueError(msg)
        targets[REPO / target] = base64.b64decode(images[0])
    return targets
