"""The texts the retry loop sends to a model or shows a person.

Pure functions on ``str``; no LangChain imports. The feedback itself comes from
the parser (``_prompts``); these texts wrap it: the request to continue a
cut-off reply, the request for a shorter answer, the system-prompt template
(feedback given in the system message), the cleaning of foreign parsers'
messages, and the messages of the error raised when the retries run out.
"""

from __future__ import annotations

import re
from typing import Final

from langchain_jsonrecover._core.shorten import shorten, shorten_quoting

EXCERPT_LIMIT: Final = 500
"""The most characters of a failed reply quoted back in the system prompt."""

FOREIGN_LIMIT: Final = 2000
"""The most characters of a foreign parser's error sent back as feedback (its
words kept, model input it quotes cut short)."""

CONTINUE_REQUEST: Final = (
    "Your reply was cut off at the token limit. Continue exactly where it "
    "stopped: send only the rest of it, starting with the very next character, "
    "without repeating anything and without any other text."
)
"""Sent after a cut-off reply when ``on_truncation="continue"``."""

WHOLE_REQUEST: Final = (
    "Your continuation could join your cut-off reply in more than one way "
    "(it repeats text the reply ended with, or adds other text). Send the "
    "whole answer again, complete, from its first character, in one reply."
)
"""Sent when the readings of a continuation disagree: ask for all of it."""

SHORTER_REQUEST: Final = (
    "Your reply was cut off at the token limit before it was complete. "
    "Respond again with a shorter answer that fits."
)
"""Put before a foreign parser's feedback when the reply was cut off."""

# The guard starts a run of whitespace only at its first character: a search
# tried at each one of a long run would read the rest of it each time.
_TROUBLESHOOTING: Final = re.compile(r"(?<!\s)\s*For troubleshooting, visit: \S+\s*$")
_PYDANTIC_LINK: Final = re.compile(
    r"^\s*For further information visit https://errors\.pydantic\.dev/\S*\s*$\n?",
    re.MULTILINE,
)
_PYDANTIC_WORDS: Final = "For further information visit https://errors.pydantic.dev/"


def ask_shorter(feedback: str) -> str:
    """Ask for a shorter answer, then give the parser's feedback.

    Example:
        >>> print(ask_shorter("Invalid json output."))
        Your reply was cut off at the token limit before it was complete. ...
        <BLANKLINE>
        Invalid json output.
    """
    return f"{SHORTER_REQUEST}\n\n{feedback}" if feedback else SHORTER_REQUEST


def write_system_feedback(feedback: str, reply: str) -> str:
    """The section added to the system prompt after a failed reply.

    The conversation is not extended; the system prompt says what was wrong
    and quotes the start of the reply.

    Args:
        feedback: What was wrong and what to send instead.
        reply: The failed reply; at most :data:`EXCERPT_LIMIT` characters of it
            are quoted.

    Returns:
        The text to append to the system prompt.

    Example:
        >>> print(write_system_feedback("Your reply contains no JSON.", "Hello!"))
        Your previous response could not be used.
        <BLANKLINE>
        What was wrong:
        Your reply contains no JSON.
        <BLANKLINE>
        Your previous response:
        <previous_response>
        Hello!
        </previous_response>
    """
    quoted = shorten(reply, EXCERPT_LIMIT)
    label = (
        "Your previous response"
        if quoted == reply
        else f"The start of your previous response (first {EXCERPT_LIMIT} characters)"
    )
    return (
        "Your previous response could not be used.\n\n"
        f"What was wrong:\n{feedback}\n\n"
        f"{label}:\n<previous_response>\n{quoted}\n</previous_response>"
    )


def clean_parser_message(message: str, reply: str) -> str:
    r"""A foreign parser's error message, fit to send back to the model.

    LangChain's parsers put a troubleshooting URL and a copy of the reply in
    their messages; the model has the reply already and needs no URL.

    Args:
        message: ``str()`` of the ``OutputParserException``.
        reply: Its ``llm_output``: the copy to remove (the last occurrence).

    Returns:
        The message without the URL, pydantic's documentation links, and the
        copy of the reply (replaced by "your reply"); cut short as
        :func:`cut_foreign_feedback` cuts.

    Example:
        >>> clean_parser_message(
        ...     "Invalid json output: hi\nFor troubleshooting, visit: https://x.y/z ",
        ...     "hi",
        ... )
        'Invalid json output: your reply'
    """
    text = _TROUBLESHOOTING.sub("", message)
    text = _without_pydantic_links(text)
    if reply.strip():
        at = text.rfind(reply)
        if at >= 0:
            text = text[:at] + "your reply" + text[at + len(reply) :]
    return cut_foreign_feedback(text.strip())


def _without_pydantic_links(text: str) -> str:
    r"""``_PYDANTIC_LINK.sub("", text)``, read in one pass.

    Its ``^\s*`` may start at each line of a long run of blank lines and
    read the rest of the run each time; here each match is tried once, from
    the first line start of the whitespace before the link's words (a later
    one matches only what that one does), up to the last match's end.

    Example:
        >>> _without_pydantic_links(
        ...     "bad\n\n  For further information visit https://errors.pydantic.dev/2\nok"
        ... )
        'bad\nok'
    """
    kept: list[str] = []
    done = 0
    words = text.find(_PYDANTIC_WORDS)
    while words >= 0:
        start = words
        while start > done and text[start - 1].isspace():
            start -= 1
        if start > 0 and text[start - 1] != "\n":
            # No line start at the run's first character: the first one inside.
            line = text.find("\n", start, words)
            start = line + 1 if line >= 0 else words
        at_line = start == 0 or text[start - 1] == "\n"
        if at_line and (found := _PYDANTIC_LINK.match(text, start)) is not None:
            kept.append(text[done:start])
            done = found.end()
        words = text.find(_PYDANTIC_WORDS, max(words + 1, done))
    kept.append(text[done:])
    return "".join(kept)


def cut_foreign_feedback(text: str) -> str:
    """A foreign parser's feedback, bounded: it may quote the reply's data.

    LangChain's ``PydanticOutputParser`` quotes the decoded object; any long
    word is cut to ``VALUE_WIDTH`` characters and the whole to
    :data:`FOREIGN_LIMIT`.

    Example:
        >>> len(cut_foreign_feedback("Failed to parse " + "{" * 10**6))
        76
    """
    return shorten_quoting(text, FOREIGN_LIMIT)


def _count_calls(count: int) -> str:
    return f"{count} model call" if count == 1 else f"{count} model calls"


def write_exhausted_message(calls: int, error_name: str, error: str) -> str:
    """The message of the error raised when every retry failed.

    The last error's message follows in full (a schema mismatch lists its
    fields on the next lines).

    Example:
        >>> write_exhausted_message(3, "InvalidJsonError", "Invalid JSON at line 1.")
        'No usable reply after 3 model calls: InvalidJsonError: Invalid JSON at line 1.'
    """
    return f"No usable reply after {_count_calls(calls)}: {error_name}: {error.strip()}"


def write_stuck_message(call: int, earlier: int, error_name: str, error: str) -> str:
    """The message of the error raised when the model repeats a failed reply.

    Example:
        >>> write_stuck_message(2, 1, "NoJsonFoundError", "No JSON found.")
        'The model is stuck: reply 2 repeats reply 1, which already failed; ...'
    """
    return (
        f"The model is stuck: reply {call} repeats reply {earlier}, which already "
        f"failed; stopped after {_count_calls(call)}: {error_name}: {error.strip()}"
    )


def prepend_system_prompt(instructions: str, system_prompt: str | None) -> str:
    r"""The system prompt of the JSON strategy: the caller's, then the format.

    Example:
        >>> prepend_system_prompt("Respond with JSON.", "You are terse.")
        'You are terse.\n\nRespond with JSON.'
    """
    if system_prompt:
        return f"{system_prompt}\n\n{instructions}"
    return instructions
