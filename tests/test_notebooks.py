"""Every notebook in ``notebooks/`` runs top to bottom, and is committed clean.

The notebooks assert what they show, so executing them tests the documented
behaviour. Each runs in a fresh ``python3`` kernel with ``notebooks/`` as its
working directory (so ``data/...`` paths resolve as they do in Jupyter).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

import langchain_jsonrecover

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOK_NAMES = sorted(path.name for path in NOTEBOOKS_DIR.glob("*.ipynb"))
KERNEL_NAME = "python3"
TIMEOUT_SECONDS = 120

# nbformat ships py.typed but leaves read() and the v4 constructors unannotated,
# hence the narrow no-untyped-call ignores below.


def read_notebook(name: str) -> nbformat.NotebookNode:
    nb: nbformat.NotebookNode = nbformat.read(  # type: ignore[no-untyped-call]
        NOTEBOOKS_DIR / name, as_version=4
    )
    return nb


def execute(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run every cell in a fresh kernel; raise on the first cell error.

    ``force_raise_errors`` also fails cells tagged ``raises-exception``.
    """
    client = nbclient.NotebookClient(
        nb,
        timeout=TIMEOUT_SECONDS,
        kernel_name=KERNEL_NAME,
        force_raise_errors=True,
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )
    client.execute()
    return nb


def code_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def test_notebooks_exist() -> None:
    # An empty parameter set would only skip the tests below; fail instead.
    assert NOTEBOOK_NAMES, f"no notebooks found in {NOTEBOOKS_DIR}"


def test_kernel_runs_this_interpreter() -> None:
    # The "python3" kernel must be this virtualenv's Python, with this checkout
    # of the package, or the notebooks would test something else.
    source = (
        "import sys, langchain_jsonrecover\n"
        "print(sys.prefix)\n"
        "print(langchain_jsonrecover.__file__)"
    )
    cell = nbformat.v4.new_code_cell(source)  # type: ignore[no-untyped-call]
    nb: nbformat.NotebookNode = nbformat.v4.new_notebook(  # type: ignore[no-untyped-call]
        cells=[cell]
    )
    execute(nb)
    (output,) = nb.cells[0].outputs
    lines: list[str] = output["text"].splitlines()
    assert lines == [sys.prefix, langchain_jsonrecover.__file__]


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_runs(name: str) -> None:
    nb = execute(read_notebook(name))
    errors = [
        output
        for cell in code_cells(nb)
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_is_committed_clean(name: str) -> None:
    nb = read_notebook(name)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == KERNEL_NAME
    dirty = [
        index
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        and (cell.outputs or cell.execution_count is not None)
    ]
    assert not dirty, f"cells {dirty} have outputs or execution counts; clear them"
