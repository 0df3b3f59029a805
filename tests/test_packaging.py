"""What a user gets with the package: licence, changelog, version, extras."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from _shipped import needs
from hypothesis import HealthCheck, settings

import langchain_jsonrecover

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_licence_file_is_the_one_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_changelog_first_release_is_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(
        r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE
    )
    assert releases[0] == langchain_jsonrecover.__version__
    assert "## [Unreleased]" in text
    # Every release heading has its link.
    for version in releases:
        assert f"\n[{version}]: " in text


def test_sdist_ships_licence_and_changelog() -> None:
    include = PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    assert {"LICENSE", "CHANGELOG.md", "README.md"} <= set(include)


def test_dev_extra_pulls_the_extras_the_tests_need() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert (
        "langchain-jsonrecover[agents,dask,notebooks,jsonschema,bench]" in extras["dev"]
    )
    assert any(r.startswith("build") for r in extras["dev"])
    assert any(r.startswith("dask[") and "distributed" in r for r in extras["dask"])
    assert any(r.startswith("pandas") for r in extras["dask"])
    assert any(r.startswith("matplotlib") for r in extras["notebooks"])
    # Optional means optional: none of them is a runtime dependency.
    runtime = " ".join(PYPROJECT["project"]["dependencies"])
    for name in ("dask", "pandas", "matplotlib", "jsonschema"):
        assert name not in runtime


def test_project_urls_lead_to_pages() -> None:
    # No project page is published yet: a URL listed here would lead nowhere
    # (the docs are the repository's docs/ folder, linked from the README).
    assert "urls" not in PYPROJECT["project"]


def test_one_extra_per_purpose() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    contents = [tuple(sorted(requirements)) for requirements in extras.values()]
    assert len(set(contents)) == len(contents)
    assert extras["agents"] == ["langchain>=1.5"]
    assert "demo" not in extras
    assert any(r.startswith("mkdocs-material") for r in extras["docs"])
    assert any(r.startswith("mkdocstrings[python]") for r in extras["docs"])


def test_sdist_ships_the_docs_its_tests_read() -> None:
    include = PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    assert {"docs", "mkdocs.yml", "tests", "langchain_jsonrecover"} <= set(include)


@needs(".ci/run")
def test_ci_builds_the_docs_strictly() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -q -e '.[docs]'" in ci
    assert "mkdocs build --strict" in ci


def test_property_tests_run_under_the_profile_that_does_not_stick() -> None:
    # Loaded by conftest for every run, CI's included: a failure prints its
    # seed and blob, and no example database makes it stick to the clone.
    current = settings.default
    assert current is not None
    assert current.database is None
    assert current.print_blob is True
    # Nothing timed by the wall clock: a loaded machine must not fail a draw.
    assert current.deadline is None
    assert HealthCheck.too_slow in current.suppress_health_check


@needs(".ci/run")
def test_ci_builds_and_installs_the_wheel() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m build" in ci
    assert "jsonrecover --version" in ci
