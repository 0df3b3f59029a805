"""The entry points the tool-call oracle judges (``tests/_oracle_tools.py``).

Ours, each at every ``repair`` level (the name without ``repair=`` is the
default, ``repair="safe"``): ``recover_tool_calls`` with and without ``tools=``;
``structured_output`` over tools with a scripted tool-calling model (the
schema is the case's tool, ``max_retries=0``); ``JsonRecoveryMiddleware``'s
model hook with a handler that returns the reply. A peer, where it applies:
``json_repair.loads`` on each invalid call's arguments, and on the whole text
read as a ``{"name", "arguments"}`` envelope or a list of them (a naive
recoverer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from _models import ToolCallingChatModel
from _oracle_tools import BY_NAME, TOOLS, Answer, Case, Verdict, canonical, judge
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import StructuredTool

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    recover_tool_calls,
    structured_output,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_jsonrecover._core.levels import Repair

STRUCTURED_KINDS: Final = frozenset(
    {
        "call",
        "markup_slip",
        "invalid_slip",
        "glued",
        "extra",
        "stray_markup",
        "unbound",
        "foreign",
        "options",
        "asks_after",
        "layout",
        "wrapped",
        "labels",
        "more_languages",
        "kept",
    }
)
"""The kinds ``structured_output`` is judged on: one call of the schema's
tool, or none. Prose that mentions a call is read as the answer's JSON by the
parser's own rules (a value, not an action), and several calls are not one
value, so those kinds are left out. Markup that the prose holds back, offers
as an option or sets in emphasis, a table or a heading is judged: its call is
left invalid, so the answer is asked again."""


@dataclass(frozen=True, slots=True)
class Runner:
    """An entry point: how to run it on a case, and whether it is ours."""

    name: str
    run: Callable[[Case], Answer]
    ours: bool = True
    applies: Callable[[Case], bool] = lambda _case: True

    def judge(self, case: Case) -> tuple[Verdict, Answer]:
        """Run the case and judge the answer."""
        try:
            answer = self.run(case)
        except OutputParserException as error:
            answer = Answer((), error=error)
        except Exception as error:  # noqa: BLE001 - any other exception is wrong
            if self.ours:
                return "wrong", Answer((), error=error)
            answer = Answer((), error=error)
        return judge(case, answer), answer


def message_of(case: Case) -> AIMessage:
    """The reply of a case, as a provider returns it."""
    valid = [
        {"name": n, "args": a, "id": f"v{i}", "type": "tool_call"}
        for i, (n, a) in enumerate(case.valid)
    ]
    invalid = [
        {
            "name": n,
            "args": a,
            "id": f"c{i}",
            "error": None,
            "type": "invalid_tool_call",
        }
        for i, (n, a) in enumerate(case.invalid)
    ]
    return AIMessage(case.text, tool_calls=valid, invalid_tool_calls=invalid)


def _answer(message: AIMessage) -> Answer:
    calls = tuple((c["name"], dict(c["args"])) for c in message.tool_calls)
    return Answer(calls, str(message.content))


def _recover(*, tools: bool, repair: Repair) -> Callable[[Case], Answer]:
    def run(case: Case) -> Answer:
        bound = list(TOOLS) if tools else None
        reply = message_of(case)
        return _answer(recover_tool_calls(reply, bound, **_option(repair)))

    return run


def _option(repair: Repair) -> dict[str, Repair]:
    """The keyword for ``repair``: none for the default, so it runs as given."""
    return {} if repair == "safe" else {"repair": repair}


def _structured(repair: Repair) -> Callable[[Case], Answer]:
    def run(case: Case) -> Answer:
        schema = BY_NAME[case.tool]
        model = ToolCallingChatModel(script=[message_of(case)])
        options: dict[str, Any] = {}
        if repair != "safe":  # the default runs with no parser given
            options["parser"] = JsonFenceOutputParser(repair=repair)
        value = structured_output(model, schema, max_retries=0, **options)
        return Answer(((case.tool, _given(schema, value.invoke("Go."))),))

    return run


def _given(schema: Any, value: Any) -> dict[str, Any]:
    """The arguments a value holds, as the reply set them (defaults left out)."""
    if not isinstance(value, schema):
        return {"not a model": repr(value)}
    dumped: dict[str, Any] = value.model_dump(exclude_unset=True)
    return dumped


def _middleware(repair: Repair) -> Callable[[Case], Answer]:
    def run(case: Case) -> Answer:
        return _middleware_answer(case, repair)

    return run


def _middleware_answer(case: Case, repair: Repair) -> Answer:
    from langchain.agents.middleware import ModelRequest, ModelResponse  # noqa: PLC0415

    from langchain_jsonrecover.agents import JsonRecoveryMiddleware  # noqa: PLC0415

    reply = message_of(case)
    tools = [
        StructuredTool.from_function(
            func=lambda **kwargs: json.dumps(kwargs),
            name=tool.__name__,
            description=str(tool.__doc__),
            args_schema=tool,
        )
        for tool in TOOLS
    ]
    request: ModelRequest[Any] = ModelRequest(
        model=ToolCallingChatModel(script=[reply]),
        messages=[HumanMessage("Go.")],
        tools=list(tools),
    )
    middleware = (
        JsonRecoveryMiddleware(max_retries=0)
        if repair == "safe"  # the default runs as given
        else JsonRecoveryMiddleware(max_retries=0, repair=repair)
    )
    response = middleware.wrap_model_call(request, lambda _r: ModelResponse([reply]))
    message = response.result[0]
    assert isinstance(message, AIMessage)
    return _answer(message)


def _json_repair(case: Case) -> Answer:
    import json_repair  # noqa: PLC0415

    calls: list[tuple[str, dict[str, Any]]] = []
    for name, arguments in case.invalid:
        value = json_repair.loads(arguments)
        if isinstance(value, dict):
            calls.append((name, value))
    if case.text:
        value = json_repair.loads(case.text)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and item.get("name") in BY_NAME:
                found = item.get("arguments", item.get("parameters"))
                if isinstance(found, dict):
                    calls.append((item["name"], found))
    return Answer(tuple(calls), "")


def _structured_applies(case: Case) -> bool:
    return case.kind in STRUCTURED_KINDS and len(case.expected) <= 1


def _knows_the_tools(case: Case) -> bool:
    """Not a call to an unbound tool: without ``tools`` any name is a tool."""
    return case.kind != "unbound"


def _reads_the_call(case: Case) -> bool:
    """Not a provider's decoded call: the tools' readers pass those on as sent.

    ``recover_tool_calls`` and the middleware read invalid calls and the
    text; a call the provider decoded, to any tool, is the agent's to refuse
    (LangChain's tool node answers an unknown name with an error).
    ``structured_output`` reads it as the answer, so it is judged there.
    """
    return not case.valid


def our_runners() -> list[Runner]:
    """Our entry points at each ``repair`` level, in the order of the tables."""
    levels: tuple[tuple[Repair, str], ...] = (
        ("safe", ""),
        (True, "repair=True"),
        (False, "repair=False"),
    )
    runners = []
    for repair, option in levels:
        runners += [
            Runner(
                f"recover_tool_calls(tools{', ' if option else ''}{option})",
                _recover(tools=True, repair=repair),
                applies=_reads_the_call,
            ),
            Runner(
                f"recover_tool_calls({option})",
                _recover(tools=False, repair=repair),
                applies=_knows_the_tools,
            ),
            Runner(
                f"structured_output({option})",
                _structured(repair),
                applies=_structured_applies,
            ),
            Runner(
                f"JsonRecoveryMiddleware({option})",
                _middleware(repair),
                applies=_reads_the_call,
            ),
        ]
    return runners


def peer_runners() -> list[Runner]:
    """json_repair as a naive recoverer, when installed."""
    try:
        import json_repair  # noqa: F401, PLC0415
    except ImportError:
        return []
    return [Runner("json_repair (naive)", _json_repair, ours=False)]


def describe(case: Case, answer: Answer) -> str:
    """A wrong answer, shown so that a fixer can reproduce it."""
    return (
        f"[{case.label}] text={case.text!r} invalid={case.invalid!r}\n"
        f"    expected: {[canonical(c) for c in case.expected]}\n"
        f"    got:      {[canonical(c) for c in answer.calls]} content={answer.content!r}"
    )
