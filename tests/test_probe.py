"""The token probe: ``str.find`` for a token's first character, then the token.

Its answers are those of ``str.find`` and ``finditer`` (checked on texts full
of the first character and on random ones), and its work stays linear on a
text where every probe misses: after a few places the full search takes over.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from _counting import CountingStr, Tally, assert_linear_work
from hypothesis import given
from hypothesis import strategies as st

from langchain_jsonrecover._core.reply.probe import find_token, led_matches

if TYPE_CHECKING:
    from collections.abc import Callable

_TAG = re.compile(r"<(/?)(think|thinking)\s*>", re.IGNORECASE)
_ALPHABET = st.sampled_from(["<", "`", " ", "a", "think", ">", "/", "|", "```", "\n"])


@pytest.mark.parametrize(
    ("text", "token", "start"),
    [
        pytest.param("", "```", 0, id="empty"),
        pytest.param("` `` ```", "```", 0, id="shorter_runs_first"),
        pytest.param("`" * 3, "```", 1, id="start_inside_the_run"),
        pytest.param("` " * 20 + "```", "```", 0, id="past_the_probes"),
        pytest.param("< " * 20 + "<|end|>", "<|end|>", 3, id="token_after_many_leads"),
        pytest.param("< " * 20, "<|end|>", 0, id="leads_only"),
    ],
)
def test_find_token_is_str_find(text: str, token: str, start: int) -> None:
    assert find_token(text, token, start) == text.find(token, start)


@given(st.lists(_ALPHABET, max_size=40).map("".join), st.integers(0, 10))
def test_find_token_is_str_find_on_any_text(text: str, start: int) -> None:
    for token in ("```", "<|message|>", "<think>"):
        assert find_token(text, token, start) == text.find(token, start)


@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_led_matches_are_finditer(text: str) -> None:
    found = [m.span() for m in led_matches(_TAG, text, "<")]
    assert found == [m.span() for m in _TAG.finditer(text)]


def _probe_work(text: str) -> tuple[Tally, int]:
    tally = Tally()
    counted = CountingStr(text, tally.charge)
    return tally, find_token(counted, "```") + len(
        list(led_matches(_TAG, counted, "<"))
    )


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda n: "`` " * n, id="backtick_pairs"),
        pytest.param(lambda n: "< " * n, id="angle_brackets"),
        pytest.param(lambda n: "<think>x" * n, id="many_tags"),
    ],
)
def test_probing_takes_linear_work(build: Callable[[int], str]) -> None:
    assert_linear_work(_probe_work, build, 2000)
