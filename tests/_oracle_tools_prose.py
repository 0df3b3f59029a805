"""Replies of the tool-call oracle's issue-21 round-two kinds (templates only).

``{m}`` is a call in a model's markup, ``{m2}`` a second one (another call).
Each template of :data:`HELD_BACK` holds its markup back, proposes it, lists
it as an option or puts it where no call is made (emphasis, a table cell, a
heading, ``<details>``, another speaker's line): no call. Each template of
:data:`WRAPPED` sends its call, with a sequence token or a fence left around
it that must not stay in the content once the call leaves it; each of
:data:`KEPT` sends its call after a lead line.
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
    # A label that sets the call apart as a step, a plan, a test or a bad
    # form, a call described but not sent, or reported as already run.
    "labels": (
        "Step 1: {m}\nStep 2: {m2}",
        "Plan:\n{m}",
        "Test: {m}",
        "Bad: {m}\nGood: {m2}",
        "After you reply: {m}",
        "Translation:\n{m}",
        "Here is how a call looks:\n{m}",
        "A call looks like this:\n{m}",
        "Yesterday I ran:\n{m}",
        "I already ran:\n{m}",
        "The last call was:\n{m}",
        "The user asked me to run:\n{m}",
        "Earlier you ran:\n{m}",
        "{m}\n---\nShould I proceed?",
        "{m}\n\n***\n\nDo you want me to run this?",
    ),
    # The common hold-backs (won't run, should I, shall I, an example) in
    # Korean, Vietnamese, Turkish, Dutch, Polish, Arabic and Hindi.
    "more_languages": (
        "확인하시기 전에는 {m} 을 실행하지 않겠습니다.",
        "{m}\n실행할까요?",
        "예를 들어:\n{m}",
        "Tôi sẽ không chạy {m} nếu bạn chưa xác nhận.",
        "Ví dụ:\n{m}",
        "{m}\nTôi có nên chạy lệnh này không?",
        "Onaylamadan {m} çalıştırmayacağım.",
        "Örneğin:\n{m}",
        "{m}\nÇalıştırayım mı?",
        "Ik voer {m} niet uit zonder uw bevestiging.",
        "Bijvoorbeeld:\n{m}",
        "{m}\nZal ik dit uitvoeren?",
        "Nie uruchomię {m} bez twojego potwierdzenia.",
        "Na przykład:\n{m}",
        "{m}\nCzy mam to uruchomić?",
        "لن أنفذ {m} قبل تأكيدك.",
        "مثال:\n{m}",
        "{m}\nهل أنفذ هذا؟",
        "आपकी पुष्टि के बिना मैं {m} नहीं चलाऊंगा।",
        "उदाहरण:\n{m}",
        "{m}\nक्या मैं इसे चलाऊं?",
    ),
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

KEPT: Final = (
    "Let me look that up:\n{m}",
    "Something went wrong, retrying:\n{m}",
    "Voy a buscar la categoría:\n{m}",
    "Busco en la librería:\n{m}",
    "Answer: {m}",
    "Result:\n{m}",
    "Output:\n{m}",
    "Voilà :\n{m}",
    "Hier ist der Aufruf:\n{m}",
    "Let me test the connection:\n{m}",
    "Last step, sending it now:\n{m}",
    "확인해 보겠습니다:\n{m}",
    "Tôi sẽ kiểm tra:\n{m}",
    "Kontrol ediyorum:\n{m}",
    "Ik zoek het op:\n{m}",
    "Sprawdzam:\n{m}",
)
"""Leads that send their call, whatever words the held-back rules read (a
retry, a noun that ends like a conditional, a label that names the reply's
own answer): each stays a call."""

WRAPPED: Final = (
    "<s>{m}</s>",
    "<s>{m}",
    "{m}</s>",
    "```\n{m}",
    "{m}\n```",
    "<s>```\n{m}\n```</s>",
)
