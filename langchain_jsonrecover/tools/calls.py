"""Reading the tool calls of one reply, call by call (for ``tools.recover``).

Each call the reply holds, whether an invalid call a provider set aside, a
call written as JSON in the text, or a call in tool-call markup, is either
accepted (its arguments decode to an object and, with the tools known,
validate) or withheld with an error that says why. A :class:`CallLedger`
collects both, with the ``jsonrecover.recovery`` payload of each call
accepted; :func:`langchain_jsonrecover.tools.recover` builds the message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from langchain_core.messages.tool import invalid_tool_call as make_invalid_call
from langchain_core.messages.tool import tool_call as make_tool_call

from langchain_jsonrecover._core.candidates.held_back import HeldBack
from langchain_jsonrecover._core.prompts.tools import (
    cut_off_error,
    duplicate_key_error,
    envelope_error,
    guessed_error,
    held_back_error,
    markup_inside_error,
    reasoning_inside_error,
    reasoning_unsettled_error,
    text_beside_calls_error,
    unknown_tool_error,
    unread_calls_error,
    withheld_with_others_error,
)
from langchain_jsonrecover._core.reply.call_text import (
    CALL_HINT,
    KEY_VALUE_HINT,
    duplicate_key,
    take_out,
    whole_body,
)
from langchain_jsonrecover._core.reply.envelopes import read_call_envelope
from langchain_jsonrecover._core.reply.markup import read_tool_markup
from langchain_jsonrecover._core.reply.reasoning import (
    blank,
    merge_spans,
    think_bounds,
)
from langchain_jsonrecover.errors import InvalidJsonError, JsonRecoveryError
from langchain_jsonrecover.tools.arguments import (
    Arguments,
    Spec,
    extract_refusing_guesses,
    make_call_id,
    make_error,
    read_arguments,
    same_arguments,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from langchain_core.messages import AIMessage, InvalidToolCall, ToolCall

    from langchain_jsonrecover._core.levels import Repair
    from langchain_jsonrecover._core.reply.markup import MarkupCall


__all__ = [
    "CallLedger",
    "check_text_beside_calls",
    "read_invalid_call",
    "read_text_calls",
    "withhold_cut_call",
]


@dataclass(slots=True)
class CallLedger:
    """The calls of the new message so far: accepted, withheld, and why.

    Example:
        >>> from langchain_core.messages.tool import invalid_tool_call
        >>> ledger = CallLedger()
        >>> bad = invalid_tool_call(name="f", args="{'a': 1}", id="1", error=None)
        >>> read_invalid_call(ledger, bad, None, repair=True, cut=False)
        >>> ledger.valid[0]["args"], ledger.recovered[0]["source"]
        ({'a': 1}, 'invalid_tool_calls')
    """

    valid: list[ToolCall] = field(default_factory=list)
    """The tool calls of the new message."""
    invalid: list[InvalidToolCall] = field(default_factory=list)
    """The calls withheld, each with the error sent back to the model."""
    recovered: list[dict[str, Any]] = field(default_factory=list)
    """``{"id", "name", "source", "repairs"}`` of each call recovered."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """One ``jsonrecover.recovery`` payload per recovered call."""
    failures: list[tuple[str, JsonRecoveryError]] = field(default_factory=list)
    """``(id, error)`` of each call withheld, in order."""

    def withhold(
        self,
        name: str | None,
        arguments: str | None,
        call_id: str | None,
        error: JsonRecoveryError,
    ) -> None:
        """Keep a call out of the tool calls, as an invalid call saying why."""
        call_id = call_id or make_call_id()
        text = str(error.observation or error)
        self.invalid.append(
            make_invalid_call(name=name, args=arguments, id=call_id, error=text)
        )
        self.failures.append((call_id, error))

    def accept(
        self,
        name: str,
        call_id: str,
        arguments: dict[str, Any],
        *,
        source: str,
        repairs: Sequence[str],
        payload: dict[str, Any],
    ) -> None:
        """Make a tool call of arguments read, and record how they were read."""
        self.valid.append(make_tool_call(name=name, args=arguments, id=call_id))
        self.recovered.append(
            {"id": call_id, "name": name, "source": source, "repairs": list(repairs)}
        )
        self.events.append(
            {"tool_call": name, "id": call_id, "source": source, **payload}
        )


def withhold_cut_call(ledger: CallLedger, call: ToolCall) -> None:
    """Withhold a decoded call that the token limit may have cut short.

    Example:
        >>> from langchain_core.messages.tool import tool_call
        >>> ledger = CallLedger()
        >>> withhold_cut_call(ledger, tool_call(name="rm", args={"path": "/"}, id="1"))
        >>> ledger.invalid[0]["args"], ledger.failures[0][1].truncated
        ('{"path": "/"}', True)
    """
    arguments = json.dumps(call["args"], ensure_ascii=False, default=str)
    text = cut_off_error(call["name"])
    error = InvalidJsonError(text, observation=text, truncated=True)
    ledger.withhold(call["name"], arguments, call.get("id"), error)


def read_invalid_call(
    ledger: CallLedger,
    call: InvalidToolCall,
    specs: Mapping[str, Spec] | None,
    *,
    repair: Repair,
    cut: bool,
) -> None:
    """Accept or withhold a call the provider found invalid (same id kept)."""
    name = call.get("name") or ""
    arguments = call.get("args") or ""
    call_id = call.get("id") or make_call_id()
    if specs is not None and name not in specs:
        text = unknown_tool_error(name, sorted(specs))
        ledger.withhold(call.get("name"), call.get("args"), call_id, make_error(text))
        return
    spec = specs[name] if specs is not None else None
    outcome = read_arguments(arguments, name, spec, repair=repair, cut=cut)
    if isinstance(outcome, JsonRecoveryError):
        ledger.withhold(call.get("name"), call.get("args"), call_id, outcome)
        return
    value, repairs, payload = outcome
    ledger.accept(
        name,
        call_id,
        value,
        source="invalid_tool_calls",
        repairs=repairs,
        payload=payload,
    )


def check_text_beside_calls(
    ledger: CallLedger, message: AIMessage, invalid: Sequence[InvalidToolCall]
) -> Any:
    """The content of a reply whose provider set its calls apart, checked.

    Calls the text writes in tool-call markup beside the provider's calls
    are either the same calls echoed (same names and arguments, in order:
    their markup leaves the content), or calls the provider did not read:
    then no call is made, for running some of them would drop the others.

    Returns:
        The message's content, without the echoed markup when it is a ``str``.
    """
    text = str(message.text)
    if "<" not in text and "[TOOL_CALLS]" not in text:
        return message.content
    markup = read_tool_markup(text)
    if not markup.calls:
        return message.content
    provider: list[tuple[str, Any]] = [
        (c["name"], c["args"]) for c in message.tool_calls
    ]
    provider += [(c.get("name") or "", c.get("args") or "") for c in invalid]
    written = [(c.name, c.arguments) for c in markup.calls]
    if len(written) == len(provider) and all(
        w_name == p_name and same_arguments(w_args, p_args)
        for (w_name, w_args), (p_name, p_args) in zip(written, provider, strict=True)
    ):
        if isinstance(message.content, str):
            return take_out(message.content, list(markup.spans))
        return message.content
    held = list(ledger.valid)
    ledger.valid.clear()
    ledger.recovered.clear()
    ledger.events.clear()
    for call in held:
        arguments = json.dumps(call["args"], ensure_ascii=False, default=str)
        error = _invalid(text_beside_calls_error(call["name"]))
        ledger.withhold(call["name"], arguments, call.get("id"), error)
    return message.content


@dataclass(frozen=True, slots=True)
class _Written:
    """A call written in the text (in markup, or as the whole content)."""

    name: str
    arguments: str
    start: int
    source: str
    closed: bool = True
    extra: tuple[str, ...] = ()
    guessed: tuple[str, ...] = ()
    found_by: tuple[str, ...] = ()
    refused: str | None = None
    """Why the call cannot be used although its arguments may read: a key
    its JSON writes twice in one object, or reasoning tags inside it."""


def read_text_calls(
    ledger: CallLedger,
    message: AIMessage,
    specs: Mapping[str, Spec],
    *,
    repair: Repair,
    cut: bool,
) -> Any:
    """Turn calls written in the reply's text into tool calls.

    Text is a call only in the model's call markup (``<tool_call>`` …) that
    nothing holds back (:class:`HeldBack`), or when the whole content
    (reasoning and whitespace aside) is ``{"name", "arguments"}`` envelopes
    naming bound tools (one, or a list; bare, or in one fence alone). Every
    call becomes a call, in order, or all stay invalid: when one cannot be
    used, or when the text also writes a call outside those forms.

    Returns:
        The message's content, without the calls' text when it is a ``str``.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover.tools import tool_specs
        >>> def search(query: str) -> str:
        ...     "Search the web."
        ...     return query
        >>> ledger, specs = CallLedger(), tool_specs([search])
        >>> reply = AIMessage('<tool_call>{"name": "search", '
        ...                   '"arguments": {"query": "Ada"}}</tool_call>')
        >>> read_text_calls(ledger, reply, specs, repair=True, cut=False)
        ''
        >>> ledger.valid[0]["args"], ledger.recovered[0]["source"]
        ({'query': 'Ada'}, 'markup')
        >>> prose = AIMessage('I will not run {"name": "search", "arguments": {}}.')
        >>> read_text_calls(CallLedger(), prose, specs, repair=True, cut=False)
        'I will not run {"name": "search", "arguments": {}}.'
    """
    text = str(message.text)
    if "{" not in text and "<" not in text and "[TOOL_CALLS]" not in text:
        return message.content
    markup = read_tool_markup(text)
    thinking, unsettled = think_bounds(text) if "<" in text else ([], False)
    rest = blank(markup.masked, spans := list(markup.spans))
    held = HeldBack(text, rest, spans)
    written = [
        _Written(
            c.name,
            c.arguments,
            c.start,
            "markup",
            c.closed,
            c.extra,
            refused=_refusal(text, held, c, thinking),
        )
        for c in markup.calls
    ]
    bare = _read_whole_content(rest, specs, repair=repair, seen=markup.masked)
    if bare is not None:
        calls, taken = bare
        written.extend(calls)
        spans = merge_spans([*spans, taken])
        rest = blank(rest, [taken])
    if not written:
        return message.content
    if unsettled:
        # A reasoning block ended only by quoted closing tags (two or more) may
        # end inside a call's arguments (issue 21): no call read after it runs.
        written = [
            replace(call, refused=reasoning_unsettled_error(call.name))
            for call in written
        ]
    written.sort(key=lambda w: w.start)
    doubt = CALL_HINT.search(rest) is not None or (
        KEY_VALUE_HINT.search(rest) is not None
    )
    _read_all(ledger, written, specs, repair=repair, cut=cut, doubt=doubt)
    if isinstance(message.content, str):
        return take_out(message.content, spans)
    return message.content


def _refusal(
    text: str, held: HeldBack, call: MarkupCall, thinking: Sequence[tuple[int, int]]
) -> str | None:
    r"""Why a call in markup cannot be used as read, if it cannot.

    Reasoning tags inside it were blanked out of its arguments; a sentence or
    a place that holds it back (``I won't run <tool_call>…``, a table) sent none.
    """
    if any(s < call.end and e > call.start for s, e in thinking):
        return reasoning_inside_error(call.name)
    if held(call.start, call.end):
        return held_back_error(call.name)
    key = duplicate_key(text[call.start : call.end])
    return None if key is None else duplicate_key_error(call.name, key)


def _read_whole_content(
    rest: str, specs: Mapping[str, Spec], *, repair: Repair, seen: str
) -> tuple[list[_Written], tuple[int, int]] | None:
    """The calls of a text that is only call envelopes, and the span they take.

    ``seen`` is the text before markup was blanked: markup blanked inside the
    body (a token in a single-quoted string) would change a value.
    """
    body = whole_body(rest)
    if body is None:
        return None
    begin, stop, start, end = body
    try:
        found, guessed = extract_refusing_guesses(rest[begin:stop], repair)
    except JsonRecoveryError:
        return None
    if found.span != (0, stop - begin):
        return None  # the body holds more than one value
    items = found.value if isinstance(found.value, list) else [found.value]
    envelopes = [read_call_envelope(item) for item in items]
    if not items or any(e is None or e.name not in specs for e in envelopes):
        return None
    key = duplicate_key(rest[begin:stop])
    blanked = rest[begin:stop] != seen[begin:stop]

    def refusal(name: str) -> str | None:
        if blanked:
            return markup_inside_error(name)
        return None if key is None else duplicate_key_error(name, key)

    calls = [
        _Written(
            e.name,
            e.arguments
            if isinstance(e.arguments, str)
            else json.dumps(e.arguments, ensure_ascii=False),
            begin + index,
            "text",
            extra=e.extra,
            guessed=guessed,
            found_by=found.repairs,
            refused=refusal(e.name),
        )
        for index, e in enumerate(envelopes)
        if e is not None
    ]
    return calls, (start, end)


def _read_all(
    ledger: CallLedger,
    written: Sequence[_Written],
    specs: Mapping[str, Spec],
    *,
    repair: Repair,
    cut: bool,
    doubt: bool,
) -> None:
    """Accept every call written, in order, or withhold them all."""
    outcomes: list[Arguments | JsonRecoveryError] = []
    for index, call in enumerate(written):
        last_cut = (cut and index == len(written) - 1) or not call.closed
        outcomes.append(_read_written(call, specs, repair=repair, cut=last_cut))
    failed = any(isinstance(o, JsonRecoveryError) for o in outcomes)
    first = len(ledger.failures)
    for call, outcome in zip(written, outcomes, strict=True):
        if doubt:
            error: JsonRecoveryError = _invalid(unread_calls_error(call.name))
            ledger.withhold(call.name or None, call.arguments, None, error)
        elif isinstance(outcome, JsonRecoveryError):
            ledger.withhold(call.name or None, call.arguments, None, outcome)
        elif failed:
            error = _invalid(withheld_with_others_error(call.name))
            ledger.withhold(call.name, call.arguments, None, error)
        else:
            listed = (
                _put_markup_first
                if call.source == "markup"
                else _put_text_repairs_first(call.found_by)
            )
            _take_call(
                ledger,
                call.name,
                call.arguments,
                outcome,
                source=call.source,
                listed=listed,
            )
    # The calls that failed come first among the failures: the feedback of a
    # re-ask names what went wrong, not a call withheld with it.
    own = [isinstance(o, JsonRecoveryError) for o in outcomes]
    if failed and not doubt and not all(own):
        held = ledger.failures[first:]
        ledger.failures[first:] = [
            *(f for f, o in zip(held, own, strict=True) if o),
            *(f for f, o in zip(held, own, strict=True) if not o),
        ]


def _read_written(
    call: _Written, specs: Mapping[str, Spec], *, repair: Repair, cut: bool
) -> Arguments | JsonRecoveryError:
    """A written call's arguments read, or why the call cannot be used."""
    if call.name not in specs:
        return make_error(unknown_tool_error(call.name, sorted(specs)))
    if call.extra:
        return _invalid(envelope_error(call.name, call.extra))
    if call.refused is not None:
        return _invalid(call.refused)
    if call.guessed:
        return _invalid(guessed_error(call.name, call.guessed))
    return read_arguments(
        call.arguments, call.name, specs[call.name], repair=repair, cut=cut
    )


def _invalid(text: str) -> InvalidJsonError:
    return InvalidJsonError(text, observation=text)


def _take_call(
    ledger: CallLedger,
    name: str,
    arguments: str,
    outcome: Arguments | JsonRecoveryError,
    *,
    source: str,
    listed: Callable[[tuple[str, ...]], tuple[str, ...]],
) -> None:
    """Accept a call written in the text (a new id), or withhold it.

    ``listed`` gives the call's repairs from its arguments' own: what found
    the call in the text comes first.
    """
    if isinstance(outcome, JsonRecoveryError):
        ledger.withhold(name, arguments, None, outcome)
        return
    value, repairs, payload = outcome
    all_repairs = listed(repairs)
    payload = {**payload, "repairs": list(all_repairs)}
    ledger.accept(
        name,
        make_call_id(),
        value,
        source=source,
        repairs=all_repairs,
        payload=payload,
    )


def _put_text_repairs_first(
    found_by: tuple[str, ...],
) -> Callable[[tuple[str, ...]], tuple[str, ...]]:
    """The repairs of a call found in JSON text: the text's, then the rest."""
    return lambda repairs: (*found_by, *(r for r in repairs if r not in found_by))


def _put_markup_first(repairs: tuple[str, ...]) -> tuple[str, ...]:
    """The repairs of a call found in tool-call markup."""
    return ("tool_markup_stripped", *repairs)
