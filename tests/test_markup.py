"""Tool-call markup and special tokens: reading calls, blanking markup."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_complexity import N, assert_linear, counting

from langchain_jsonrecover._core.reply.markup import (
    MarkupCall,
    find_tool_calls,
    prepare_reply,
)

if TYPE_CHECKING:
    from collections.abc import Callable


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
        "read<arg_key>filePath</arg_key><arg_value>/srv/README.md</arg_value>",
        [("read", '{"filePath": "/srv/README.md"}', True)],
        id="glm_without_its_opening_tag",
    ),
    pytest.param(
        "<tool_call>search<arg_key>query</arg_key>days of leave</arg_value>"
        "</tool_call>",
        [("search", '{"query": "days of leave"}', True)],
        id="glm_value_without_its_opening_tag",
    ),
    pytest.param(
        "I will read it.\nread<arg_key>path</arg_key><arg_value>/a</arg_value>",
        [("read", '{"path": "/a"}', True)],
        id="glm_without_opening_tag_after_prose",
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
        '<function_call> {"name": "f", "arguments": {"a": 1}}',
        [("f", '{"a": 1}', True)],
        id="granite_20b_function_call",
    ),
    pytest.param(
        '<functioncall> {"name": "f", "arguments": {"a": 1}}</functioncall>',
        [("f", '{"a": 1}', True)],
        id="glaive_functioncall",
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


# --- prepare_reply: (reply, visible text with spaces collapsed, repairs) ----------

TOOL = ("tool_markup_stripped",)
SPECIAL = ("special_tokens_stripped",)
BOTH = ("tool_markup_stripped", "special_tokens_stripped")
THINK = ("reasoning_skipped",)

PREPARED = [
    pytest.param('{"a": 1}', '{"a": 1}', (), id="clean_json"),
    pytest.param(
        '[1, 2, "<b>"]', '[1, 2, "<b>"]', (), id="array_with_a_tag_in_a_string"
    ),
    pytest.param(
        '[TOOL_CALLS]search[ARGS]{"q": "x"}', '{"q": "x"}', TOOL, id="mistral_name_args"
    ),
    pytest.param(
        '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}]</s>',
        '[{"name": "f", "arguments": {"a": 1}}]',
        BOTH,
        id="mistral_envelope_array_stays_for_the_envelope_reader",
    ),
    pytest.param(
        '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>',
        '{"name": "f", "arguments": {"a": 1}}',
        TOOL,
        id="hermes_envelope",
    ),
    pytest.param(
        '<|python_tag|>{"name": "f", "parameters": {"a": 1}}<|eom_id|>',
        '{"name": "f", "parameters": {"a": 1}}',
        BOTH,
        id="llama_python_tag",
    ),
    pytest.param(
        "<tool_call>edit\n<arg_key>opts</arg_key>\n<arg_value>"
        '{"force": true}</arg_value>\n</tool_call>',
        "",
        TOOL,
        id="glm_blanked_whole_so_no_argument_value_is_an_answer",
    ),
    pytest.param(
        "<function=run>\n<parameter=cfg>\n[1, 2]\n</parameter>\n</function>",
        "",
        TOOL,
        id="qwen_xml_blanked_whole",
    ),
    pytest.param(
        f'{ds("tool call begin")}f{ds("tool sep")}{{"a": 1}}{ds("tool call end")}',
        '{"a": 1}',
        TOOL,
        id="deepseek_v31",
    ),
    pytest.param(
        '<|im_start|>assistant\n{"a": 1}<|im_end|>', '{"a": 1}', SPECIAL, id="chatml"
    ),
    pytest.param('{"a": 1}<|eot_id|>', '{"a": 1}', SPECIAL, id="llama_eot_after_json"),
    pytest.param('{"a": 1}</s>', '{"a": 1}', SPECIAL, id="eos_after_json"),
    pytest.param('{"a": 1}<end_of_turn>', '{"a": 1}', SPECIAL, id="gemma_end_of_turn"),
    pytest.param(
        '{"tip": "end with <|im_end|> or </s>"}<|im_end|>',
        '{"tip": "end with <|im_end|> or </s>"}',
        SPECIAL,
        id="tokens_inside_a_json_string_stay",
    ),
    pytest.param(
        '{"path</arg_key>": "/tmp"}',
        '{"path</arg_key>": "/tmp"}',
        (),
        id="tag_residue_inside_a_key_stays",
    ),
    pytest.param(
        '<think>draft {"a": 0}</think>[TOOL_CALLS]f[ARGS]{"a": 1}',
        '{"a": 1}',
        ("reasoning_skipped", "tool_markup_stripped"),
        id="reasoning_then_markup",
    ),
    pytest.param(
        "<|channel|>analysis<|message|>hm<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.f <|constrain|>json<|message|>{"q": 1}<|call|>',
        '{"q": 1}',
        ("reasoning_skipped", "tool_markup_stripped", "special_tokens_stripped"),
        id="harmony_tool_call_arguments_are_the_candidate",
    ),
    pytest.param(
        '<|channel|>analysis<|message|>Maybe {"a": 0}<|end|>'
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}<|return|>',
        '{"a": 1}',
        THINK,
        id="harmony_final",
    ),
    pytest.param(
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}<|return|>',
        '{"a": 1}',
        SPECIAL,
        id="harmony_final_alone_is_no_reasoning",
    ),
    pytest.param(
        'Use "<|im_end|>" to stop. {"a": 1}',
        'Use "<|im_end|>" to stop. {"a": 1}',
        (),
        id="token_quoted_in_prose_stays",
    ),
]


@pytest.mark.parametrize(("reply", "visible", "repairs"), PREPARED)
def test_prepare_blanks_markup_and_keeps_the_json(
    reply: str, visible: str, repairs: tuple[str, ...]
) -> None:
    prepared = prepare_reply(reply)
    assert " ".join(prepared.text.split()) == visible
    assert prepared.repairs == repairs


@pytest.mark.parametrize(("reply", "_visible", "_repairs"), PREPARED)
def test_prepare_only_blanks_and_keeps_offsets(
    reply: str, _visible: str, _repairs: tuple[str, ...]
) -> None:
    text = prepare_reply(reply).text
    assert len(text) == len(reply)
    assert all(p in (r, " ") for p, r in zip(text, reply, strict=True))


ONLY_REASONING = [
    pytest.param('<think>{"a": 1}', True, id="unclosed_think"),
    pytest.param(
        "<|channel|>analysis<|message|>hm<|end|>", True, id="harmony_analysis"
    ),
    pytest.param('<think>x</think>{"a": 1}', False, id="answer_after_reasoning"),
    pytest.param("<|im_end|>", False, id="only_a_token_is_no_reasoning"),
    pytest.param(
        "<think>x</think><tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value>"
        "</tool_call>",
        False,
        id="a_call_is_not_only_reasoning",
    ),
]


@pytest.mark.parametrize(("reply", "expected"), ONLY_REASONING)
def test_only_reasoning_is_flagged(reply: str, expected: bool) -> None:
    assert prepare_reply(reply).only_reasoning is expected


def test_prepare_carries_the_calls() -> None:
    reply = "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"
    assert prepare_reply(reply).tool_calls == tuple(find_tool_calls(reply))
    assert prepare_reply(reply).tool_calls[0].arguments == '{"a": 1}'


@pytest.mark.parametrize(
    "reply", ['{"a": 1}', "plain prose", '[1, 2, {"b": "c"}]', "x" * 1000]
)
def test_a_reply_without_markup_is_returned_as_is(reply: str) -> None:
    prepared = prepare_reply(reply)
    assert prepared.text is reply
    assert prepared.repairs == ()


# --- linear work ------------------------------------------------------------------

HOSTILE = [
    pytest.param(lambda n: "[TOOL_CALLS]{" * (n // 13), id="cut_mistral_bodies"),
    pytest.param(lambda n: "[TOOL_CALLS]f[ARGS]{" * (n // 19), id="cut_named_bodies"),
    pytest.param(lambda n: "<tool_call>{" * (n // 12), id="cut_hermes_bodies"),
    pytest.param(
        lambda n: '<tool_call>{"name": "f", "arguments": {' * (n // 40),
        id="cut_envelopes",
    ),
    pytest.param(lambda n: "[] " * (n // 3) + "<|im_end|>", id="many_values_in_prose"),
    pytest.param(lambda n: "[1, " * (n // 4) + "<|im_end|>", id="deep_open_prose"),
    pytest.param(lambda n: "<function=f><parameter=a>" * (n // 25), id="qwen_unclosed"),
    pytest.param(
        lambda n: (
            "<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value>" * (n // 55)
        ),
        id="glm_without_closers",
    ),
    pytest.param(lambda n: "<think>" + '"</think>' * (n // 9), id="quoted_closers"),
    pytest.param(
        lambda n: "<|channel|>analysis<|message|>" * (n // 30), id="harmony_headers"
    ),
    pytest.param(lambda n: "<|start|>" + "a" * n, id="harmony_header_never_ends"),
    pytest.param(lambda n: '{"' + '\\"' * (n // 2) + "<|im_end|>", id="escaped_quotes"),
    pytest.param(lambda n: "<|python_tag|>{}; " * (n // 18), id="python_tag_calls"),
    pytest.param(lambda n: "<b>" * (n // 3), id="html_tags"),
    pytest.param(lambda n: "x <arg_key>" * (n // 11), id="arg_keys_never_closed"),
    pytest.param(
        lambda n: "f<arg_key>k</arg_key>v\n" * (n // 23), id="glm_values_never_closed"
    ),
    pytest.param(
        lambda n: '<invoke name="f"><parameter name="a">' * (n // 38),
        id="invoke_unclosed",
    ),
    pytest.param(
        lambda n: "<tool_call>\n<function=f>\n<parameter=a>x\n" * (n // 38),
        id="qwen_without_closers",
    ),
]


@pytest.mark.parametrize("build", HOSTILE)
def test_markup_scans_are_linear(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    works = []
    for size in (N, 2 * N):
        with counting(monkeypatch) as work:
            prepare_reply(build(size))
            find_tool_calls(build(size))
        works.append(replace(work))
    assert_linear(*works)


def test_the_clean_fast_path_runs_one_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with counting(monkeypatch) as work:
        prepare_reply('{"a": 1, "b": "plain"}' * 100)
    assert work.regex_calls == 1  # the square tokens, in one search
    assert work.calls == 1


# Texts with no ``<``: the fast path answers them. Those with a word that
# only looks like a square token are answered as the full read answers them.
NEAR_SQUARE_TOKENS = [
    pytest.param('XTHINK] {"a": 1}', id="think_without_bracket"),
    pytest.param('[THINK ] {"a": 1}', id="think_with_space"),
    pytest.param('[think] {"a": 1}', id="think_lower_case"),
    pytest.param('[TOOL_CALL] {"a": 1}', id="tool_call_singular"),
    pytest.param('TOOL_CALLS] {"a": 1}', id="tool_calls_without_bracket"),
    pytest.param('{"a": "[THINK"} ]', id="split_by_a_string"),
]


@pytest.mark.parametrize("reply", NEAR_SQUARE_TOKENS)
def test_words_like_square_tokens_leave_the_reply_as_is(reply: str) -> None:
    prepared = prepare_reply(reply)
    assert prepared.text is reply
    assert (prepared.repairs, prepared.tool_calls) == ((), ())
    assert find_tool_calls(reply) == []


SQUARE_TOKENS = [
    pytest.param('[THINK]hm[/THINK]{"a": 1}', '{"a": 1}', id="magistral_block"),
    pytest.param('hm[/THINK]{"a": 1}', '{"a": 1}', id="magistral_closer_only"),
    pytest.param('[TOOL_CALLS]{"a": 1}', '{"a": 1}', id="mistral_call"),
]


@pytest.mark.parametrize(("reply", "visible"), SQUARE_TOKENS)
def test_square_tokens_without_angle_brackets_are_blanked(
    reply: str, visible: str
) -> None:
    prepared = prepare_reply(reply)
    assert prepared.text.strip() == visible
    assert prepared.repairs


XML_CALLS = [
    pytest.param(
        "<tool_call>\n<function=run_task>\n<parameter=description> Run a scan\n"
        "<parameter=task> nuclei\n</tool_call>",
        [("run_task", '{"description": "Run a scan", "task": "nuclei"}', True)],
        id="qwen_xml_without_parameter_or_function_closers",
    ),
    pytest.param(
        "<function=write>\n<parameter=code>\n    x = 1\n</parameter>\n</function>",
        [("write", '{"code": "    x = 1"}', True)],
        id="qwen_xml_keeps_indentation",
    ),
    pytest.param(
        '<minimax:tool_call>\n<invoke name="search">\n<parameter name="q">cats'
        '</parameter>\n<parameter name="n">3</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
        [("search", '{"q": "cats", "n": 3}', True)],
        id="minimax_invoke",
    ),
    pytest.param(
        '<function_calls>\n<invoke name="get">\n<parameter name="id">7'
        "</parameter>\n</invoke>\n</function_calls>",
        [("get", '{"id": 7}', True)],
        id="claude_xml_invoke",
    ),
    pytest.param(
        '<invoke name="get">\n<parameter name="city">Par',
        [("get", '{"city": "Par', False)],
        id="invoke_cut",
    ),
]


@pytest.mark.parametrize(("reply", "expected"), XML_CALLS)
def test_xml_calls_are_read(reply: str, expected: list[tuple[str, str, bool]]) -> None:
    calls = find_tool_calls(reply)
    assert [(c.name, c.arguments, c.closed) for c in calls] == expected
    assert prepare_reply(reply).text.strip() == ""


def test_harmony_after_long_reasoning() -> None:
    reply = "<think>" + "x" * 100 + '</think><|channel|>final<|message|>{"a": 1}'
    assert prepare_reply(reply).text.strip() == '{"a": 1}'


def test_harmony_final_wins_but_the_call_is_still_reported() -> None:
    reply = (
        "<|start|>assistant<|channel|>commentary to=functions.f json"
        '<|message|>{"q": 1}<|call|>'
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}<|return|>'
    )
    prepared = prepare_reply(reply)
    assert prepared.text.strip() == '{"a": 1}'
    assert [(c.name, c.arguments) for c in prepared.tool_calls] == [("f", '{"q": 1}')]


# --- properties -------------------------------------------------------------------

TOKENS = [
    "<tool_call>",
    "</tool_call>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|im_end|>",
    "<|python_tag|>",
    "<|channel|>final<|message|>",
    "<arg_key>",
    "<function=f>",
    "</s>",
    ds("tool call begin"),
    '"',
    "\\",
    "{",
    "]",
]
markup_text = st.lists(
    st.one_of(st.sampled_from(TOKENS), st.text(max_size=5)), max_size=8
).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | markup_text,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(markup_text, inner, max_size=4)
    ),
    max_leaves=12,
)
PROPERTY = settings(max_examples=80, deadline=None, derandomize=True)


@PROPERTY
@given(value=st.dictionaries(markup_text, json_values, min_size=1, max_size=4))
def test_markup_inside_json_strings_is_never_touched(value: dict[str, object]) -> None:
    reply = orjson.dumps(value).decode() + "<|im_end|>"
    prepared = prepare_reply(reply)
    assert orjson.loads(prepared.text) == value
    assert find_tool_calls(reply) == []


@PROPERTY
@given(arguments=st.dictionaries(markup_text, json_values, max_size=4))
def test_arguments_come_back_from_each_json_form(arguments: dict[str, object]) -> None:
    text = orjson.dumps(arguments).decode()
    envelope = orjson.dumps({"name": "f", "arguments": arguments}).decode()
    replies = [
        f"[TOOL_CALLS]f[ARGS]{text}",
        f"<tool_call>\n{envelope}\n</tool_call>",
        f"<|python_tag|>{envelope}<|eom_id|>",
        f"{ds('tool call begin')}f{ds('tool sep')}{text}{ds('tool call end')}",
        f"<|channel|>commentary to=functions.f <|message|>{text}<|call|>",
    ]
    for reply in replies:
        (call,) = find_tool_calls(reply)
        assert (call.name, orjson.loads(call.arguments), call.closed) == (
            "f",
            arguments,
            True,
        )
