"""The pattern check of ``RegexJsonOutputParser``, as a pure function."""

from __future__ import annotations

import re

import pytest

from langchain_jsonrecover._core.patterns import compile_pattern


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param("abc", "it has 0: 'abc'", id="no_group"),
        pytest.param("(a)(b)", "it has 2", id="two_groups"),
        pytest.param("(", "does not compile", id="does_not_compile"),
        pytest.param(re.compile(b"(a)"), "compiled str pattern", id="bytes"),
        pytest.param(42, "compiled str pattern", id="not_a_pattern"),
    ],
)
def test_unusable_patterns_are_value_errors(pattern: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        compile_pattern(pattern)  # type: ignore[arg-type]


def test_a_str_pattern_is_compiled_with_dotall() -> None:
    compiled = compile_pattern(r"<j>(.*)</j>")
    assert compiled.flags & re.DOTALL
    assert compiled.search("<j>{\n}</j>") is not None


def test_a_compiled_pattern_is_used_as_given() -> None:
    given = re.compile(r"<j>(.*)</j>")
    assert compile_pattern(given) is given
    assert not given.flags & re.DOTALL


def test_a_named_group_counts_and_a_non_capturing_one_does_not() -> None:
    assert compile_pattern(r"(?:x)(?P<json>.*)").groups == 1
    with pytest.raises(ValueError, match="it has 0"):
        compile_pattern(r"(?:x).*")
