"""Replies of the tool-call oracle's issue-21 round-two kinds (templates only).

``{m}`` is a call in a model's markup, ``{m2}`` a second one (another call).
Each template of :data:`HELD_BACK` holds its markup back, proposes it, lists
it as an option or puts it where no call is made (emphasis, a table cell, a
heading, ``<details>``, another speaker's line): no call. Each template of
:data:`WRAPPED` sends its call, with a sequence token or a fence left around
it that must not stay in the content once the call leaves it.
"""

# ruff: noqa: RUF001 - Chinese and Japanese replies use fullwidth punctuation
from __future__ import annotations

from typing import Final

HELD_BACK: Final = {
    # Prose that negates, proposes or quotes the call, in other languages.
    "foreign": (
        "Je n'exécuterai pas {m} avant votre confirmation.",
        "Voulez-vous que j'exécute {m} ?",
        "Si vous êtes d'accord, j'enverrai :\n{m}",
        "Par exemple : {m}",
        "Soll ich {m} ausführen?",
        "Ich werde {m} nicht ausführen, bis Sie bestätigen.",
        "Falls Sie zustimmen, würde ich Folgendes senden:\n{m}",
        "Zum Beispiel: {m}",
        "¿Quieres que ejecute {m}?",
        "No ejecutaré {m} sin tu confirmación.",
        "Si estás de acuerdo, enviaría:\n{m}",
        "Não vou executar {m} sem a sua confirmação.",
        "Se concordar, eu enviaria:\n{m}",
        "Non eseguirò {m} senza la tua conferma.",
        "Se sei d'accordo, invierei:\n{m}",
        "Я не буду запускать {m} без вашего подтверждения.",
        "Если вы согласны, я отправлю:\n{m}",
        "在您确认之前我不会运行 {m}。",
        "如果您同意，我会发送：\n{m}",
        "例如：{m}",
        "確認するまで {m} は実行しません。",
        "ご承認いただければ、次を送信します：\n{m}",
        "例えば：{m}",
    ),
    # Calls offered as options, drafts or examples, or asked about in the
    # sentence that holds them.
    "options": (
        "1. {m}\n2. {m2}",
        "- {m}\n- {m2}\nWhich one do you prefer?",
        "Option A: {m}\nOption B: do nothing.",
        "Draft: {m}",
        "Example: {m}",
        "e.g. {m}",
        "Before I run {m}, please say yes.",
        "You can call it like {m}",
        "Alternatively:\n{m}",
    ),
    # A call followed by a line that asks for the go-ahead.
    "asks_after": (
        "{m}\nLet me know if I should run this.",
        "{m}\nShall I proceed?",
        "{m}\n\nShould I go ahead?",
        "{m}\nDo you want me to run this?",
        "{m}\nWould you like me to send it?",
        "{m}\nSoll ich das ausführen?",
        "{m}\nVoulez-vous que je l'exécute ?",
        "{m}\n¿Quieres que lo ejecute?",
        "{m}\n要我执行吗？",
        "{m}\n実行してもよろしいですか？",
    ),
    # Markup in emphasis, a table cell, a heading, <details>, another speaker.
    "layout": (
        "*{m}*",
        "**{m}**",
        "_{m}_",
        "| tool | call |\n|---|---|\n| mail | {m} |",
        "# {m}",
        "<details><summary>Call</summary>{m}</details>",
        "<details>\n<summary>Call</summary>\n\n{m}\n\n</details>",
        "User: {m}",
        "Human: {m}\n\nAssistant: I will wait for the result.",
    ),
}

WRAPPED: Final = (
    "<s>{m}</s>",
    "<s>{m}",
    "{m}</s>",
    "```\n{m}",
    "{m}\n```",
    "<s>```\n{m}\n```</s>",
)
