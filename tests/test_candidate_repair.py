"""The repair pass over failing candidates (``_candidate_repair``)."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.candidates.read import iter_candidates
from langchain_jsonrecover._core.candidates.repair import RepairPass
from langchain_jsonrecover._core.reply.markup import prepare_reply

SCAN = Scan(max_depth=200)


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        pytest.param("{'a': 1,}", {"a": 1}, id="broken_reply"),
        pytest.param("{'a': 1,} thanks!", {"a": 1}, id="prose_after_it"),
        pytest.param("{'a': 1,} or {'b': 2}", None, id="another_value_follows"),
        pytest.param("Sure: {'a': 1}", None, id="not_at_the_start"),
        pytest.param("{'a': [1,", None, id="cut_off"),
    ],
)
def test_whole_reply_as_one_broken_value(reply: str, value: Any) -> None:
    found = RepairPass(prepare_reply(reply), SCAN).repair_whole()
    assert (found.value if found is not None else None) == value


@pytest.mark.parametrize(
    ("reply", "scan", "values"),
    [
        pytest.param(
            "Sure: {'a': 1} or {'b': [1, 2,]}",
            SCAN,
            [{"a": 1}, {"b": [1, 2]}],
            id="each_in_order",
        ),
        # After a broken object, an array in the prose is no candidate.
        pytest.param(
            "Sure: {'a': 1} or [1, 2,]", SCAN, [{"a": 1}], id="no_array_after"
        ),
        pytest.param('Sure: {"a": 1}', SCAN, [], id="a_value_needs_no_repair"),
        pytest.param("Sure: {'a': [1,", SCAN, [], id="cut_and_not_closed"),
        pytest.param(
            "Sure: {'a': [1,",
            Scan(200, close_truncated=True),
            [{"a": [1]}],
            id="cut_and_closed",
        ),
    ],
)
def test_failing_candidates_repaired(reply: str, scan: Scan, values: list[Any]) -> None:
    prepared = prepare_reply(reply)
    tried = list(iter_candidates(prepared, scan))
    repaired = RepairPass(prepared, scan).repair_each(tried)
    assert [c.value for c in repaired] == values


def test_a_text_is_repaired_once_per_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain_jsonrecover._core.candidates.repair as module  # noqa: PLC0415
    from langchain_jsonrecover._core.repair.syntax import repair as real  # noqa: PLC0415

    texts: list[str] = []

    def counting(text: str, **kwargs: Any) -> Any:
        texts.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(module, "repair_syntax", counting)
    prepared = prepare_reply("{'a': 1,} and {'b': 2,}")
    repair_pass = RepairPass(prepared, SCAN)
    assert repair_pass.repair_whole() is None  # another value follows
    tried = list(iter_candidates(prepared, SCAN))
    assert [c.value for c in repair_pass.repair_each(tried)] == [{"a": 1}, {"b": 2}]
    assert len(texts) == len(set(texts)) == 2
