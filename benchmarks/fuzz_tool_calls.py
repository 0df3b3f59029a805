"""Tool calls with one fault each: right / error / wrong per entry point, form and fault.

What it measures
    A tool call the text did not make is the worst outcome: an agent runs
    it. ``tests/_fuzz_tools.py`` writes known calls in every markup form the
    package reads, with one fault in one call (a closer too many or lost, an
    opener lost, JSON going on after it, a second body glued, call markup in
    a string, the closing tag lost, a cut anywhere), and judges each answer:
    right (the original's calls), error (no call; for a cut reply, the calls
    before the cut) or wrong (any other call). Each case is read by
    ``recover_tool_calls`` with and without ``tools``, at each ``repair``
    level, and by ``JsonRecoveryMiddleware``'s model hook.

How to run
    python benchmarks/fuzz_tool_calls.py --seed 1 --count 2000
    python benchmarks/fuzz_tool_calls.py --seed 7 --count 5000 --examples 3

Offline and seeded; ``tests/test_fuzz_tool_calls.py`` runs a slice of it.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _fuzz_tools import FORMS, TOOLS, VERDICTS, Call, Case, generate, judge
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import StructuredTool

from langchain_jsonrecover import recover_tool_calls

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from _fuzz_tools import Verdict

    from langchain_jsonrecover._core.levels import Repair


def _calls(message: AIMessage) -> list[Call]:
    return [(c["name"], dict(c["args"])) for c in message.tool_calls]


def _recover(*, tools: bool, repair: Repair) -> Callable[[str], list[Call]]:
    def run(text: str) -> list[Call]:
        bound = TOOLS if tools else None
        return _calls(recover_tool_calls(AIMessage(text), bound, repair=repair))

    return run


def _middleware(text: str) -> list[Call]:
    from _models import ToolCallingChatModel  # noqa: PLC0415
    from langchain.agents.middleware import ModelRequest, ModelResponse  # noqa: PLC0415

    from langchain_jsonrecover.agents import JsonRecoveryMiddleware  # noqa: PLC0415

    reply = AIMessage(text)
    tools = [
        StructuredTool.from_function(
            func=lambda **kwargs: str(kwargs),
            name=str(tool["name"]),
            description=str(tool["description"]),
            args_schema={"type": "object", "properties": {}},
        )
        for tool in TOOLS
    ]
    request: ModelRequest[Any] = ModelRequest(
        model=ToolCallingChatModel(script=[reply]),
        messages=[HumanMessage("Go.")],
        tools=list(tools),
    )
    middleware = JsonRecoveryMiddleware(max_retries=0)
    try:
        response = middleware.wrap_model_call(
            request, lambda _r: ModelResponse([reply])
        )
    except OutputParserException:
        return []  # the calls withheld, and no retry left
    message = response.result[0]
    return _calls(message) if isinstance(message, AIMessage) else []


def entry_points() -> dict[str, Callable[[str], list[Call]]]:
    """Each entry point, by name: ``recover_tool_calls`` at each level, the middleware."""
    points: dict[str, Callable[[str], list[Call]]] = {}
    for repair in ("safe", True, False):
        points[f"recover_tool_calls(tools, repair={repair!r})"] = _recover(
            tools=True, repair=repair
        )
        points[f"recover_tool_calls(repair={repair!r})"] = _recover(
            tools=False, repair=repair
        )
    points["JsonRecoveryMiddleware()"] = _middleware
    return points


def run(
    cases: Sequence[Case], points: dict[str, Callable[[str], list[Call]]]
) -> tuple[
    dict[str, Counter[Verdict]],
    dict[str, Counter[Verdict]],
    list[tuple[str, Case, list[Call]]],
]:
    """Verdicts per entry point and per fault, and every wrong answer."""
    by_point: dict[str, Counter[Verdict]] = defaultdict(Counter)
    by_fault: dict[str, Counter[Verdict]] = defaultdict(Counter)
    wrong: list[tuple[str, Case, list[Call]]] = []
    for case in cases:
        for name, point in points.items():
            calls = point(case.text)
            verdict = judge(case, calls)
            by_point[name][verdict] += 1
            by_fault[case.fault][verdict] += 1
            if verdict == "wrong":
                wrong.append((name, case, calls))
    return by_point, by_fault, wrong


def main(argv: Sequence[str] | None = None) -> int:
    """Run the seeded cases through every entry point; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=2000, help="cases")
    parser.add_argument("--examples", type=int, default=5, help="wrong cases shown")
    args = parser.parse_args(argv)
    cases = generate(args.seed, args.count)
    by_point, by_fault, wrong = run(cases, entry_points())
    print(f"seed {args.seed}: {args.count} cases over {len(FORMS)} forms")
    print(f"\n{'entry point':<44}" + "".join(f"{v:>8}" for v in VERDICTS))
    for name, counts in by_point.items():
        print(f"{name:<44}" + "".join(f"{counts[v]:>8}" for v in VERDICTS))
    print(f"\n{'fault (all entry points)':<44}" + "".join(f"{v:>8}" for v in VERDICTS))
    for fault, counts in sorted(by_fault.items()):
        print(f"{fault:<44}" + "".join(f"{counts[v]:>8}" for v in VERDICTS))
    shown: set[int] = set()
    for name, case, calls in wrong:
        if case.index in shown or len(shown) >= args.examples:
            continue
        shown.add(case.index)
        print(f"\n[{case.label}] {name}\n    text={case.text!r}")
        print(f"    expected: {list(case.expected)}\n    got:      {calls}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
