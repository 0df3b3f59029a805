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
  (or only a fence's opening), the nearest non-blank line above;
- the tail: the text after it (after the closing fence when fenced) to the
  end of its line.

When either holds a word of :data:`MENTION_WORDS` (a condition, a negation, a
proposal, a request for approval, an example) or a question mark, the
envelope is a mention: a ``schema`` error that says so, never the value. A
lead such as ``Here is the result:`` or ``Calling the tool:`` is no mention.
Each search stays on one or two lines around the envelope: linear.
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
)
"""Words that make an envelope's sentence a mention (any case; a word's
inflections too: ``confirms``, ``approval``, ``suggested``, ``examples``)."""

MENTIONED: Final = (
    "the reply only mentions this tool call (its sentence says it is not "
    "being sent: a condition, a negation, a proposal or an example); it is "
    "not the answer"
)

_WORD: Final = re.compile(
    r"(?<![\w'])(?:"
    + "|".join(re.escape(w.rstrip(".")) + r"\w*" for w in MENTION_WORDS)
    + r")(?![\w'])|\?",
    re.IGNORECASE,
)
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
    around = f"{_lead(text, start)} {_tail(text, end)}".replace("\u2019", "'")
    return _WORD.search(around) is not None


def _lead(text: str, start: int) -> str:
    """The envelope's line before it, else the nearest non-blank line above."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    while not _FENCE_LINE.sub("", before).strip() and line_start > 0:
        end = line_start - 1
        line_start = text.rfind("\n", 0, end) + 1
        before = text[line_start:end]
    return _FENCE_LINE.sub("", before)


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
