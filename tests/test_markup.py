"""Tool-call markup and special tokens: reading calls, blanking markup."""

from __future__ import annotations

import pytest

from langchain_jsonrecover._markup import MarkupCall, find_tool_calls


def ds(name: str) -> str:
    """A DeepSeek token: full-width bars, and U+2581 for spaces."""
    return "<\uff5c" + name.replace(" ", "\u2581") + "\uff5c>"


# --- find_tool_calls: (reply, [(name, arguments, closed), ...]) ------------------

CALLS = [
    pytest.param(
        '[TOOL_CALLS]search[ARGS]{"q": "x"}',
        [("search", '{"q": "x"}', True)],
        id="mistral_v13_name_args",
    ),
    pytest.param(
        '[TOOL_CALLS]a{"x": 1}[TOOL_CALLS]b[CALL_ID]abc123def[ARGS]{"y": 2}',
        [("a", '{"x": 1}', True), ("b", '{"y": 2}', True)],
        id="mistral_v11_two_calls_with_call_id",
    ),
    pytest.param(
        '[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, '
        '{"name": "b", "arguments": {"y": [2]}}]</s>',
        [("a", '{"x": 1}', True), ("b", '{"y": [2]}', True)],
        id="mistral_v3_json_array_of_calls",
    ),
    pytest.param(
        '[TOOL_CALLS]search[ARGS]{"q": "wea',
        [("search", '{"q": "wea', False)],
        id="mistral_cut_in_a_string",
    ),
    pytest.param(
        '<tool_call>\n{"name": "get", "arguments": {"city": "Paris"}}\n</tool_call>',
        [("get", '{"city": "Paris"}', True)],
        id="hermes_closed",
    ),
    pytest.param(
        '<tool_call>\n{"name": "get", "arguments": {"city": "Paris"}}',
        [("get", '{"city": "Paris"}', True)],
        id="hermes_without_closing_tag",
    ),
    pytest.param(
        '<tool_call>{"name": "get", "arguments": {"city": "Par',
        [("get", '{"city": "Par', False)],
        id="hermes_cut",
    ),
    pytest.param(
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n'
        '<tool_call>{"name": "b", "arguments": {"n": 1}}</tool_call>',
        [("a", "{}", True), ("b", '{"n": 1}', True)],
        id="hermes_two_calls",
    ),
    pytest.param(
        '<tool_call>{"arguments": {"a": 1}, "name": "z"}</tool_call>',
        [("z", '{"a":1}', True)],
        id="hermes_name_after_arguments_reserialised",
    ),
    pytest.param(
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>',
        [("f", '{"a": 1}', True)],
        id="hermes_arguments_as_a_json_string",
    ),
    pytest.param(
        '<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>',
        [("f", '{"a": 1,}', True)],
        id="hermes_broken_arguments_as_written",
    ),
    pytest.param(
        '<tool_call>{"city": "Paris"}</tool_call>',
        [("", '{"city": "Paris"}', True)],
        id="hermes_bare_arguments_have_no_name",
    ),
    pytest.param(
        '<|python_tag|>{"name": "f", "parameters": {"a": 1}}; '
        '{"name": "g", "parameters": {}}<|eom_id|>',
        [("f", '{"a": 1}', True), ("g", "{}", True)],
        id="llama3_python_tag_two_calls",
    ),
    pytest.param(
        '<|python_tag|>{"type": "function", "name": "f", "parameters": {"a": 1}}',
        [("f", '{"a": 1}', True)],
        id="llama3_type_function_envelope",
    ),
    pytest.param(
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>"
        "\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
        [("get_weather", '{"city": "Paris", "days": 3}', True)],
        id="glm_json_values_stay_json",
    ),
    pytest.param(
        "<tool_call>edit<arg_key>path</arg_key><arg_value>/tmp/a</arg_value>"
        '<arg_key>opts</arg_key><arg_value>{"force": true}</arg_value></tool_call>',
        [("edit", '{"path": "/tmp/a", "opts": {"force": true}}', True)],
        id="glm47_without_newlines",
    ),
    pytest.param(
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par",
        [("get_weather", '{"city": "Par', False)],
        id="glm_cut_value_left_open",
    ),
    pytest.param(
        "<tool_call>list_files</tool_call>",
        [("list_files", "{}", True)],
        id="glm_no_arguments",
    ),
    pytest.param(
        "<tool_call>\n<function=run>\n<parameter=cmd>\nls -la\n</parameter>\n"
        "<parameter=n>\n5\n</parameter>\n</function>\n</tool_call>",
        [("run", '{"cmd": "ls -la", "n": 5}', True)],
        id="qwen3_coder_xml",
    ),
    pytest.param(
        "<function=run>\n<parameter=cmd>\necho 1\n<parameter=n>\n2\n</function>",
        [("run", '{"cmd": "echo 1", "n": 2}', True)],
        id="qwen3_coder_xml_without_parameter_closers",
    ),
    pytest.param(
        '<function=f>{"a": 1}</function>',
        [("f", '{"a": 1}', True)],
        id="llama_custom_function_tag",
    ),
    pytest.param(
        f"{ds('tool calls begin')}{ds('tool call begin')}function{ds('tool sep')}"
        f'get\n```json\n{{"a": 1}}\n```{ds("tool call end")}{ds("tool calls end")}',
        [("get", '{"a": 1}', True)],
        id="deepseek_v3_fenced",
    ),
    pytest.param(
        f"{ds('tool calls begin')}{ds('tool call begin')}get{ds('tool sep')}"
        f'{{"a": 1}}{ds("tool call end")}{ds("tool calls end")}',
        [("get", '{"a": 1}', True)],
        id="deepseek_v31",
    ),
    pytest.param(
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        [("get", '{"a": 1}', True)],
        id="kimi_k2",
    ),
    pytest.param(
        "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_weather <|constrain|>json"
        '<|message|>{"city": "Paris"}<|call|>',
        [("get_weather", '{"city": "Paris"}', True)],
        id="harmony_commentary_call",
    ),
    pytest.param(
        "<|start|>assistant to=functions.x<|channel|>commentary json"
        '<|message|>{"a": 1}<|call|>',
        [("x", '{"a": 1}', True)],
        id="harmony_recipient_in_the_role",
    ),
    pytest.param(
        '<|channel|>commentary to=functions.x <|message|>{"a": [1',
        [("x", '{"a": [1', False)],
        id="harmony_cut",
    ),
    pytest.param(
        '<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]',
        [("f", '{"a": 1}', True)],
        id="granite",
    ),
    pytest.param(
        '<|START_ACTION|>[{"tool_name": "f", "parameters": {"a": 1}}]<|END_ACTION|>',
        [("f", '{"a": 1}', True)],
        id="cohere",
    ),
    pytest.param(
        'Sure.\n<tool_call>{"name": "f", "arguments": {"s": "a</tool_call>b"}}'
        "</tool_call>",
        [("f", '{"s": "a</tool_call>b"}', True)],
        id="closing_tag_inside_a_string_is_data",
    ),
]

NO_CALLS = [
    pytest.param('{"a": 1}', id="plain_json"),
    pytest.param(
        '{"tip": "use <tool_call>{} and [TOOL_CALLS]"}', id="tags_in_a_string"
    ),
    pytest.param(
        '<think>I could <tool_call>{"name": "x", "arguments": {}}</tool_call>'
        '</think>{"a": 1}',
        id="call_inside_reasoning",
    ),
    pytest.param(
        "<tool_call>I will not call anything.</tool_call>", id="prose_in_tags"
    ),
    pytest.param('Write "[TOOL_CALLS]" then the call.', id="quoted_token_in_prose"),
    pytest.param("<|python_tag|>brave_search.call(query='x')", id="python_code_call"),
    pytest.param(
        "<|channel|>analysis<|message|>Maybe {}<|end|>"
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}',
        id="harmony_without_recipient",
    ),
]


@pytest.mark.parametrize(("reply", "expected"), CALLS)
def test_calls_are_read_from_each_markup_form(
    reply: str, expected: list[tuple[str, str, bool]]
) -> None:
    calls = find_tool_calls(reply)
    assert [(c.name, c.arguments, c.closed) for c in calls] == expected


@pytest.mark.parametrize("reply", NO_CALLS)
def test_no_call_is_invented(reply: str) -> None:
    assert find_tool_calls(reply) == []


@pytest.mark.parametrize(("reply", "_expected"), CALLS)
def test_call_spans_lie_inside_the_reply_and_in_order(
    reply: str, _expected: object
) -> None:
    calls = find_tool_calls(reply)
    starts = [c.start for c in calls]
    assert starts == sorted(starts)
    for call in calls:
        assert 0 <= call.start < call.end <= len(reply)


def test_a_call_span_covers_the_whole_markup() -> None:
    reply = 'Calling.\n[TOOL_CALLS]search[ARGS]{"q": "x"}</s>'
    (call,) = find_tool_calls(reply)
    assert reply[call.start : call.end] == '[TOOL_CALLS]search[ARGS]{"q": "x"}'
    assert call == MarkupCall("search", '{"q": "x"}', 9, 43, closed=True)
