"""The tool-call oracle (issue 21, families 1 to 5): a call the text made, or none.

``generate`` builds, from a seed, replies a tool-calling model could send:
real calls in every supported form (a bare envelope or a list of them, alone
or in one fence; ``<tool_call>``, ``[TOOL_CALLS]``, ``<|python_tag|>``,
harmony ``to=functions.x``, GLM ``<arg_key>``, Qwen3-Coder ``<function=…>``,
``<invoke>``), with reasoning or prose before the markup; prose that
mentions, negates, proposes or quotes a call; invalid calls whose arguments
hold one slip, two glued objects or key/value text; envelopes with a member
beyond their kind's keys; several calls; call markup the prose quotes (a
fenced example beside prose, a comment, a ``>`` line, inline code); calls
naming a tool that is not bound; markup held back in French, German,
Spanish, Portuguese, Italian, Russian, Chinese or Japanese prose, offered as
list-item options, drafts or examples, followed by a line that asks for the
go-ahead, or set in emphasis, a table cell, a heading, ``<details>`` or a
``User:`` line (``tests/_oracle_tools_prose.py``); real calls with ``<s>``,
``</s>`` or a lone fence around them; markup labelled a step, a plan, a
test or a bad form, described, reported as already run, or held back in
Korean, Vietnamese, Turkish, Dutch, Polish, Arabic or Hindi; and lead lines
that send their call whatever words they hold (``KEPT``). ``judge`` says whether an entry
point's answer is ``"right"`` (every intended call, same name, same
arguments, in order, and no markup left in the content; or no call where the
text made none), ``"error"`` (the calls left invalid, or kept as text) or
``"wrong"`` (a call the text did not make, a call dropped or changed, or
markup left beside the calls taken out: a tag, ``<s>``, an empty fence or a
lone fence line).

Each case is drawn from its own ``random.Random`` seeded by ``(seed, index)``,
so the first cases of a long run are the cases of a short one. Case ``i``
gets ``KINDS[i % len(KINDS)]``.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Literal

from _oracle_tools_prose import HELD_BACK, KEPT, WRAPPED
from pydantic import BaseModel

if TYPE_CHECKING:
    from collections.abc import Callable

Verdict = Literal["right", "error", "wrong"]
VERDICTS: Final[tuple[Verdict, ...]] = ("right", "error", "wrong")
FIXED_SEED: Final = 20261203


class GetWeather(BaseModel):
    """The weather in a city."""

    city: str
    unit: str = "c"


class SendEmail(BaseModel):
    """Send an email."""

    to: str
    subject: str
    body: str = ""


class SearchWeb(BaseModel):
    """Search the web."""

    query: str
    limit: int = 5


class DeleteFile(BaseModel):
    """Delete a file."""

    path: str
    recursive: bool = False


TOOLS: Final[tuple[type[BaseModel], ...]] = (
    GetWeather,
    SendEmail,
    SearchWeb,
    DeleteFile,
)
BY_NAME: Final = {tool.__name__: tool for tool in TOOLS}

KINDS: Final = (
    "call",  # real calls, any form, one to three
    "several",  # two calls written together (one block, markup then bare …)
    "markup_slip",  # a call in markup whose arguments hold one slip
    "invalid_slip",  # a provider's invalid call with one slip
    "glued",  # arguments that are two objects glued, or key=value text
    "extra",  # an envelope with a member beyond its kind's keys
    "mention",  # prose that negates, proposes or quotes a call
    "announced",  # ``Let me check: {call}``: prose, so no call (the rule's cost)
    "stray_markup",  # a lone tag or an empty fence beside a real call
    "quoted_markup",  # call markup shown in a fence beside prose, commented out …
    "unbound",  # a call naming a tool that is not bound, its arguments valid
    "foreign",  # markup negated, proposed or quoted in other languages
    "options",  # markup offered as options, drafts or examples
    "asks_after",  # markup followed by a line asking for the go-ahead
    "layout",  # markup in emphasis, a table cell, a heading, <details>, ``User:``
    "wrapped",  # a real call with ``<s>``, ``</s>`` or a lone fence around it
    "labels",  # markup labelled a step, plan, test or bad form, described, or past
    "more_languages",  # markup held back in Korean, Vietnamese, Turkish, Dutch …
    "kept",  # a lead line that sends its call (a retry, ``Answer:``, ``categoría``)
)
BARE_FORMS: Final = ("bare", "bare_parameters", "fenced")
MARKUP_FORMS: Final = (
    "hermes",
    "mistral_list",
    "mistral_named",
    "python_tag",
    "harmony",
    "glm",
    "qwen_xml",
    "invoke",
)

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Case:
    """One reply, and the calls it makes."""

    index: int
    kind: str
    form: str
    text: str
    """The reply's content (``""`` for an invalid call)."""
    invalid: tuple[tuple[str, str], ...]
    """``(name, arguments text)`` of each invalid call the provider set aside."""
    expected: tuple[Call, ...]
    """The calls the reply makes, in order (empty: it makes none)."""
    tool: str = ""
    """The tool the reply writes about (the schema for ``structured_output``)."""
    valid: tuple[Call, ...] = ()
    """``(name, arguments)`` of each call the provider decoded (``tool_calls``)."""

    @property
    def label(self) -> str:
        """Where the case comes from, to reproduce it."""
        return f"{self.index} {self.kind}/{self.form}"


@dataclass(frozen=True, slots=True)
class Answer:
    """What an entry point made of a case: its calls and its content."""

    calls: tuple[Call, ...]
    content: str = ""
    error: BaseException | None = None


_WORDS: Final = (
    "Oslo", "Zürich", "São Paulo", "東京", "Kraków", "report Q3", "dinner plans",
    "café menu", "ünïcödé", "weekly sync", "budget 2026", "naïve approach",
)  # fmt: skip
_TRICKY: Final = (
    'say "hi"', "a {brace}", "[bracketed]", "C:\\temp\\x", "line\nbreak",
    "<b>bold</b>", "emoji 🎉", "50% off", "it's fine",
)  # fmt: skip
_MAILS: Final = ("ada@corp.example", "all@corp.example", "grace@lab.example")
_PATHS: Final = ("/tmp/cache", "/var/log/app.log", "~/notes.txt", "/srv/data")  # noqa: S108

# Markup left in content after the calls are taken out (family 5).
_LEFT_MARKUP: Final = re.compile(
    r"</?tool_call>|\[TOOL_CALLS\]|\[ARGS\]|<\|python_tag\|>|<\|call\|>|<\|channel\|>"
    r"|<arg_key>|</?function[=>]|</?invoke|<parameter|```[a-z]*\s*```|</?s>"
)
_FENCE_LINE: Final = re.compile(r"^[ \t]*```", re.MULTILINE)


def _text(rng: random.Random, *, safe: bool) -> str:
    if safe or rng.random() < 0.6:
        return rng.choice(_WORDS)
    return rng.choice(_TRICKY)


def _arguments(rng: random.Random, name: str, *, safe: bool) -> dict[str, Any]:
    if name == "GetWeather":
        args: dict[str, Any] = {"city": _text(rng, safe=safe)}
        if rng.random() < 0.4:
            args["unit"] = rng.choice(("c", "f"))
    elif name == "SendEmail":
        args = {"to": rng.choice(_MAILS), "subject": _text(rng, safe=safe)}
        if rng.random() < 0.5:
            args["body"] = _text(rng, safe=safe)
    elif name == "SearchWeb":
        args = {"query": _text(rng, safe=safe)}
        if rng.random() < 0.5:
            args["limit"] = rng.randint(1, 20)
    else:
        args = {"path": rng.choice(_PATHS)}
        if rng.random() < 0.6:
            args["recursive"] = rng.random() < 0.5
    return args


def _call(rng: random.Random, *, safe: bool = False) -> Call:
    name = rng.choice(sorted(BY_NAME))
    return name, _arguments(rng, name, safe=safe)


def _dumps(value: Any, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, indent=2)


def _envelope(
    call: Call, key: str = "arguments", extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"name": call[0], key: call[1], **(extra or {})}


def _xml_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def render(calls: list[Call], form: str, rng: random.Random) -> str:
    """The calls written in ``form``."""
    if form in {"bare", "bare_parameters", "fenced"}:
        key = "parameters" if form == "bare_parameters" else "arguments"
        items = [_envelope(c, key) for c in calls]
        body = _dumps(items[0] if len(items) == 1 else items, rng)
        return f"```json\n{body}\n```" if form == "fenced" else body
    if form == "hermes":
        return "\n".join(
            f"<tool_call>\n{json.dumps(_envelope(c), ensure_ascii=False)}\n</tool_call>"
            for c in calls
        )
    if form == "mistral_list":
        return "[TOOL_CALLS]" + json.dumps([_envelope(c) for c in calls])
    if form == "mistral_named":
        return "".join(
            f"[TOOL_CALLS]{n}[ARGS]{json.dumps(a, ensure_ascii=False)}"
            for n, a in calls
        )
    if form == "python_tag":
        return "<|python_tag|>" + "; ".join(
            json.dumps(_envelope(c, "parameters"), ensure_ascii=False) for c in calls
        )
    if form == "harmony":
        return "".join(
            f"<|start|>assistant<|channel|>commentary to=functions.{n} "
            f"<|constrain|>json<|message|>{json.dumps(a, ensure_ascii=False)}<|call|>"
            for n, a in calls
        )
    if form == "glm":
        return "\n".join(
            f"<tool_call>{n}\n"
            + "".join(
                f"<arg_key>{k}</arg_key>\n<arg_value>{_xml_value(v)}</arg_value>\n"
                for k, v in a.items()
            )
            + "</tool_call>"
            for n, a in calls
        )
    if form == "qwen_xml":
        return "\n".join(
            f"<tool_call>\n<function={n}>\n"
            + "".join(
                f"<parameter={k}>\n{_xml_value(v)}\n</parameter>\n"
                for k, v in a.items()
            )
            + "</function>\n</tool_call>"
            for n, a in calls
        )
    return "\n".join(
        f'<invoke name="{n}">\n'
        + "".join(
            f'<parameter name="{k}">{_xml_value(v)}</parameter>\n' for k, v in a.items()
        )
        + "</invoke>"
        for n, a in calls
    )


_XML_FORMS: Final = {"glm", "qwen_xml", "invoke"}
_REASONING: Final = (
    "<think>\nThe user wants this; a call should do it.\n</think>\n",
    '<think>I could also write {"name": "x"} but no.</think>\n\n',
)
_PROSE_BEFORE: Final = ("I'll look that up.\n", "Sure, one moment.\n\n", "")


def _lead(rng: random.Random, *, markup: bool) -> str:
    lead = rng.choice(("", "", "\n", *_REASONING))
    if markup:
        lead += rng.choice(_PROSE_BEFORE)
    return lead


def _real_calls(rng: random.Random, form: str, count: int) -> list[Call]:
    safe = form in _XML_FORMS
    return [_call(rng, safe=safe) for _ in range(count)]


def _slip(rng: random.Random, args: dict[str, Any]) -> str:
    """The arguments with one slip that a careful reader can undo."""
    text = json.dumps(args, ensure_ascii=False)
    choice = rng.choice(("trailing_comma", "python", "single_quotes"))
    if choice == "trailing_comma":
        return text[:-1] + ",}"
    if choice == "python":
        return repr(args)
    return "{" + ", ".join(f"'{k}': {json.dumps(v)}" for k, v in args.items()) + "}"


def _case_call(rng: random.Random, index: int) -> Case:
    form = rng.choice((*BARE_FORMS, *MARKUP_FORMS))
    count = rng.choice((1, 1, 1, 2, 3))
    if form in {"bare", "bare_parameters", "fenced"} and rng.random() < 0.5:
        count = 1
    calls = _real_calls(rng, form, count)
    text = _lead(rng, markup=form in MARKUP_FORMS) + render(calls, form, rng)
    end = rng.choice(("", "\n", " "))
    return Case(index, "call", form, text + end, (), tuple(calls), calls[0][0])


def _case_several(rng: random.Random, index: int) -> Case:
    first, second = _call(rng, safe=True), _call(rng, safe=True)
    shape = rng.choice(("one_block", "markup_then_bare", "two_blocks", "tag_list"))
    one, two = (json.dumps(_envelope(c), ensure_ascii=False) for c in (first, second))
    if shape == "one_block":
        text = f"<tool_call>\n{one}\n{two}\n</tool_call>"
    elif shape == "markup_then_bare":
        text = f"<tool_call>\n{one}\n</tool_call>\n{two}"
    elif shape == "two_blocks":
        text = f"<tool_call>{one}</tool_call><tool_call>{two}</tool_call>"
    else:
        text = f"<tool_call>[{one}, {two}]</tool_call>"
    return Case(index, "several", shape, text, (), (first, second), first[0])


def _case_markup_slip(rng: random.Random, index: int) -> Case:
    call = _call(rng, safe=True)
    form = rng.choice(("hermes", "mistral_named", "harmony"))
    slipped = _slip(rng, call[1])
    if form == "hermes":
        text = f'<tool_call>{{"name": "{call[0]}", "arguments": {slipped}}}</tool_call>'
    elif form == "mistral_named":
        text = f"[TOOL_CALLS]{call[0]}[ARGS]{slipped}"
    else:
        text = (
            f"<|start|>assistant<|channel|>commentary to=functions.{call[0]} "
            f"<|constrain|>json<|message|>{slipped}<|call|>"
        )
    return Case(index, "markup_slip", form, text, (), (call,), call[0])


def _case_invalid_slip(rng: random.Random, index: int) -> Case:
    call = _call(rng, safe=True)
    invalid = ((call[0], _slip(rng, call[1])),)
    return Case(index, "invalid_slip", "invalid", "", invalid, (call,), call[0])


def _case_glued(rng: random.Random, index: int) -> Case:
    name = rng.choice(sorted(BY_NAME))
    first, second = (_arguments(rng, name, safe=True) for _ in range(2))
    shape = rng.choice(
        ("invalid_glued", "invalid_kwargs", "markup_glued", "bare_glued")
    )
    one, two = (
        json.dumps(first, ensure_ascii=False),
        json.dumps(second, ensure_ascii=False),
    )
    if shape == "invalid_glued":
        return Case(index, "glued", shape, "", ((name, one + two),), (), name)
    if shape == "invalid_kwargs":
        key, value = next(iter(first.items()))
        text = f"{key}={json.dumps(value, ensure_ascii=False)}, opts={two}"
        return Case(index, "glued", shape, "", ((name, text),), (), name)
    if shape == "markup_glued":
        text = f'<tool_call>{{"name": "{name}", "arguments": {one}{two}}}</tool_call>'
        return Case(index, "glued", shape, text, (), (), name)
    # Two whole envelopes glued: the count and each tool are written.
    envelopes = (_envelope((name, first)), _envelope((name, second)))
    text = "".join(json.dumps(e, ensure_ascii=False) for e in envelopes)
    expected = ((name, first), (name, second))
    return Case(index, "glued", shape, text, (), expected, name)


_EXTRA: Final = (
    ("format", "24h"), ("confirm", True), ("reason", "the user asked"),
    ("dry_run", False), ("priority", "high"),
)  # fmt: skip


def _case_extra(rng: random.Random, index: int) -> Case:
    call = _call(rng)
    key, value = rng.choice(_EXTRA)
    envelope = _envelope(call, extra={key: value})
    form = rng.choice(
        ("bare", "fenced", "hermes", "python_tag", "mistral_list", "function")
    )
    body = json.dumps(envelope, ensure_ascii=False)
    if form == "bare":
        text = body
    elif form == "fenced":
        text = f"```json\n{body}\n```"
    elif form == "hermes":
        text = f"<tool_call>\n{body}\n</tool_call>"
    elif form == "python_tag":
        body = json.dumps(
            _envelope(call, "parameters", {key: value}), ensure_ascii=False
        )
        text = f"<|python_tag|>{body}"
    elif form == "mistral_list":
        text = f"[TOOL_CALLS][{body}]"
    else:
        wrapped = {"type": "function", "function": envelope}
        text = f"<tool_call>{json.dumps(wrapped, ensure_ascii=False)}</tool_call>"
    return Case(index, "extra", form, text, (), (), call[0])


_NEGATED: Final = (
    "I won't run {call} until you confirm.",
    "Do not worry, I did not call {call}; it would email everyone.",
    "I will not execute {call} without your approval.",
    "Calling {call} would be a mistake here, so I stopped.",
)
_PROPOSED: Final = (
    "If you agree, I would send:\n{fenced}",
    "Proposed action (not run yet):\n{fenced}\nShall I go ahead?",
    "Here is the call I would make, once you say yes: {call}",
    "Option A:\n{fenced}\nOption B: do nothing. Which do you prefer?",
)
_QUOTED: Final = (
    "The API expects a call like `{call}`.",
    "> {call}\n\nThat is the format the docs show.",
    "For example, the model may emit {call} to look up a city.",
    "Models such as Hermes write `<tool_call>{call}</tool_call>` for this.",
    'The log shows the earlier request "{call}" failed.',
)
_ANNOUNCED: Final = (
    "Let me check: {call}",
    "Sure, calling the tool now:\n{call}",
    "I'll search for that.\n\n{fenced}",
)


def _case_prose(rng: random.Random, index: int, kind: str) -> Case:
    call = _call(rng, safe=True)
    body = json.dumps(_envelope(call), ensure_ascii=False)
    templates = (
        _ANNOUNCED
        if kind == "announced"
        else rng.choice((_NEGATED, _PROPOSED, _QUOTED))
    )
    template = rng.choice(templates)
    form = {_NEGATED: "negated", _PROPOSED: "proposed", _QUOTED: "quoted"}.get(
        templates, "announced"
    )
    text = template.format(call=body, fenced=f"```json\n{body}\n```")
    return Case(index, kind, form, text, (), (), call[0])


def _case_stray(rng: random.Random, index: int) -> Case:
    call = _call(rng, safe=True)
    body = json.dumps(_envelope(call), ensure_ascii=False)
    shape = rng.choice(("lone_tag", "fenced_markup", "lone_closer", "markup_in_fence"))
    if shape == "lone_tag":
        text = f"<tool_call>\n<tool_call>{body}</tool_call>"
    elif shape == "fenced_markup":
        text = f"```json\n<tool_call>{body}</tool_call>\n```"
    elif shape == "lone_closer":
        text = f"<tool_call>{body}</tool_call>\n</tool_call>"
    else:
        text = f"```\n[TOOL_CALLS]{call[0]}[ARGS]{json.dumps(call[1])}\n```"
    return Case(index, "stray_markup", shape, text, (), (call,), call[0])


_QUOTING: Final = (
    "Example:\n```{tag}\n{markup}\n```\nShould I?",
    "The format looks like this:\n```{tag}\n{markup}\n```",
    "```{tag}\n{markup}\n```\nShall I run it?",
    "I will not run anything yet. <!-- {markup} -->",
    "{quoted}\n\nThat is what the earlier turn sent; I will not repeat it.",
)
_INLINE: Final = (
    "The syntax is `{markup}` for this model.",
    "Write `e.g. {markup}` to call it.",
)
_SINGLE_LINE_FORMS: Final = ("mistral_list", "mistral_named", "python_tag", "harmony")


def _case_quoted(rng: random.Random, index: int) -> Case:
    call = _call(rng, safe=True)
    form = rng.choice(MARKUP_FORMS)
    markup = render([call], form, rng)
    templates = _QUOTING + (_INLINE if form in _SINGLE_LINE_FORMS else ())
    template = rng.choice(templates)
    quoted = "\n".join(f"> {line}" for line in markup.split("\n"))
    tag = rng.choice(("", "xml", "text"))
    text = template.format(tag=tag, markup=markup, quoted=quoted)
    return Case(index, "quoted_markup", form, text, (), (), call[0])


_UNBOUND: Final = ("lookup", "run_shell", "fetch_page", "DeleteFiles")


def _case_unbound(rng: random.Random, index: int) -> Case:
    tool, arguments = _call(rng, safe=True)
    name = rng.choice(_UNBOUND)
    form = rng.choice(("valid", "invalid", "markup", "bare"))
    body = json.dumps(arguments, ensure_ascii=False)
    if form == "valid":
        return Case(index, "unbound", form, "", (), (), tool, ((name, arguments),))
    if form == "invalid":
        return Case(index, "unbound", form, "", ((name, body[:-1] + ",}"),), (), tool)
    envelope = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    text = f"<tool_call>{envelope}</tool_call>" if form == "markup" else envelope
    return Case(index, "unbound", form, text, (), (), tool)


def _case_held_back(rng: random.Random, index: int, kind: str) -> Case:
    first, second = _call(rng, safe=True), _call(rng, safe=True)
    form = rng.choice(MARKUP_FORMS)
    template = rng.choice(HELD_BACK[kind])
    text = template.format(m=render([first], form, rng), m2=render([second], form, rng))
    return Case(index, kind, form, text, (), (), first[0])


def _case_sent(rng: random.Random, index: int, kind: str) -> Case:
    """A call in markup that the reply sends, from ``WRAPPED`` or ``KEPT``."""
    call = _call(rng, safe=True)
    form = rng.choice(MARKUP_FORMS)
    templates = WRAPPED if kind == "wrapped" else KEPT
    text = rng.choice(templates).format(m=render([call], form, rng))
    return Case(index, kind, form, text, (), (call,), call[0])


_MAKERS: Final[dict[str, Callable[[random.Random, int], Case]]] = {
    "call": _case_call,
    "several": _case_several,
    "markup_slip": _case_markup_slip,
    "invalid_slip": _case_invalid_slip,
    "glued": _case_glued,
    "extra": _case_extra,
    "stray_markup": _case_stray,
    "quoted_markup": _case_quoted,
    "unbound": _case_unbound,
    "wrapped": partial(_case_sent, kind="wrapped"),
    "kept": partial(_case_sent, kind="kept"),
}


def make_case(seed: int, index: int) -> Case:
    """Case ``index`` of ``seed``: the same whatever the run's length."""
    rng = random.Random(f"{seed}:{index}")  # noqa: S311 - reproducible data
    kind = KINDS[index % len(KINDS)]
    if kind in HELD_BACK:
        return _case_held_back(rng, index, kind)
    maker = _MAKERS.get(kind)
    return _case_prose(rng, index, kind) if maker is None else maker(rng, index)


def generate(seed: int, count: int) -> list[Case]:
    """The first ``count`` cases of ``seed``."""
    return [make_case(seed, i) for i in range(count)]


def canonical(call: Call) -> str:
    """A call as comparable text (types kept: ``1``, ``1.0`` and ``True`` differ)."""
    return json.dumps([call[0], _typed(call[1])], sort_keys=True, ensure_ascii=False)


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return [type(value).__name__, value]


def judge(case: Case, answer: Answer) -> Verdict:
    """Right, error or wrong: see the module's docstring."""
    got = [canonical(c) for c in answer.calls]
    if not case.expected:
        return "right" if not got else "wrong"
    if not got:
        return "error"
    if got != [canonical(c) for c in case.expected]:
        return "wrong"
    content = answer.content
    if _LEFT_MARKUP.search(content) or len(_FENCE_LINE.findall(content)) % 2:
        return "wrong"
    return "right"
