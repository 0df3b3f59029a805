"""Call markup labelled, described, reported as run or held back in more languages.

Issue 21, tool calls, round three. Each row goes through ``recover_tool_calls``
with the tools, ``structured_output`` over the tools and
``JsonRecoveryMiddleware``: markup under a label that makes it a step, a plan,
a test or a bad form, markup a lead describes (``Here is how a call looks:``)
or reports as already run (``Yesterday I ran:``), a go-ahead question below a
``---`` rule, and the common hold-backs in Korean, Vietnamese, Turkish,
Dutch, Polish, Arabic and Hindi make no call. A lead line that sends its call
keeps it, whatever word it holds (a retry, ``categoría``, ``Answer:``).
"""

from __future__ import annotations

import pytest
from _oracle_tools import Case
from _oracle_tools_prose import HELD_BACK, KEPT
from _oracle_tools_runners import Runner, our_runners

CALL = '{"name": "SendEmail", "arguments": {"to": "all@corp.example", "subject": "x"}}'
OTHER = '{"name": "DeleteFile", "arguments": {"path": "/srv/data"}}'
MARKUPS = (
    f"<tool_call>{CALL}</tool_call>",
    f"[TOOL_CALLS][{CALL}]",
    (
        "<|start|>assistant<|channel|>commentary to=functions.SendEmail "
        '<|constrain|>json<|message|>{"to": "all@corp.example", "subject": "x"}<|call|>'
    ),
    (
        "<tool_call>\n<function=SendEmail>\n<parameter=to>\nall@corp.example\n"
        "</parameter>\n<parameter=subject>\nx\n</parameter>\n</function>\n</tool_call>"
    ),
)
SECOND = f"<tool_call>{OTHER}</tool_call>"
SENT = (("SendEmail", {"to": "all@corp.example", "subject": "x"}),)

HELD_BACK_ROWS = [
    pytest.param(
        template.format(m=MARKUPS[i % len(MARKUPS)], m2=SECOND), id=f"{kind}-{i}"
    )
    for kind in ("labels", "more_languages")
    for i, template in enumerate(HELD_BACK[kind])
] + [
    pytest.param(f"Step 2 (after you confirm): {MARKUPS[0]}", id="step_qualified"),
    pytest.param(f"**Bad:**\n{MARKUPS[0]}", id="bad_in_bold"),
    pytest.param(f"Incorrect:\n{MARKUPS[0]}", id="incorrect"),
    pytest.param(f"Previously I ran:\n{MARKUPS[0]}", id="previously"),
    pytest.param(f"{MARKUPS[0]}\n\n___\n\nShall I go on?", id="underscore_rule"),
]
KEPT_ROWS = [
    pytest.param(template.format(m=MARKUPS[i % len(MARKUPS)]), id=f"kept-{i}")
    for i, template in enumerate(KEPT)
] + [
    pytest.param(f"La batería está baja, reviso:\n{MARKUPS[0]}", id="es_noun_eria"),
    pytest.param(f"Voici les frais :\n{MARKUPS[0]}", id="fr_frais"),
    pytest.param(f"That was wrong, fixing it now:\n{MARKUPS[0]}", id="fixing"),
    pytest.param(f"Good news, sending it now:\n{MARKUPS[0]}", id="good_news"),
]

RUNNERS = [
    r
    for r in our_runners()
    if r.name
    in {
        "recover_tool_calls(tools)",
        "structured_output()",
        "JsonRecoveryMiddleware()",
    }
]


@pytest.mark.parametrize("runner", RUNNERS, ids=lambda r: r.name)
@pytest.mark.parametrize("text", HELD_BACK_ROWS)
def test_labelled_described_past_or_foreign_markup_makes_no_call(
    text: str, runner: Runner
) -> None:
    case = Case(0, "held_back", "table", text, (), (), "SendEmail")
    verdict, answer = runner.judge(case)
    assert answer.calls == ()
    assert verdict == "right"


@pytest.mark.parametrize("runner", RUNNERS, ids=lambda r: r.name)
@pytest.mark.parametrize("text", KEPT_ROWS)
def test_a_lead_that_sends_its_call_keeps_it(text: str, runner: Runner) -> None:
    case = Case(0, "sent", "table", text, (), SENT, "SendEmail")
    verdict, answer = runner.judge(case)
    assert answer.calls == SENT
    assert verdict == "right", answer.content
