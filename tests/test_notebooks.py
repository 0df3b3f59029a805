"""Every notebook in ``notebooks/`` runs top to bottom, and its saved outputs are current.

The notebooks are saved with their outputs (``python notebooks/run_all.py``), so a
person browsing them sees what they show without running anything. The
notebooks assert what they show, so executing them tests the documented
behaviour; and a saved text output that a fresh run no longer prints is stale:
the test fails and says which cell. Cells tagged ``nondeterministic`` (timings,
figures, cluster output) run but are not compared. Each notebook runs in a
fresh ``python3`` kernel with ``notebooks/`` as its working directory.
"""

from __future__ import annotations

import copy
import functools
import os
import sys

import nbformat
import pytest
from _corpora import MISSING, MISSING_REASON, REQUIRE_ENV
from _notebooks import (
    KERNEL_NAME,
    code_cells,
    execute,
    figure_targets,
    is_nondeterministic,
    notebook_names,
    read_notebook,
    stale_cells,
    text_outputs,
)
from _shipped import needs

import langchain_jsonrecover

pytestmark = needs("notebooks")

NOTEBOOK_NAMES = notebook_names()
RUN_COMMAND = "python notebooks/run_all.py"


NEEDS_CORPORA = frozenset({"04_benchmarks.ipynb"})
"""Notebooks that read the peers' corpora (beside the clone, as in CI)."""


@functools.cache
def executed(name: str) -> nbformat.NotebookNode:
    """One fresh run per notebook, shared by the tests below.

    A notebook that reads the peers' corpora is skipped where they are
    missing, as the conformance modules are (failed when they are required).
    """
    if name in NEEDS_CORPORA and MISSING and os.environ.get(REQUIRE_ENV) != "1":
        pytest.skip(MISSING_REASON)
    return execute(copy.deepcopy(read_notebook(name)))


def test_notebooks_exist() -> None:
    # An empty parameter set would only skip the tests below; fail instead.
    assert NOTEBOOK_NAMES[:5] == [
        "01_extracting_json.ipynb",
        "02_schemas_truncation_streaming_retry.ipynb",
        "03_tool_calls_and_agents.ipynb",
        "04_benchmarks.ipynb",
        "05_logged_replies_at_scale.ipynb",
    ]


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
def test_notebook_is_saved_executed(name: str) -> None:
    nb = read_notebook(name)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == KERNEL_NAME
    counts = [cell.execution_count for cell in code_cells(nb)]
    # Saved by one top-to-bottom run, not cell by cell in an editor.
    assert counts == list(range(1, len(counts) + 1)), f"re-run {RUN_COMMAND}"


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_runs_without_errors(name: str) -> None:
    errors = [
        output
        for cell in code_cells(executed(name))
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_saved_text_outputs_are_current(name: str) -> None:
    stale = stale_cells(read_notebook(name), executed(name))
    assert not stale, f"stale outputs, re-run {RUN_COMMAND} {name}:\n" + "\n".join(
        map(str, stale)
    )


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_saved_figures_are_in_the_notebook(name: str) -> None:
    # Every figure a cell asks to save is there to see on GitHub too, and
    # figures (never the same bytes twice) sit in nondeterministic cells.
    nb = read_notebook(name)
    figure_targets(nb)  # raises unless each such cell holds exactly one PNG
    for cell in code_cells(nb):
        has_image = any(
            "image/png" in output.get("data", {}) for output in cell.outputs
        )
        assert not has_image or is_nondeterministic(cell), cell.source


def test_a_changed_output_is_reported_stale() -> None:
    # The comparison itself can fail: change one printed line, and it does.
    cell = nbformat.v4.new_code_cell("print('a')\nprint('b')")  # type: ignore[no-untyped-call]
    nb: nbformat.NotebookNode = nbformat.v4.new_notebook(  # type: ignore[no-untyped-call]
        cells=[cell]
    )
    fresh = execute(copy.deepcopy(nb))
    assert text_outputs(fresh.cells[0]) == [("stream:stdout", "a\nb\n")]
    saved = copy.deepcopy(fresh)
    saved.cells[0].outputs[0]["text"] = "a\nc\n"
    assert [stale.index for stale in stale_cells(saved, fresh)] == [0]
    saved.cells[0].metadata["tags"] = ["nondeterministic"]
    assert stale_cells(saved, fresh) == []
