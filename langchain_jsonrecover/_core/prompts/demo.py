r"""The script of ``jsonrecover demo``: a weak model that fixes what it is told.

Pure functions on ``str``; no LangChain imports (the chat-model adapter,
``DemoChatModel``, is in ``demo.py``). The model is stateless and
deterministic: it reads the conversation it is given. Its first reply is a
friendly sentence after a ``<think>`` block, with a ```` ```json ```` fence
holding a trailing comma and a wrong type for ``wind_kph``. It fixes the
comma only when the feedback says the JSON is not valid because of a comma,
and the type only when the feedback names ``wind_kph`` with pydantic's
"valid integer" message; any other feedback gets its first reply again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from pydantic import BaseModel, Field

from langchain_jsonrecover._core.prompts.tools import TOOL_RESULT_PREFIX

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "AGENT_QUESTION",
    "QUESTION",
    "WeatherReport",
    "agent_reply",
    "demo_reply",
    "estimate_tokens",
    "weather_text",
]

MODEL_NAME: Final = "jsonrecover-demo-weak-model"

REPORT: Final = (
    "Lisbon, Tuesday morning: 18.5 °C under a clear sky, "
    "with a light northerly breeze of 12 km/h."
)

QUESTION: Final = f"Extract the weather report from this text:\n\n{REPORT}"
"""What the demo asks."""

FIRST_REPLY: Final = """<think>
The user wants the weather as JSON: Lisbon, 18.5 degrees, clear, wind 12 km/h.
</think>
Sure! Here is the weather report you asked for:

```json
{
  "city": "Lisbon",
  "temperature_c": 18.5,
  "sky": "clear",
  "wind_kph": "12 km/h",
}
```

Let me know if you need anything else!"""

SECOND_REPLY: Final = (
    "Apologies! Here is the corrected JSON:\n"
    '{"city": "Lisbon", "temperature_c": 18.5, "sky": "clear", "wind_kph": "12 km/h"}'
)

FINAL_REPLY: Final = (
    '{"city": "Lisbon", "temperature_c": 18.5, "sky": "clear", "wind_kph": 12}'
)


class WeatherReport(BaseModel):
    """The demo's schema: a weather report read from a text.

    Example:
        >>> WeatherReport(city="Lisbon", temperature_c=18.5, sky="clear", wind_kph=12)
        WeatherReport(city='Lisbon', temperature_c=18.5, sky='clear', wind_kph=12)
    """

    city: str = Field(description="The city the report is for")
    temperature_c: float = Field(description="Air temperature in degrees Celsius")
    sky: Literal["clear", "cloudy", "rain", "snow"] = Field(
        description="The state of the sky"
    )
    wind_kph: int = Field(description="Wind speed in km/h, as a whole number")


def demo_reply(turns: Sequence[tuple[str, str]]) -> str:
    """The weak model's reply to a conversation.

    Args:
        turns: ``(role, text)`` pairs, roles ``system``, ``human`` and ``ai``.

    Returns:
        The broken first reply; the reply with the comma fixed when the
        feedback names the trailing comma; the valid reply when it names
        ``wind_kph`` and pydantic's "valid integer" message.

    Example:
        >>> demo_reply([("human", QUESTION)]) == FIRST_REPLY
        True
        >>> feedback = "wind_kph: Input should be a valid integer"
        >>> demo_reply([("human", QUESTION), ("ai", "…"), ("human", feedback)])
        '{"city": "Lisbon", "temperature_c": 18.5, "sky": "clear", "wind_kph": 12}'
    """
    feedback = _gather_feedback(turns)
    if "wind_kph" in feedback and "valid integer" in feedback:
        return FINAL_REPLY
    if "not valid JSON" in feedback and "comma" in feedback:
        return SECOND_REPLY
    return FIRST_REPLY


def _gather_feedback(turns: Sequence[tuple[str, str]]) -> str:
    """The system text and every user turn but the first (the question)."""
    parts: list[str] = []
    seen_question = False
    for role, text in turns:
        if role == "system":
            parts.append(text)
        elif role == "human":
            if seen_question:
                parts.append(text)
            seen_question = True
    return "\n".join(parts)


AGENT_QUESTION: Final = (
    "What is the weather in Lisbon this morning? Look it up, then give me the "
    "weather report."
)
"""What ``jsonrecover demo --agent`` asks."""

AGENT_CALL: Final = '{"name": "get_weather", "arguments": {"city": "Lisbon",}}'
"""The weak model's tool call, written in its text with a trailing comma."""

AGENT_ANSWER: Final = """Here is the weather report:

```json
{"city": "Lisbon", "temperature_c": 18.5, "sky": "clear", "wind_kph": "12 km/h"}
```"""
"""Its first answer after the tool result: ``wind_kph`` is not an integer."""


def weather_text(city: str) -> str:
    """What the demo's ``get_weather`` tool returns.

    Example:
        >>> weather_text("Lisbon") == REPORT
        True
    """
    if city.strip().lower() == "lisbon":
        return REPORT
    return f"No report for {city}."


def agent_reply(turns: Sequence[tuple[str, str]]) -> str:
    """The weak model's reply in the agent demo (it has no tool calling).

    Args:
        turns: ``(role, text)`` pairs, roles ``system``, ``human``, ``ai``
            and ``tool`` (a tool result may also come as a user turn).

    Returns:
        A tool call written as text (with a trailing comma) until a tool
        result is in the conversation; then the answer with ``wind_kph`` as a
        string; the valid answer once the feedback names ``wind_kph`` and
        pydantic's "valid integer" message.

    Example:
        >>> agent_reply([("human", AGENT_QUESTION)]) == AGENT_CALL
        True
        >>> agent_reply([("human", AGENT_QUESTION), ("tool", REPORT)]) == AGENT_ANSWER
        True
    """
    results = [
        index
        for index, (role, text) in enumerate(turns)
        if role == "tool" or text.startswith(TOOL_RESULT_PREFIX)
    ]
    if not results:
        return AGENT_CALL
    after = turns[results[-1] + 1 :]
    feedback = "\n".join(text for role, text in after if role == "human")
    if "wind_kph" in feedback and "valid integer" in feedback:
        return FINAL_REPLY
    return AGENT_ANSWER


def estimate_tokens(text: str) -> int:
    """A rough token count for the scripted model's usage: 4 characters each.

    Example:
        >>> estimate_tokens("abcdefgh")
        2
    """
    return max(1, len(text) // 4)
