r"""A call envelope that the prose only mentions is not the schema's answer.

Pure functions on ``str``; no LangChain imports. The schema reading unwraps a
call envelope (``{"name": …, "arguments": {…}}``, the ``function`` form) to
the arguments inside (a list of one call and the JSON-RPC / MCP requests
too). Where the reply's own words around that envelope say it
is not being sent (``I won't run {…} until you confirm.``, ``If you agree, I
would send:`` before a fenced call, ``{…} is what I would send.``), reading it
as the answer would turn a call the model held back into data that a program
acts on. So the envelope's sentence is read first:

- the lead: the text on the envelope's line before it, or, when that is empty
  (or only a fence's opening), the nearest non-blank line above; a lead line
  that starts in lower case goes on the sentence of the line above it, when
  that line ends in no ``.``, ``!``, ``?`` or ``:`` and is no list item,
  heading, quote or table row (``I will not send the following call`` /
  ``to the API:``), so that line is read too;
- the tail: the text after it (after the closing fence when fenced) to the
  end of its line.

When either holds a word of :data:`MENTION_WORDS` (a condition, a negation, a
proposal, a request for approval, an example), a negative contraction
(``haven't``, ``isn't``) or a question mark, the envelope is a mention: a
``schema`` error that says so, never the value. A lead such as ``Here is the
result:`` or ``Calling the tool:`` is no mention.

When nothing follows the envelope on its line (nor its closing fence), the
next non-blank line is read by a narrower test, since a closing line such as
``Let me know if you need anything else.`` is common after a call that is
sent: it holds the call back only when it asks for the go-ahead or says the
call is not sent (:data:`_HELD_AFTER`: ``confirm``, ``approve``/``approval``,
``proceed``, ``go ahead``, a question opening ``Shall I``/``Should I`` (or
``we``), ``not sent``/``haven't run``/``not executed``). ``Can I help with
anything else?`` and ``I haven't made assumptions.`` are no such line.

A call in the model's own call markup (``markup=True``, for the tool
readers) is held back by more: :data:`MARKUP_WORDS` (an option, a draft, a
dry run …), :data:`MARKUP_PHRASES` (a call described, or reported as already
made: ``I already ran:``), a lead that opens with a label of
:data:`MARKUP_LABELS` (``Step 1:``, ``Bad:``), the same meanings in French,
German, Spanish, Portuguese, Italian, Russian, Chinese, Japanese, Korean,
Vietnamese, Turkish, Dutch, Polish, Arabic and Hindi (:data:`FOREIGN_WORDS`,
:data:`FOREIGN_STEMS`, :data:`CJK_WORDS`), a verb in the French, Spanish or
Italian conditional (``j'enverrais``, ``enviaría``, ``invierei``; not a
noun that ends alike: ``categoría``), and a next line (past a ``---`` rule)
that asks ``if I should``, ``want me to``, says ``example`` or ``draft``
(or the same in those languages), or is any question that offers nothing
more (``else``, ``anything``, ``more`` …). The schema reading keeps
the narrower lists: its oracle's right answers stay where they are.
Each search reads the lines around the envelope once: linear.
"""

from __future__ import annotations

import re
from typing import Final

CALL_UNWRAPS: Final = frozenset(
    {
        "unwrapped_arguments",
        "unwrapped_parameters",
        "tool_envelope_unwrapped",
        "call_list_unwrapped",
        "jsonrpc_unwrapped",
    }
)
"""The schema's repairs that read a call envelope's arguments as the answer:
the envelope, the chat APIs' ``function`` form, a list of one call, and the
JSON-RPC and MCP ``tools/call`` requests."""

MENTION_WORDS: Final = (
    "if",
    "unless",
    "until",
    "once",
    "would",
    "could",
    "should",
    "might",
    "shall",
    "won't",
    "wouldn't",
    "don't",
    "didn't",
    "not",
    "never",
    "instead",
    "confirm",
    "approve",
    "agree",
    "propose",
    "suggest",
    "example",
    "e.g.",
    "instance",
    "sample",
    "template",
    "hypothetical",
    "pending",
    "refuse",
    "avoid",
    "syntax",
    "usage",
    "earlier",
    "previous",
    "go-ahead",
)
"""Words that make an envelope's sentence a mention (any case; a word's
inflections too, read from its stem without a last ``e``: ``confirms``,
``approval``, ``proposal``, ``suggested``, ``examples``). ``'d`` (``I'd``,
``we'd``: would) counts as a negative contraction does."""

MARKUP_WORDS: Final = (
    "option", "draft", "alternative", "variant", "possible", "preview",
    "dry run", "dry-run", "mock", "pseudo", "simulate", "fake", "expected",
    "format", "todo", "fixme", "queued", "scheduled", "tomorrow", "later",
    "cf.", "ex.", "i.e.",
)  # fmt: skip
"""More English words that hold call markup back (``Option A:``, ``Draft:``,
``Dry run:``), read for markup only: the schema reading keeps its list."""
MARKUP_PHRASES: Final = (
    "after you", "looks like", "look like", "call looks", "calls look",
    "how a call", "how the call", "how to call", "how to use", "how you call",
    # A call reported as already made: running it again repeats it.
    "ran", "already", "yesterday", "previously", "last call", "last time",
    "asked me to", "asked us to",
)  # fmt: skip
"""Words and phrases, read as written (no other ending: ``ran``, not
``range``), that hold call markup back: a call described, not sent (``A call
looks like this:``), one that waits for the user (``After you reply:``), and
one reported as already made (``I already ran:``, ``The last call was:``):
running it again would repeat what it did."""
MARKUP_LABELS: Final = (
    "step", "plan", "test", "bad", "wrong", "incorrect", "translation",
)  # fmt: skip
"""Labels that set the markup after them apart as a step or a plan not yet
run, a test, a bad form, or a translation: read only where the lead
opens with one and ends in its colon (``Step 1:``, ``**Bad:**``, ``My plan:``),
so ``Let me test the connection:`` and ``Something went wrong, retrying:``
keep their call. ``Answer:``, ``Output:``, ``Result:`` and ``Here is the
call:`` (``Voilà :``, ``Hier ist der Aufruf:``) name the reply's own call:
no label."""
FOREIGN_WORDS: Final = (
    # French
    "si", "pas", "jamais", "voulez", "veux", "souhaitez", "dois-je",
    # German
    "nicht", "kein", "keine", "wenn", "falls", "soll", "sollen", "sollte",
    "w\u00fcrde", "z.B.",
    # Spanish, Portuguese, Italian
    "nunca", "quieres", "quiere", "debo", "debería", "n\u00e3o", "se", "quer",
    "devo", "non", "mai", "vuoi", "dovrei",
    # Russian
    "\u043d\u0435", "\u0435\u0441\u043b\u0438", "\u0445\u043e\u0442\u0438\u0442\u0435",
    # Vietnamese
    "kh\u00f4ng", "n\u1ebfu", "v\u00ed d\u1ee5", "x\u00e1c nh\u1eadn",
    "c\u00f3 n\u00ean", "\u0111\u1ec1 xu\u1ea5t",
    # Turkish
    "de\u011fil", "e\u011fer",
    # Dutch
    "niet", "geen", "nooit", "indien", "tenzij", "zou", "zal ik", "moet ik",
    "wil je", "wilt u",
    # Polish
    "nie", "je\u015bli", "je\u017celi", "czy", "gdyby", "chcesz",
    # Arabic: won't, not, if, whether, example, for example
    "\u0644\u0646", "\u0644\u0627", "\u0625\u0630\u0627", "\u0644\u0648",
    "\u0647\u0644", "\u0645\u062b\u0627\u0644", "\u0645\u062b\u0644\u0627",
)  # fmt: skip
"""Whole words of other languages that make an envelope's sentence a mention
(French, German, Spanish, Portuguese, Italian, Russian, Vietnamese, Turkish,
Dutch, Polish, Arabic): a condition, a negation, a request for the
go-ahead, an example."""
FOREIGN_STEMS: Final = (
    "exempl", "ejempl", "esempi", "beispiel", "approuv", "aprob", "aprueb",
    "aprov", "approv", "bestätig", "zustimm", "genehmig", "vorschlag",
    "propon", "propost", "sugger", "suger", "conferm", "proposi",
    "\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0434",
    "\u0441\u043e\u0433\u043b\u0430\u0441",
    "\u043f\u0440\u0438\u043c\u0435\u0440",
    "\u043f\u0440\u0435\u0434\u043b\u0430\u0433", "m\u00f6cht",
    # Turkish, Dutch, Polish, Arabic
    "\u00f6rne", "onay", "\u00f6ner", "voorbeeld", "bijvoorbeeld", "bevestig",
    "goedkeur", "akkoord", "przyk\u0142ad", "potwierdz", "zatwierdz", "zgod",
    "\u062a\u0623\u0643\u064a\u062f", "\u0645\u0648\u0627\u0641\u0642",
)  # fmt: skip
"""Stems of those languages' words of the same meaning (an example, approval,
a proposal, confirmation, agreement), read with any ending."""
CJK_WORDS: Final = (
    "\u4e0d\u4f1a", "\u4e0d\u8981", "\u4e0d\u80fd", "\u6ca1\u6709",
    "\u5982\u679c", "\u5047\u5982", "\u786e\u8ba4", "\u4e4b\u524d",
    "\u4f8b\u5982", "\u6bd4\u5982", "\u793a\u4f8b", "\u5efa\u8bae",
    "\u662f\u5426", "\u5417", "\u8981\u4e0d\u8981", "\u6279\u51c6",
    "\u540c\u610f", "\u8981\u6211",
    "\u307e\u305b\u3093", "\u78ba\u8a8d", "\u627f\u8a8d",
    "\u4f8b\u3048\u3070", "\u5834\u5408", "\u524d\u306b",
    "\u3067\u3059\u304b", "\u307e\u3059\u304b", "\u307e\u3057\u3087\u3046\u304b",
    "\u63d0\u6848", "\u3088\u308d\u3057\u3044", "\u683c\u5f0f", "\u9519\u8bef",
    # Korean: not (않), if, example, for example, shall I (까요), approve,
    # agree, once you confirm, propose
    "\uc54a", "\ub9cc\uc57d", "\uc608\uc2dc", "\uc608\ub97c \ub4e4\uc5b4",
    "\uae4c\uc694", "\uc2b9\uc778", "\ub3d9\uc758", "\ud655\uc778\ud558\uc2dc",
    "\ud655\uc778 \ud6c4", "\ud655\uc778\ud574 \uc8fc", "\uc81c\uc548",
    # Hindi: not, if (two words), example, whether, confirm, permission, suggest
    "\u0928\u0939\u0940\u0902", "\u0905\u0917\u0930", "\u092f\u0926\u093f",
    "\u0909\u0926\u093e\u0939\u0930\u0923", "\u0915\u094d\u092f\u093e",
    "\u092a\u0941\u0937\u094d\u091f\u093f", "\u0905\u0928\u0941\u092e\u0924\u093f",
    "\u0938\u0941\u091d\u093e\u0935",
)  # fmt: skip
"""Chinese and Japanese words of the same meanings (read inside any text:
these scripts put no space between words): won't, don't, if, confirm,
before, for example, suggest, whether, the question particle, approve,
agree, "want me to", format, wrong; Japanese negation, confirm, approve,
for example, in case, before, the question endings, propose, "is it all
right"; Korean and Hindi words of the same meanings (Korean glues its
endings to the word; a Hindi vowel sign counts as no word character)."""

MENTIONED: Final = (
    "the reply only mentions this tool call (its sentence says it is not "
    "being sent: a condition, a negation, a proposal or an example); it is "
    "not the answer"
)

_WORD: Final = re.compile(
    r"(?<![\w'])(?:"
    # A stem: "approv" reads approve, approval; "propos" proposal.
    + "|".join(
        re.escape(w.rstrip(".").removesuffix("e")) + r"\w*" for w in MENTION_WORDS
    )
    + r"|cannot|\w+n't|\w+'d)(?![\w'])|\?",
    re.IGNORECASE,
)
_NOUNS: Final = (
    r"(?:\w*(?:libr|bat|gal|cafet|lot|ingeni|mensaj|tesor|panad|joy|ferret"
    r"|peluqu|lavand|pizz|frut|carnic|cervec|perfum|papel|zapat|relojer)"
    r"er\u00edas?|[fv]rais|(?:por|ex|re|at)?traits?)"
)
"""Spanish nouns in -ería and French ones in -rais/-rait, not a conditional."""
_LABEL: Final = re.compile(
    r"[\s*_>#-]*+(?:(?:the|my|our)\s+)?(?:"
    + "|".join(MARKUP_LABELS)
    + r")\b[^:\uff1a\n.!?]{0,30}[:\uff1a][\s*_]*+\Z",
    re.IGNORECASE,
)
"""A lead that opens with a label of :data:`MARKUP_LABELS` and ends in its colon."""
_MARKUP_WORD: Final = re.compile(
    r"(?<![\w'.@/])(?:"
    + "|".join(re.escape(w.removesuffix("e")) + r"\w*" for w in MARKUP_WORDS)
    + "|"
    + "|".join(re.escape(w) for w in FOREIGN_WORDS)
    + "|"
    + "|".join(re.escape(w) + r"\w*" for w in FOREIGN_STEMS)
    + "|"
    + "|".join(re.escape(w) for w in MARKUP_PHRASES)
    # Turkish "will not" (-mayacak, -meyecek)
    + r"|\w+(?:mayaca|meyece)\w*"
    + r")(?![\w'])"
    # The conditional mood (after an elision too: j'enverrais): French -rais,
    # -rait …, Spanish -ría …, Italian -rei …; not a noun that ends so
    # (categoría, librería, frais, portrait).
    + rf"|(?<!\w)(?!{_NOUNS}(?!\w))\w+(?<!o)r(?:ais|ait|ions|iez|aient|\u00eda"
    + r"|\u00edas|\u00edamos|\u00edan|ei|esti|ebbe|emmo|este|ebbero)(?!\w)"
    + r"|[\uff1f\u00bf]|"
    + "|".join(CJK_WORDS),
    re.IGNORECASE,
)
"""The words that hold call markup back beside :data:`_WORD`'s."""
_HELD_AFTER: Final = re.compile(
    r"(?<![\w'])(?:confirm\w*|approv\w*|proceed\w*|go[ -]ahead"
    r"|(?:not|never|\w+n't)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:sent|run|ran|called|executed|submitted))(?![\w'])"
    r"|(?:^|[.!:;]\s)\s*(?:shall|should)\s+(?:i|we)\b[^.!\n]*\?",
    re.IGNORECASE,
)
"""A next line that asks for the go-ahead or says the call is not sent."""
_MARKUP_AFTER: Final = re.compile(
    r"(?<![\w'.@/])(?:(?:if|whether)\s+(?:i|we)\s+(?:should|may|can)"
    r"|want\s+me\s+to|like\s+me\s+to|soll(?:en)?\s+(?:ich|wir)"
    r"|voulez-vous|veux-tu|souhaitez-vous|dois-je|quieres\s+que|quiere\s+que"
    r"|desea\s+que|quer\s+que|vuoi\s+che|vuole\s+che|debo|devo"
    r"|best\u00e4tig\w*|conferm\w*|example\w*|sample|template|hypothetical\w*"
    r"|draft|illustrat\w*|beispiel\w*|exempl\w*|ejempl\w*|esempi\w*"
    r"|kidding|ignore\s+(?:this|that|it)|disregard\w*"
    r"|\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0434\w*"
    r"|\u0445\u043e\u0442\u0438\u0442\u0435)(?![\w'])"
    r"|\u8981\u6211|\u662f\u5426|\u8981\u4e0d\u8981|\u786e\u8ba4|\u6267\u884c\u5417"
    r"|\u3088\u308d\u3057\u3044\u3067\u3059\u304b|\u3057\u307e\u3059\u304b"
    r"|\u3057\u307e\u3057\u3087\u3046\u304b|\u78ba\u8a8d|\u627f\u8a8d",
    re.IGNORECASE,
)
"""More next lines that hold call markup back (``Let me know if I should run
this.``, ``Soll ich das ausführen?``, ``(Just an example.)``)."""
_QUESTION: Final = re.compile(r"[?\uff1f\u061f]\W*\Z")
_CLOSER: Final = re.compile(
    r"(?<!\w)(?:else|anything|further|more|other|sonst\w*|weitere\w*|autre\w*"
    r"|m\u00e1s|algo|altro|altre|ещё|еще)(?!\w)|\u5176\u4ed6|\u8fd8\u6709|\u4ed6\u306b",
    re.IGNORECASE,
)
"""A closing question that offers more help (``Anything else?``): not about
the call."""
_ITEM: Final = re.compile(r"\s*+(?:[-*+#>|]|\d++[.)])")
"""A list item, heading, quote or table row: a line of its own, no sentence's end."""
_FIRST_LINE: Final = re.compile(r"\s*+(\S[^\n]*+)")
_NEXT_LINE_READ: Final = 400
"""How much of the next line is read (a closing sentence, not a document)."""
_RULE: Final = re.compile(r"(?:([-*_])[ \t]*+)(?:\1[ \t]*+){2,}")
"""A Markdown rule line (``---``, ``***``, ``___``, ``- - -``)."""
_FENCE_LINE: Final = re.compile(r"(?:(?<![ \t])[ \t]*+)?`{3,}+[\w+.#-]*+[ \t]*+")
"""A fence marker and the blanks around it. The blanks before it are taken
only from the start of their run: tried from inside a run of blanks that no
backtick ends, the pattern fails at once instead of reading the run again
(``sub`` on a long line of blanks, a blanked ``<think>`` block, was quadratic)."""


def _unfenced(line: str) -> str:
    """``line`` without its fence markers (a marker has three backticks)."""
    return _FENCE_LINE.sub("", line) if "```" in line else line


def mentioned(text: str, start: int, end: int, *, markup: bool = False) -> bool:
    r"""Whether the envelope at ``text[start:end]`` sits in a held-back sentence.

    Args:
        text: The reply, reasoning and markup blanked (same offsets).
        start: Where the envelope's text starts.
        end: Where it ends.
        markup: The envelope is a call in the model's call markup: the words
            of other languages (:data:`FOREIGN_WORDS` …), :data:`MARKUP_WORDS`
            and a next line that asks any question about it hold it back too.

    Returns:
        Whether its lead or its tail holds a word of :data:`MENTION_WORDS`
        or a question mark.

    Example:
        >>> call = '{"name": "send", "arguments": {"to": "x"}}'
        >>> reply = f"I won't run {call} until you confirm."
        >>> mentioned(reply, 12, 12 + len(call))
        True
        >>> mentioned(f"Here is the result:\n{call}", 20, 20 + len(call))
        False
    """
    lead = lead_of(text, start)
    around = f"{lead} {_tail(text, end)}".replace("\u2019", "'")
    if _WORD.search(around) is not None or (
        markup
        and (_MARKUP_WORD.search(around) is not None or _LABEL.match(lead) is not None)
    ):
        return True
    after = _next_line(text, end)
    if after is None:
        return False
    after = after.replace("\u2019", "'")
    if _HELD_AFTER.search(after) is not None:
        return True
    if not markup or after.startswith(("{", "[", "<")):
        return False  # a value or markup, not a sentence (``ada@corp.example``)
    if _QUESTION.search(after) is not None and _CLOSER.search(after) is None:
        return True  # a question about the call: it waits for the answer
    return _MARKUP_AFTER.search(after) is not None


def lead_of(text: str, start: int) -> str:
    r"""The value's line before it, else the nearest non-blank line above.

    Example:
        >>> lead_of('Format:\n```json\n{"a": 1}\n```', 16)
        'Format:'
    """
    line_start = text.rfind("\n", 0, start) + 1
    before = _unfenced(text[line_start:start])
    # Each line is read once: ``isspace`` stops at the first non-blank.
    while (not before or before.isspace()) and line_start > 0:
        end = line_start - 1
        line_start = text.rfind("\n", 0, end) + 1
        before = _unfenced(text[line_start:end])
    # A line that starts in lower case goes on the sentence of the line above.
    while before.lstrip()[:1].islower() and line_start > 0:
        end = line_start - 1
        line_start = text.rfind("\n", 0, end) + 1
        above = text[line_start:end].rstrip()
        if (
            not above
            or above.endswith((".", "!", "?", ":"))
            or "`" in above
            or _ITEM.match(above) is not None
        ):
            break
        before = f"{above} {before}"
    return before


def _tail(text: str, end: int) -> str:
    """The text after the envelope to the end of its line (past a closing fence)."""
    line_end = text.find("\n", end)
    after = text[end : len(text) if line_end < 0 else line_end]
    if not _unfenced(after).strip() and line_end >= 0:
        # The envelope ends its line: a closing fence may follow, then the
        # sentence may go on right after it.
        rest = text[line_end + 1 :]
        fence = _FENCE_LINE.match(rest)
        if fence is not None and fence.end() > 0 and "`" in fence.group():
            tail_end = rest.find("\n", fence.end())
            return rest[fence.end() : len(rest) if tail_end < 0 else tail_end]
        return ""
    return _unfenced(after)


def _next_line(text: str, end: int) -> str | None:
    """The first non-blank line below an envelope that ends its line, if any.

    ``None`` when text follows the envelope on its line (that text is the
    tail), or after its closing fence.
    """
    line_end = text.find("\n", end)
    if line_end < 0 or _unfenced(text[end:line_end]).strip():
        return None
    rest = text[line_end + 1 :]
    fence = _FENCE_LINE.match(rest)
    if fence is not None and "`" in fence.group():
        fence_end = rest.find("\n", fence.end())
        if rest[fence.end() : len(rest) if fence_end < 0 else fence_end].strip():
            return None
        rest = "" if fence_end < 0 else rest[fence_end + 1 :]
    line = _FIRST_LINE.match(rest)
    while line is not None and _RULE.fullmatch(line.group(1)) is not None:
        line = _FIRST_LINE.match(rest, line.end())  # past a ``---`` rule line
    return None if line is None else line.group(1)[:_NEXT_LINE_READ]
