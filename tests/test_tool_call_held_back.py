# ruff: noqa: RUF001 - Chinese and Japanese replies use fullwidth punctuation
"""Call markup that the reply holds back, offers or sets apart is no call (issue 21).

Each row goes through ``recover_tool_calls`` with the tools, ``structured_output``
over the tools (the schema is the call's tool) and ``JsonRecoveryMiddleware``:
markup negated, proposed or asked about in other languages, offered as a list
item, an option, a draft or an example, followed by a line that asks for the
go-ahead, or set in emphasis, a table cell, a heading, ``<details>`` or
another speaker's line makes no call. A call sent in markup with a sequence
token or a lone fence around it is still a call, and its content is clean.
"""

from __future__ import annotations

import pytest
from _oracle_tools import Case
from _oracle_tools_runners import Runner, our_runners

CALL = '{"name": "SendEmail", "arguments": {"to": "all@corp.example", "subject": "x"}}'
OTHER = '{"name": "DeleteFile", "arguments": {"path": "/srv/data"}}'
T = f"<tool_call>{CALL}</tool_call>"
T2 = f"<tool_call>{OTHER}</tool_call>"
M = f"[TOOL_CALLS][{CALL}]"
H = (
    "<|start|>assistant<|channel|>commentary to=functions.SendEmail "
    '<|constrain|>json<|message|>{"to": "all@corp.example", "subject": "x"}<|call|>'
)
Q = (
    "<tool_call>\n<function=SendEmail>\n<parameter=to>\nall@corp.example\n"
    "</parameter>\n<parameter=subject>\nx\n</parameter>\n</function>\n</tool_call>"
)
SENT = (("SendEmail", {"to": "all@corp.example", "subject": "x"}),)

HELD_BACK = {
    # 1. Held back in other languages: the sentence around it, or its words.
    "fr_negated": f"Je n'exécuterai pas {T} avant votre confirmation.",
    "fr_if": f"Si vous êtes d'accord, j'enverrai :\n{T}",
    "de_question": f"Soll ich {M} ausführen?",
    "de_negated": f"Ich werde {T} nicht ausführen, bis Sie bestätigen.",
    "de_example": f"Zum Beispiel: {T}",
    "es_question": f"¿Quieres que ejecute {T}?",
    "es_if": f"Si estás de acuerdo, enviaría:\n{T}",
    "pt_negated": f"Não vou executar {T} sem a sua confirmação.",
    "it_negated": f"Non eseguirò {T} senza la tua conferma.",
    "ru_negated": f"Я не буду запускать {T} без вашего подтверждения.",
    "ru_if": f"Если вы согласны, я отправлю:\n{T}",
    "zh_negated": f"在您确认之前我不会运行 {T}。",
    "zh_if": f"如果您同意，我会发送：\n{T}",
    "ja_negated": f"確認するまで {T} は実行しません。",
    "ja_example": f"例えば：{H}",
    "harmony_in_sentence": f"Je n'exécuterai pas {H} avant votre confirmation.",
    "qwen_in_sentence": f"Ich werde {Q} nicht ausführen.",
    # 2. Options, drafts, examples, and a line after the call that asks.
    "numbered_options": f"1. {T}\n2. {T2}",
    "bulleted_options": f"- {T}\n- {T2}\nWhich one?",
    "option_a": f"Option A: {T}\nOption B: do nothing.",
    "draft": f"Draft: {T}",
    "example": f"Example: {T}",
    "e_g": f"e.g. {T}",
    "before_i_run": f"Before I run {T}, please say yes.",
    "call_it_like": f"You can call it like {T}",
    "harmony_call_it_like": f"You can call it like {H}",
    "alternatively": f"Alternatively:\n{T}",
    "let_me_know_if_i_should": f"{T}\nLet me know if I should run this.",
    "shall_i_proceed": f"{T}\nShall I proceed?",
    "want_me_to": f"{T}\nDo you want me to run this?",
    "de_after": f"{T}\nSoll ich das ausführen?",
    "zh_after": f"{T}\n要我执行吗？",
    "ja_after": f"{T}\n実行してもよろしいですか？",
    # 3. Emphasis, a table cell, a heading, <details>, another speaker.
    "emphasis": f"*{T}*",
    "strong": f"**{T}**",
    "underscore": f"_{Q}_",
    "struck": f"Sure. <s>{T}</s>",
    "table_cell": f"| tool | call |\n|---|---|\n| mail | {T} |",
    "heading": f"# {T}",
    "harmony_heading": f"# {H}",
    "details": f"<details><summary>Call</summary>{T}</details>",
    "details_block": f"<details>\n<summary>Call</summary>\n\n{T}\n\n</details>",
    "user_line": f"User: {T}",
    "human_line": f"Human: {Q}\n\nAssistant: I will wait.",
    # Found in this round's own adversarial pass.
    "transcript": f"User: send it\nAssistant: {T}",
    "ai_line": f"AI: {T}",
    "q_and_a": f"Q: How do I send mail?\nA: {T}",
    "link_text": f"[{T}](https://example.com)",
    "html_list_item": f"<ul><li>{T}</li></ul>",
    "html_cell": f"<table><tr><td>{T}</td></tr></table>",
    "de_would_like": f"Möchten Sie, dass ich Folgendes ausführe:\n{T}",
    "fr_conditional": f"Voici ce que j'enverrais :\n{T}",
    "ok_question": f"{T}\nOK?",
    "question_after": f"{T}\nDoes this look right?",
    "ko_question_after": f"{T}\n실행할까요?",
    "dry_run": f"Dry run:\n{T}",
    "mock": f"Mock:\n{T}",
    "simulated": f"Simulated call:\n{T}",
    "possible": f"Possible call:\n{T}",
    "preview": f"Preview:\n{T}",
    "example_after": f"{T}\n(This is just an example.)",
    "wrong_then_right": f"Wrong:\n{T2}\nRight:\n{T}",
    "expected_output": f"Expected output:\n{T}",
    "correct_format": f"Correct format:\n{T}",
    "zh_format": f"格式：\n{T}",
    "todo": f"TODO: {T}",
    "scheduled": f"Scheduled for tomorrow:\n{T}",
    "checkbox": f"[ ] {T}",
    "kidding_after": f"{T}\nJust kidding.",
}

SENT_WITH = {
    # Calls sent: a lead line, a closing line that asks for nothing.
    "lead_line": f"Sure, one moment.\n{T}",
    "de_lead_line": f"Ich rufe jetzt das Tool auf:\n{T}",
    "closing_line": f"{T}\nLet me know if you need anything else.",
    "closing_question": f"{T}\nCan I help with anything else?",
    "harmony": H,
    "qwen": Q,
    # 4. A sequence token or a lone fence around a call leaves the content.
    "start_and_end_tokens": f"<s>{T}</s>",
    "start_token": f"<s>{Q}",
    "end_token": f"{T}</s>",
    "unclosed_fence": f"```\n{T}",
    "lone_closing_fence": f"{T}\n```",
    "tokens_around_a_fence": f"<s>```\n{Q}\n```</s>",
}

RUNNERS = [
    r
    for r in our_runners()
    if r.name
    in {
        "recover_tool_calls(tools)",
        "recover_tool_calls(tools, repair=True)",
        "structured_output()",
        "JsonRecoveryMiddleware()",
    }
]


@pytest.mark.parametrize("runner", RUNNERS, ids=lambda r: r.name)
@pytest.mark.parametrize("text", list(HELD_BACK.values()), ids=list(HELD_BACK))
def test_held_back_markup_makes_no_call(text: str, runner: Runner) -> None:
    case = Case(0, "held_back", "table", text, (), (), "SendEmail")
    verdict, answer = runner.judge(case)
    assert answer.calls == ()
    assert verdict == "right"


@pytest.mark.parametrize("runner", RUNNERS, ids=lambda r: r.name)
@pytest.mark.parametrize("text", list(SENT_WITH.values()), ids=list(SENT_WITH))
def test_a_call_sent_stays_a_call_and_leaves_clean_content(
    text: str, runner: Runner
) -> None:
    case = Case(0, "sent", "table", text, (), SENT, "SendEmail")
    verdict, answer = runner.judge(case)
    assert answer.calls == SENT
    assert verdict == "right", answer.content
    assert "<s>" not in answer.content
    assert "```" not in answer.content
