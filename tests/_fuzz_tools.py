"""Seeded tool-call replies with one fault each, and a judge: no call the text did not make.

``generate`` writes known calls (nested arguments, strings holding brackets
or call markup, keys that are a call's own, ``id`` and ``type``) in every
JSON-bodied markup form the package reads (``<tool_call>`` with one envelope
or a list, ``[TOOL_CALLS]`` with a list, an envelope or ``name[ARGS]``,
``<|python_tag|>``, ``<function=name>``, ``<function_call>``, Granite's
``<|tool_call|>``, Cohere's actions, harmony, Kimi, DeepSeek V3.1, a bare or
fenced envelope as the whole reply) and in the key/value forms (GLM, Qwen's
``<parameter=``, ``<invoke>``), then puts ONE fault in one call's JSON: a
closer too many or lost, an opener lost, JSON that goes on after it, a
second body glued to it, call markup inside a string, the closing tag lost,
or the reply cut anywhere. ``judge`` compares the calls an entry point made
with the calls the original made: ``"right"`` (the same calls, in order),
``"error"`` (no call; for a cut reply, the calls before the cut), or
``"wrong"`` (any other call: a call the text did not make).

A fault may leave a text that another original gives with one fault too
(``{"a": {"b": 1, "c": 2}}`` short of its last ``}`` is also
``{"a": {"b": 1}, "c": 2}`` short of an inner one): a call then is wrong,
for an error was the only safe answer. Each case is drawn from its own
``random.Random`` seeded by ``(seed, index)``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Final, Literal

from _json_text import structural


def _deepseek(name: str) -> str:
    """A DeepSeek token as the model writes it (full-width bars, ``▁`` for spaces)."""
    return "<\uff5c" + name.replace(" ", "\u2581") + "\uff5c>"


Verdict = Literal["right", "error", "wrong"]
VERDICTS: Final[tuple[Verdict, ...]] = ("right", "error", "wrong")
Call = tuple[str, dict[str, Any]]

TOOLS: Final[list[dict[str, Any]]] = [
    {
        "name": name,
        "description": f"Tool {name}.",
        "parameters": {"type": "object", "properties": {}},
    }
    for name in ("lookup", "send")
]
"""Tools with open schemas: any arguments object validates."""

ENVELOPE_FORMS: Final = (
    "hermes",
    "hermes_list",
    "hermes_wrapped",
    "mistral_list",
    "granite_list",
    "cohere_list",
    "bare_list",
    "mistral_envelope",
    "python_tag",
    "function_call",
    "granite",
    "cohere",
    "bare",
    "fenced",
)
NAMED_FORMS: Final = (
    "mistral_named",
    "function",
    "harmony",
    "kimi",
    "deepseek",
    "deepseek_v3",
)
KEY_VALUE_FORMS: Final = ("glm", "qwen_xml", "invoke")
FORMS: Final = (*ENVELOPE_FORMS, *NAMED_FORMS, *KEY_VALUE_FORMS)
JSON_FAULTS: Final = (
    "none",
    "closer_extra",
    "closer_lost",
    "opener_lost",
    "goes_on",
    "glued",
    "markup_in_string",
    "tag_lost",
    "cut",
)
KEY_VALUE_FAULTS: Final = ("none", "markup_in_string", "tag_lost", "cut")

_MARKUP: Final = (
    "</tool_call>", "<tool_call>", "[TOOL_CALLS]", "[ARGS]", "<|python_tag|>",
    "<function=send>", "</function>", "<|call|>", "<|tool_call_end|>",
    "</arg_value>", "<parameter=x>", "</invoke>", '{"name": "send"}',
)  # fmt: skip
_WORDS: Final = ("Oslo", "a {brace}", "[x]", "São Paulo", "b}]", "line\nbreak", "")
_KEYS: Final = ("city", "query", "to", "opts", "limit", "tags", "meta", "q")


@dataclass(frozen=True, slots=True)
class Case:
    """One reply, the calls its original made, and how it was made."""

    index: int
    form: str
    fault: str
    text: str
    expected: tuple[Call, ...]
    """The calls of the original, in order."""
    cut: bool = False
    """The reply is cut: the calls before the cut may come alone."""

    @property
    def label(self) -> str:
        """Where the case comes from, to reproduce it."""
        return f"{self.index} {self.form}/{self.fault}"


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.25:
        return _object(rng, depth + 1)
    if depth < 3 and roll < 0.35:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.7:
        return rng.choice(_WORDS)
    return rng.choice((1, -2, 3.5, True, False, None, 10))


def _object(rng: random.Random, depth: int) -> dict[str, Any]:
    keys = rng.sample(_KEYS, rng.randint(1, 3))
    if depth == 0 and rng.random() < 0.1:
        keys.append(rng.choice(("id", "type")))
    return {key: _value(rng, depth) for key in keys}


def _flat(rng: random.Random) -> dict[str, Any]:
    """Arguments the key/value forms write: strings without markup, numbers."""
    keys = rng.sample(_KEYS, rng.randint(1, 3))
    return {k: rng.choice(("Oslo", "report Q3", 3, True, "x y")) for k in keys}


def _body(call: Call, form: str, rng: random.Random) -> str:
    """The JSON of one call as the form writes it: an envelope or the arguments."""
    name, arguments = call
    indent = 2 if rng.random() < 0.2 else None
    if form in NAMED_FORMS:
        return json.dumps(arguments, ensure_ascii=False, indent=indent)
    key = "parameters" if form in {"python_tag", "cohere_list"} else "arguments"
    envelope: dict[str, Any] = {
        "tool_name" if form == "cohere_list" else "name": name,
        key: arguments,
    }
    if form == "hermes_wrapped":
        envelope = {"type": "function", "function": envelope}
    return json.dumps(envelope, ensure_ascii=False, indent=indent)


def _assemble(form: str, calls: list[Call], bodies: list[str]) -> str:
    """The reply: each body in the form's markup."""
    names = [name for name, _ in calls]
    if form in {"hermes", "hermes_wrapped"}:
        return "\n".join(f"<tool_call>\n{b}\n</tool_call>" for b in bodies)
    listed = "[" + ", ".join(bodies) + "]"
    lists = {
        "hermes_list": f"<tool_call>{listed}</tool_call>",
        "mistral_list": f"[TOOL_CALLS]{listed}",
        "granite_list": f"<|tool_call|>{listed}",
        "cohere_list": f"<|START_ACTION|>{listed}<|END_ACTION|>",
        "bare_list": listed,
    }
    if form in lists:
        return lists[form]
    if form == "mistral_envelope":
        return "".join(f"[TOOL_CALLS]{b}" for b in bodies)
    if form == "python_tag":
        return "<|python_tag|>" + "; ".join(bodies)
    if form == "function_call":
        return "\n".join(f"<function_call>{b}</function_call>" for b in bodies)
    if form == "granite":
        return "<|tool_call|>" + bodies[0]
    if form == "cohere":
        return f"<|START_ACTION|>{bodies[0]}<|END_ACTION|>"
    if form == "bare":
        return bodies[0]
    if form == "fenced":
        return f"```json\n{bodies[0]}\n```"
    if form == "mistral_named":
        return "".join(
            f"[TOOL_CALLS]{n}[ARGS]{b}" for n, b in zip(names, bodies, strict=True)
        )
    if form == "function":
        return "\n".join(
            f"<function={n}>{b}</function>" for n, b in zip(names, bodies, strict=True)
        )
    if form == "harmony":
        return "".join(
            f"<|start|>assistant<|channel|>commentary to=functions.{n} "
            f"<|constrain|>json<|message|>{b}<|call|>"
            for n, b in zip(names, bodies, strict=True)
        )
    if form == "kimi":
        inner = "".join(
            f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>{b}"
            "<|tool_call_end|>"
            for i, (n, b) in enumerate(zip(names, bodies, strict=True))
        )
        return f"<|tool_calls_section_begin|>{inner}<|tool_calls_section_end|>"
    calls_text = "".join(
        _deepseek("tool call begin")
        + (
            f"function{_deepseek('tool sep')}{n}\n```json\n{b}\n```"
            if form == "deepseek_v3"
            else n + _deepseek("tool sep") + b
        )
        + _deepseek("tool call end")
        for n, b in zip(names, bodies, strict=True)
    )
    return _deepseek("tool calls begin") + calls_text + _deepseek("tool calls end")


def _key_value(form: str, calls: list[Call]) -> str:
    """The calls in a key/value form (strings as written, other values as JSON)."""
    out = []
    for name, arguments in calls:
        pairs = [
            (k, v if isinstance(v, str) else json.dumps(v))
            for k, v in arguments.items()
        ]
        if form == "glm":
            inner = "".join(
                f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"
                for k, v in pairs
            )
            out.append(f"<tool_call>{name}\n{inner}</tool_call>")
        elif form == "qwen_xml":
            inner = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in pairs)
            out.append(
                f"<tool_call>\n<function={name}>\n{inner}</function>\n</tool_call>"
            )
        else:
            inner = "".join(
                f'<parameter name="{k}">{v}</parameter>\n' for k, v in pairs
            )
            out.append(f'<invoke name="{name}">\n{inner}</invoke>')
    return "\n".join(out)


def _outside_strings(body: str, chars: str) -> list[int]:
    """Offsets of ``chars`` in ``body`` outside JSON strings."""
    return [at for at, char in structural(body) if char in chars]


def _fault_body(body: str, fault: str, rng: random.Random) -> str:
    """``body`` with one syntax fault (every body has a place for each)."""
    if fault == "closer_extra":
        sites = _outside_strings(body, ",}]")
        at = rng.choice(sites)
        return body[:at] + rng.choice("}]") + body[at:]
    if fault == "closer_lost":
        sites = _outside_strings(body, "}]")
        at = rng.choice(sites)
        return body[:at] + body[at + 1 :]
    if fault == "opener_lost":
        sites = _outside_strings(body, "{[")
        at = rng.choice(sites)
        return body[:at] + body[at + 1 :]
    if fault == "goes_on":
        return body + rng.choice((", 2]", "}", "]", ", {}]", ":1", ' "k"'))
    raise ValueError(fault)


def _with_markup(
    arguments: dict[str, Any], rng: random.Random, *, key_value: bool
) -> dict[str, Any]:
    """The arguments with one string value holding call markup.

    Not JSON in a key/value form: there a value that reads as JSON is JSON.
    """
    key = rng.choice(list(arguments))
    markup = rng.choice(_MARKUP[:-1] if key_value else _MARKUP)
    return {**arguments, key: markup + rng.choice(("", " x"))}


def _one_case(seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}:{index}")  # noqa: S311 - a seeded fuzzer
    form = rng.choice(FORMS)
    key_value = form in KEY_VALUE_FORMS
    fault = rng.choice(KEY_VALUE_FAULTS if key_value else JSON_FAULTS)
    several = form not in {"granite", "cohere", "bare", "fenced"}
    count = rng.choice((1, 1, 2)) if several else 1
    names = [rng.choice(("lookup", "send")) for _ in range(count)]
    calls: list[Call] = [
        (n, _flat(rng) if key_value else _object(rng, 0)) for n in names
    ]
    which = rng.randrange(count)
    expected = list(calls)
    if key_value:
        if fault == "markup_in_string":
            calls[which] = expected[which] = (
                names[which],
                _with_markup(calls[which][1], rng, key_value=True),
            )
        text = _key_value(form, calls)
    else:
        if fault == "markup_in_string":
            calls[which] = expected[which] = (
                names[which],
                _with_markup(calls[which][1], rng, key_value=False),
            )
        bodies = [_body(c, form, rng) for c in calls]
        if fault == "glued":
            extra: Call = (names[which], _object(rng, 0))
            bodies[which] += rng.choice(("", "\n")) + _body(extra, form, rng)
            expected.insert(which + 1, extra)
        elif fault in {"closer_extra", "closer_lost", "opener_lost", "goes_on"}:
            bodies[which] = _fault_body(bodies[which], fault, rng)
        text = _assemble(form, calls, bodies)
    if fault == "tag_lost":
        for tag in ("</tool_call>", "</function>", "</invoke>", "<|END_ACTION|>",
                    "</function_call>", "<|call|>", "<|tool_call_end|>",
                    _deepseek("tool call end")):  # fmt: skip
            at = text.rfind(tag)
            if at >= 0:
                text = text[:at] + text[at + len(tag) :]
                break
    lead = rng.choice(("", "", "I'll check.\n", "<think>ok</think>\n"))
    text = lead + text
    if fault == "cut":
        text = text[: rng.randint(len(lead) + 1, len(text) - 1)]
    return Case(index, form, fault, text, tuple(expected), cut=fault == "cut")


def generate(seed: int, count: int) -> list[Case]:
    """``count`` cases for ``seed`` (the first cases of a long run are a short one's)."""
    return [_one_case(seed, index) for index in range(count)]


def judge(case: Case, calls: list[Call]) -> Verdict:
    """``"right"``, ``"error"`` or ``"wrong"``: the calls made against the original's."""
    if calls == list(case.expected):
        return "right"
    if not calls:
        return "error"
    if case.cut and calls == list(case.expected[: len(calls)]):
        return "error"  # the calls before the cut, the cut one withheld
    return "wrong"
