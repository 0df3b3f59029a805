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
_HELD_AFTER: Final = re.compile(
    r"(?<![\w'])(?:confirm\w*|approv\w*|proceed\w*|go[ -]ahead"
    r"|(?:not|never|\w+n't)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:sent|run|ran|called|executed|submitted))(?![\w'])"
    r"|(?:^|[.!:;]\s)\s*(?:shall|should)\s+(?:i|we)\b[^.!\n]*\?",
    re.IGNORECASE,
)
"""A next line that asks for the go-ahead or says the call is not sent."""
_ITEM: Final = re.compile(r"\s*+(?:[-*+#>|]|\d++[.)])")
"""A list item, heading, quote or table row: a line of its own, no sentence's end."""
_FIRST_LINE: Final = re.compile(r"\s*+(\S[^\n]*+)")
_NEXT_LINE_READ: Final = 400
"""How much of the next line is read (a closing sentence, not a document)."""
_FENCE_LINE: Final = re.compile(r"[ \t]*+`{3,}+[\w+.#-]*+[ \t]*+")


def mentioned(text: str, start: int, end: int) -> bool:
    r"""Whether the envelope at ``text[start:end]`` sits in a held-back sentence.

    Args:
        text: The reply, reasoning and markup blanked (same offsets).
        start: Where the envelope's text starts.
        end: Where it ends.

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
    around = f"{lead_of(text, start)} {_tail(text, end)}".replace("\u2019", "'")
    if _WORD.search(around) is not None:
        return True
    after = _next_line(text, end)
    return (
        after is not None
        and _HELD_AFTER.search(after.replace("\u2019", "'")) is not None
    )


def lead_of(text: str, start: int) -> str:
    r"""The value's line before it, else the nearest non-blank line above.

    Example:
        >>> lead_of('Format:\n```json\n{"a": 1}\n```', 16)
        'Format:'
    """
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    while not _FENCE_LINE.sub("", before).strip() and line_start > 0:
        end = line_start - 1
        line_start = text.rfind("\n", 0, end) + 1
        before = text[line_start:end]
    before = _FENCE_LINE.sub("", before)
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
    if not _FENCE_LINE.sub("", after).strip() and line_end >= 0:
        # The envelope ends its line: a closing fence may follow, then the
        # sentence may go on right after it.
        rest = text[line_end + 1 :]
        fence = _FENCE_LINE.match(rest)
        if fence is not None and fence.end() > 0 and "`" in fence.group():
            tail_end = rest.find("\n", fence.end())
            return rest[fence.end() : len(rest) if tail_end < 0 else tail_end]
        return ""
    return _FENCE_LINE.sub("", after)


def _next_line(text: str, end: int) -> str | None:
    """The first non-blank line below an envelope that ends its line, if any.

    ``None`` when text follows the envelope on its line (that text is the
    tail), or after its closing fence.
    """
    line_end = text.find("\n", end)
    if line_end < 0 or _FENCE_LINE.sub("", text[end:line_end]).strip():
        return None
    rest = text[line_end + 1 :]
    fence = _FENCE_LINE.match(rest)
    if fence is not None and "`" in fence.group():
        fence_end = rest.find("\n", fence.end())
        if rest[fence.end() : len(rest) if fence_end < 0 else fence_end].strip():
            return None
        rest = "" if fence_end < 0 else rest[fence_end + 1 :]
    line = _FIRST_LINE.match(rest)
    return None if line is None else line.group(1)[:_NEXT_LINE_READ]
