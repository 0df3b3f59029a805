"""A seeded slice of ``benchmarks/fuzz_tool_calls.py``: no call the text did not make.

Known calls in every markup form, one fault each (``tests/_fuzz_tools.py``),
read by ``recover_tool_calls`` at each ``repair`` level: every answer is the
original's calls, or none (for a cut reply, the calls before the cut).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pytest
from _fuzz_tools import FORMS, JSON_FAULTS, TOOLS, Case, generate, judge
from langchain_core.messages import AIMessage

from langchain_jsonrecover import recover_tool_calls

if TYPE_CHECKING:
    from langchain_jsonrecover._core.levels import Repair

CASES: Final = generate(seed=23, count=240)


def test_the_slice_covers_every_form_and_fault() -> None:
    assert {case.form for case in CASES} == set(FORMS)
    assert {case.fault for case in CASES} == set(JSON_FAULTS)


@pytest.mark.parametrize("repair", ["safe", False])
def test_no_call_the_text_did_not_make(repair: Repair) -> None:
    wrong: list[tuple[str, Case]] = []
    for case in CASES:
        message = recover_tool_calls(AIMessage(case.text), TOOLS, repair=repair)
        calls = [(c["name"], dict(c["args"])) for c in message.tool_calls]
        if judge(case, calls) == "wrong":
            wrong.append((case.label, case))
    assert wrong == []


def test_the_judge_counts_a_call_dropped_or_changed_as_wrong() -> None:
    case = Case(0, "hermes", "none", "", (("send", {"a": 1}), ("send", {"b": 2})))
    assert judge(case, [("send", {"a": 1}), ("send", {"b": 2})]) == "right"
    assert judge(case, []) == "error"
    assert judge(case, [("send", {"a": 1})]) == "wrong"
    assert judge(case, [("send", {"a": 2}), ("send", {"b": 2})]) == "wrong"
    cut = Case(0, "hermes", "cut", "", case.expected, cut=True)
    assert judge(cut, [("send", {"a": 1})]) == "error"
    assert judge(cut, [("send", {"b": 2})]) == "wrong"


_VALUES: Final = "<tool_call>send\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n"


@pytest.mark.parametrize(
    ("reply", "called"),
    [
        # Cut inside the next opening tag: another value may have followed.
        (f"{_VALUES}<arg_k", False),
        (f"{_VALUES}<", False),
        ('<invoke name="send">\n<parameter name="a">1</parameter>\n<param', False),
        ("<tool_call>\n<function=send>\n<parameter=a>\n1\n</parameter>\n<para", False),
        # Cut inside the closing tag: every value is there.
        (f"{_VALUES}</tool_ca", True),
        ("<tool_call>\n<function=send>\n<parameter=a>\n1\n</parameter>\n</fun", True),
    ],
)
def test_a_key_value_call_cut_inside_its_next_tag_is_cut(
    reply: str, *, called: bool
) -> None:
    message = recover_tool_calls(AIMessage(reply), TOOLS)
    assert [c["args"] for c in message.tool_calls] == ([{"a": 1}] if called else [])
    if not called:
        assert "cut off" in str(message.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    "reply",
    [
        # The first call's '{' lost: it is withheld, and so is the second.
        '<function=send>"a": 1}</function>\n<function=send>{"b": 2}</function>',
        "<function=send>a = 1</function>\n<function=send>{}</function>",
    ],
)
def test_a_function_body_that_does_not_read_is_a_call_withheld(reply: str) -> None:
    message = recover_tool_calls(AIMessage(reply), TOOLS)
    assert message.tool_calls == []
    assert [c["name"] for c in message.invalid_tool_calls] == ["send", "send"]
