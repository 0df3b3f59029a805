r"""The texts of tool-call recovery: errors, tool results and tool descriptions.

Pure functions on ``str``; no LangChain imports. The feedback on the JSON
itself comes from the parser (``_prompts``); these texts say which call it is
about, why a call was withheld, what the model sent, and, for a model without
tool calling, how to call a tool in plain text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from langchain_jsonrecover._core.prompts.instructions import shape_of
from langchain_jsonrecover._core.reply.call_json import GOES_ON, SHORT_OF_A_CLOSER

if TYPE_CHECKING:
    from collections.abc import Sequence

NOT_EXECUTED: Final = (
    "Not executed: another tool call in the same reply had arguments that "
    "could not be used. Send all of your tool calls again."
)
"""The result given for each call of a failed reply but the failed one."""

TEXT_CALL_FORMAT: Final = (
    'To call a tool, reply with only this JSON object: {"name": "<tool name>", '
    '"arguments": {<the arguments>}}. To call several tools, reply with a JSON '
    "list of such objects."
)
"""How a model without tool calling is told to call a tool."""

_OBJECT_WORDS: Final = "The JSON object"
_ARGUMENTS: Final = "The arguments object"

NO_TOOL_ANSWER: Final = "When you need no tool, answer normally."
"""What a model without tool calling and without an answer schema does otherwise."""

FINAL_ANSWER: Final = (
    "When you need no tool, your reply is the final answer, in this form instead:"
)
"""What introduces the answer's format after the tools, when there is a schema."""


def cut_off_error(name: str) -> str:
    """Why a cut-off call is not executed.

    Example:
        >>> cut_off_error("search")
        "The arguments of the call to 'search' were cut off at the token limit; ...
    """
    return (
        f"The arguments of the call to {name!r} were cut off at the token limit; "
        "the call was not executed. Send it again, complete."
    )


def guessed_error(name: str, repairs: Sequence[str]) -> str:
    """Why a call recovered only by guessing is not executed.

    Example:
        >>> guessed_error("search", ["inner_quote_escaped_guessed"])
        "The arguments of the call to 'search' could only be read by guessing ...
    """
    return (
        f"The arguments of the call to {name!r} could only be read by guessing "
        f"({', '.join(repairs)}); the call was not executed. Send it again as "
        "valid JSON."
    )


def not_an_object_error(name: str) -> str:
    """Why arguments that decode to something other than an object are refused.

    Example:
        >>> not_an_object_error("search")
        "The arguments of the call to 'search' must be a JSON object."
    """
    return f"The arguments of the call to {name!r} must be a JSON object."


def unknown_tool_error(name: str, known: Sequence[str]) -> str:
    """Why a call to a tool that is not bound is refused.

    Example:
        >>> unknown_tool_error("serch", ["search"])
        "There is no tool named 'serch'. The tools are: search."
    """
    listed = ", ".join(known) if known else "none"
    return f"There is no tool named {name!r}. The tools are: {listed}."


_REPLY_ASK: Final = "Respond with"
"""Where the parser's feedback starts asking for a new reply (its last sentence)."""


def ask_for_call(name: str, feedback: str) -> tuple[str, str]:
    """The feedback without its ask for a reply, and the ask for a new call.

    The parser's feedback ends by asking for a reply holding only the JSON;
    about a tool call, the model is asked to call the tool again instead.

    Args:
        name: The tool's name.
        feedback: The parser's feedback on the arguments.

    Returns:
        ``(what is wrong, the ask to call the tool again)``.

    Example:
        >>> ask_for_call("search", "Bad JSON. Respond with only the corrected "
        ...              "JSON object, and nothing else.")
        ('Bad JSON.', "Call the tool 'search' again with corrected arguments.")
    """
    cut = feedback.rfind(_REPLY_ASK)
    head = feedback[:cut].rstrip() if cut > 0 else feedback.rstrip()
    shorter = cut > 0 and "shorter" in feedback[cut:]
    how = "shorter, complete" if shorter else "corrected"
    return head, f"Call the tool {name!r} again with {how} arguments."


def write_call_feedback(name: str, feedback: str, arguments: str) -> str:
    r"""The failed call's tool result: what is wrong, what was sent, the ask.

    The parser's closing "Respond with only the corrected JSON ..." is
    replaced by an ask to call the tool again with corrected arguments.

    Example:
        >>> print(write_call_feedback("search", "Not valid JSON.", '{"q": "x",}'))
        Error in the arguments of your call to 'search': Not valid JSON.
        <BLANKLINE>
        The arguments you sent:
        {"q": "x",}
        <BLANKLINE>
        Call the tool 'search' again with corrected arguments.
    """
    head, ask = ask_for_call(name, feedback)
    return (
        f"Error in the arguments of your call to {name!r}: {head}\n\n"
        f"The arguments you sent:\n{arguments}\n\n{ask}"
    )


def describe_tools(
    tools: Sequence[tuple[str, str, dict[str, Any]]], answer: str = ""
) -> str:
    r"""The tools as text, for a model without tool calling: one instruction.

    Each tool's arguments are put into words as the package's format
    instructions put a schema (no raw JSON Schema with ``"properties"``,
    which weak models echo back). Without ``answer``, a reply that calls no
    tool is free text; with it, such a reply is the final answer, in the
    form ``answer`` describes (the parser's format instructions).

    Args:
        tools: ``(name, description, parameters JSON schema)`` for each tool.
        answer: The final answer's format instructions, if there is a schema.

    Returns:
        The list of tools, how to call one, and what to do otherwise.

    Example:
        >>> params = {"type": "object", "properties": {"q": {"type": "string"}}}
        >>> print(describe_tools([("search", "Search the web.", params)]))
        You can call these tools:
        - search: Search the web.
          The arguments object has these fields:
          - "q" (string, optional)
        <BLANKLINE>
        To call a tool, reply with only this JSON object: ...
        When you need no tool, answer normally.
    """
    lines = ["You can call these tools:"]
    for name, description, parameters in tools:
        text = f" {description.strip()}" if description.strip() else ""
        lines.append(f"- {name}:{text}")
        fields = shape_of(parameters).fields.replace(_OBJECT_WORDS, _ARGUMENTS, 1)
        lines.extend(f"  {line}" for line in fields.splitlines() if line.strip())
    ending = f"{FINAL_ANSWER}\n\n{answer}" if answer else NO_TOOL_ANSWER
    return "\n".join(lines) + "\n\n" + TEXT_CALL_FORMAT + "\n" + ending


def write_provider_error_feedback(error: str) -> str:
    """The feedback for a tool call the provider could not parse.

    Example:
        >>> write_provider_error_feedback("unexpected end of JSON input")
        'Your tool call could not be parsed (unexpected end of JSON input). ...
    """
    return (
        f"Your tool call could not be parsed ({error}). Call the tool again "
        "with valid JSON arguments."
    )


PROVIDER_ERROR_MARK: Final = "error parsing tool call: raw='"
"""How Ollama's error starts the raw text of a call it could not parse."""


def read_raw_call(message: str) -> tuple[str, str] | None:
    r"""The raw call and the reason in a provider's tool-call parse error.

    Ollama says ``error parsing tool call: raw='<the call>', err=<reason>``.

    Example:
        >>> read_raw_call("error parsing tool call: raw='[1,]', err=bad")
        ('[1,]', 'bad')
        >>> read_raw_call("connection refused") is None
        True
    """
    start = message.find(PROVIDER_ERROR_MARK)
    if start < 0:
        return None
    start += len(PROVIDER_ERROR_MARK)
    end = message.rfind("', err=")
    if end < start:
        return message[start:].rstrip().removesuffix("'"), ""
    reason = message[end + len("', err=") :].strip()
    return message[start:end], reason.split(" (status code", 1)[0]


TOOL_RESULT_PREFIX: Final = "Result of the tool "
"""How a tool's result starts when it is shown to a model without tool calling."""


def write_tool_result(name: str, content: str) -> str:
    r"""A tool's result as a user turn, for a model without tool calling.

    Example:
        >>> print(write_tool_result("search", "3 results"))
        Result of the tool 'search':
        3 results
    """
    return f"{TOOL_RESULT_PREFIX}{name!r}:\n{content}"


def write_calls_as_text(calls: Sequence[tuple[str, Any]]) -> str:
    """Tool calls as the JSON a model without tool calling is told to write.

    Example:
        >>> write_calls_as_text([("search", {"q": "Ada"})])
        '{"name": "search", "arguments": {"q": "Ada"}}'
    """
    written = [{"name": name, "arguments": arguments} for name, arguments in calls]
    value: Any = written[0] if len(written) == 1 else written
    return json.dumps(value, ensure_ascii=False, default=str)


def several_values_error(name: str) -> str:
    """Why arguments that hold more than one JSON value are refused.

    Example:
        >>> several_values_error("search")
        "The arguments of the call to 'search' are not one JSON object ...
    """
    return (
        f"The arguments of the call to {name!r} are not one JSON object (two "
        "objects glued together, or text beside the object); the call was not "
        "executed. Send each call's arguments as one JSON object; to call a "
        "tool twice, send two calls."
    )


def extra_members_error(name: str, keys: Sequence[str]) -> str:
    """Why a call whose envelope holds members beside its arguments is refused.

    Example:
        >>> print(extra_members_error("get_time", ["format"]))
        The call to 'get_time' holds members beside its name and arguments ...
    """
    listed = ", ".join(repr(k) for k in keys)
    return (
        f"The call to {name!r} holds members beside its name and arguments "
        f"({listed}); the call was not executed. Put every argument inside "
        '"arguments" and send the call again.'
    )


def envelope_error(name: str, extra: Sequence[str]) -> str:
    """Why a call whose envelope holds more than a call, or is unbalanced, is refused.

    ``extra`` names the members beyond a call's keys, or says that the
    envelope's brackets do not balance (:data:`GOES_ON`: JSON goes on after
    it closed; :data:`SHORT_OF_A_CLOSER`: a ``}`` lost inside the arguments
    or after them).

    Example:
        >>> print(envelope_error("search", [SHORT_OF_A_CLOSER]))
        The call to 'search' is short of a closing bracket, and it may be ...
    """
    if SHORT_OF_A_CLOSER in extra or GOES_ON in extra:
        why = (
            "is short of a closing bracket, and it may be the arguments' or "
            "the call's own (the members after it would move)"
            if SHORT_OF_A_CLOSER in extra
            else "goes on after its closing bracket (a closing bracket too "
            "many, or an opening one lost)"
        )
        return (
            f"The call to {name!r} {why}; the call was not executed. Send it "
            'again as one JSON object {"name": …, "arguments": {…}} with its '
            "brackets balanced."
        )
    return extra_members_error(name, extra)


def unread_calls_error(name: str) -> str:
    """Why the calls of a reply that writes a call outside any call format wait.

    Example:
        >>> unread_calls_error("search")
        "The call to 'search' was not executed: the reply also writes a call ...
    """
    return (
        f"The call to {name!r} was not executed: the reply also writes a call "
        "that is neither in the tool-call format nor the whole reply. Send every "
        "call again in the tool-call format."
    )


def withheld_with_others_error(name: str) -> str:
    """Why a usable call is not executed when another call of its reply failed.

    Example:
        >>> withheld_with_others_error("search")
        "The call to 'search' was not executed because another call of the ...
    """
    return (
        f"The call to {name!r} was not executed because another call of the "
        "same reply could not be used; send all the calls again."
    )


def duplicate_key_error(name: str, key: str) -> str:
    """Why a call that writes one key twice in an object is refused.

    Example:
        >>> print(duplicate_key_error("delete_file", "path"))
        The call to 'delete_file' writes the key 'path' twice in one object, ...
    """
    return (
        f"The call to {name!r} writes the key {key!r} twice in one object, with "
        "two readings; the call was not executed. Write each key once and send "
        "the call again."
    )


def wrapper_key_error(name: str, key: str) -> str:
    """Why arguments wrapped under a key that names no payload are refused.

    Example:
        >>> print(wrapper_key_error("delete_file", "exclude"))
        The arguments of the call to 'delete_file' are wrapped in 'exclude', ...
    """
    return (
        f"The arguments of the call to {name!r} are wrapped in {key!r}, which "
        "is not one of the tool's arguments; the call was not executed. Send the "
        "arguments themselves as the JSON object."
    )


def text_beside_calls_error(name: str) -> str:
    """Why a provider's call waits when the text writes other calls beside it.

    Example:
        >>> text_beside_calls_error("search")
        "The call to 'search' was not executed: the reply's text also writes ...
    """
    return (
        f"The call to {name!r} was not executed: the reply's text also writes "
        "tool calls in tool-call markup that are not the reply's calls. Send "
        "every call again, each as a tool call."
    )


def reasoning_inside_error(name: str) -> str:
    """Why a call with reasoning tags inside its markup is refused.

    Example:
        >>> reasoning_inside_error("write_file")
        "The call to 'write_file' holds reasoning tags (<think>, [THINK]) ...
    """
    return (
        f"The call to {name!r} holds reasoning tags (<think>, [THINK]) inside "
        "its arguments, which cannot be told from reasoning; the call was not "
        "executed. Send it again with those tags escaped or written otherwise."
    )


def reasoning_unsettled_error(name: str) -> str:
    """Why a call after a reasoning block with no settled end is refused.

    Example:
        >>> reasoning_unsettled_error("delete_file")
        "The call to 'delete_file' follows a reasoning block whose end ...
    """
    return (
        f"The call to {name!r} follows a reasoning block whose end cannot be "
        "told: every closing tag of it is quoted, and one may be inside a "
        "call's arguments. No call was executed. Close the reasoning with a "
        "bare closing tag and send every call again."
    )


def markup_inside_error(name: str) -> str:
    """Why arguments whose strings hold tool-call markup, read as markup, are refused.

    Example:
        >>> markup_inside_error("delete_file")
        "The arguments of the call to 'delete_file' hold tool-call markup or ...
    """
    return (
        f"The arguments of the call to {name!r} hold tool-call markup or special "
        "tokens that could not be told from the reply's own; the call was not "
        "executed. Send the arguments as valid JSON, strings in double quotes."
    )


def held_back_error(name: str) -> str:
    """Why a call in markup whose own sentence holds it back is refused.

    Example:
        >>> held_back_error("send_email")
        "The call to 'send_email' sits in a sentence that holds it back ...
    """
    return (
        f"The call to {name!r} sits in a sentence that holds it back (a "
        "condition, a negation, a question, a proposal or an example); it was "
        "not executed. To make the call, send its markup alone."
    )


def call_as_answer_error(name: str) -> str:
    """Why a text whose answer would be read from a call to a bound tool is refused.

    Example:
        >>> call_as_answer_error("search")
        "The reply writes a call to the tool 'search' as text ...
    """
    return (
        f"The reply writes a call to the tool {name!r} as text (a JSON-RPC or "
        "similar request); it was not executed and is not the answer. Call "
        "the tool through tool calling, or give the answer itself."
    )
