"""One parse prepares the reply once, finds its fences once, decodes each text once.

The work is counted, not timed: every module of the package that imported
``prepare_reply``, ``find_fences`` or ``decode`` gets a counting wrapper (found
by looking, so a module split later is counted too), and each row says how
many calls one parse makes. A decode per candidate tried, and never the same
text twice.
"""

from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel

import langchain_jsonrecover._core.decode.tolerant as decode_module
import langchain_jsonrecover._core.extract as extract_module
import langchain_jsonrecover._core.reply.fences as fences_module
import langchain_jsonrecover._core.reply.markup as markup_module
import langchain_jsonrecover.parsers.events as events_module
from langchain_jsonrecover import (
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover._core.candidates.kinds import Scan
from langchain_jsonrecover._core.extract import Extraction, ReplyFailure, extract
from langchain_jsonrecover._core.extract_pattern import extract_with_pattern

if TYPE_CHECKING:
    from collections.abc import Callable

_COUNTED = (
    ("prepare_reply", markup_module),
    ("find_fences", fences_module),
    ("decode", decode_module),
)


@dataclass
class Calls:
    """The calls one parse made, by function, with the text each was given."""

    texts: dict[str, list[str]] = field(
        default_factory=lambda: {name: [] for name, _ in _COUNTED}
    )

    def count(self, name: str) -> int:
        return len(self.texts[name])


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    found = Calls()

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(text: str, *args: Any, **kwargs: Any) -> Any:
            found.texts[name].append(text)
            return real(text, *args, **kwargs)

        return wrapper

    patched = 0
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("langchain_jsonrecover.") or module is None:
            continue
        for name, home in _COUNTED:
            function: Callable[..., Any] = getattr(home, name)
            if module is not home and getattr(module, name, None) is function:
                monkeypatch.setattr(module, name, counting(name, function))
                patched += 1
    assert patched >= len(_COUNTED)  # each function has a caller to count
    return found


TWO_BLOCKS = 'Sure!\n```json\n{"a": 1}\n```\nand\n```json\n{"b": 2}\n```'


@pytest.mark.parametrize(
    ("reply", "options", "expected"),
    [
        pytest.param('{"a": 1}', {}, (0, 0, 0), id="clean_json_is_not_prepared"),
        pytest.param('Sure: {"a": 1} ok', {}, (1, 0, 1), id="json_in_prose"),
        pytest.param('```json\n{"a": 1}\n```', {}, (1, 0, 1), id="one_block_guessed"),
        pytest.param(
            TWO_BLOCKS, {}, (1, 1, 1), id="first_block_read_by_the_guess_is_kept"
        ),
        pytest.param(TWO_BLOCKS, {"prefer": "last"}, (1, 1, 2), id="two_blocks_last"),
        pytest.param(
            '```json\n{"a": 1,}\n```',
            {"repair": True},
            (1, 1, 2),
            id="guessed_block_failing_is_not_decoded_again",
        ),
        pytest.param(
            "{'a': 1,} and then", {"repair": True}, (1, 0, 1), id="repaired_whole"
        ),
        pytest.param(
            "{'a': 1,} and {'b': 2,}",
            {"repair": True},
            (1, 0, 3),
            id="whole_refused_then_each_repaired_once",
        ),
        pytest.param(
            "Here: {'a': 1,} and {'b': 2}",
            {"repair": True, "prefer": "last"},
            (1, 0, 2),
            id="repair_from_the_end",
        ),
        pytest.param(
            '<think>{"x": 1}</think>', {}, (1, 0, 0), id="no_json_report_reuses_it"
        ),
        pytest.param(
            '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>',
            {},
            (1, 0, 1),
            id="tool_call_markup",
        ),
        pytest.param(
            'Sure {"a": [1, 2', {"close_truncated": True}, (1, 0, 1), id="cut_in_prose"
        ),
    ],
)
def test_one_parse_does_each_step_once(
    calls: Calls, reply: str, options: dict[str, Any], expected: tuple[int, int, int]
) -> None:
    """``expected``: calls to ``prepare_reply``, ``find_fences`` and ``decode``.

    Without ``repair`` in ``options``, strict (``repair=False``).
    """
    extract(reply, **{"repair": False, **options})
    counted = (
        calls.count("prepare_reply"),
        calls.count("find_fences"),
        calls.count("decode"),
    )
    assert counted == expected
    decoded = calls.texts["decode"]
    assert len(set(decoded)) == len(decoded)


@pytest.mark.parametrize(
    ("reply", "options", "fence_finds", "decodes"),
    [
        pytest.param("<json>[1]</json>", {}, 0, 1, id="plain_capture"),
        pytest.param(
            '<json>```json\n{"a": 1}\n```</json>', {}, 1, 1, id="fenced_capture"
        ),
        pytest.param(
            "<json>{'a': 1,}</json>", {"repair": True}, 0, 2, id="repaired_capture"
        ),
    ],
)
def test_pattern_parse_does_each_step_once(
    calls: Calls, reply: str, options: dict[str, Any], fence_finds: int, decodes: int
) -> None:
    pattern = re.compile(r"<json>(.*?)</json>", re.DOTALL)
    assert isinstance(extract_with_pattern(reply, pattern, **options), Extraction)
    assert calls.count("prepare_reply") == 1
    assert calls.count("find_fences") == fence_finds
    assert calls.count("decode") == decodes
    decoded = calls.texts["decode"]
    assert len(set(decoded)) == len(decoded)


class Person(BaseModel):
    name: str
    age: int = 0


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('Sure: {"name": "Ada"} ok', (1, 0, 1), id="prose"),
        pytest.param('```json\n{"name": "Ada",}\n```', (1, 1, 2), id="repaired_block"),
        pytest.param("no json", (1, 0, 1), id="no_json_with_a_scalar_tried"),
    ],
)
def test_a_parser_prepares_once_per_parse(
    calls: Calls, reply: str, expected: tuple[int, int, int]
) -> None:
    parser = JsonFenceOutputParser(pydantic_object=Person, repair=True)
    with contextlib.suppress(OutputParserException):
        parser.parse(reply)
    counted = (
        calls.count("prepare_reply"),
        calls.count("find_fences"),
        calls.count("decode"),
    )
    assert counted == expected


@pytest.fixture
def strict_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts of the strict reads (``loads_within``, an orjson call each)."""
    real = decode_module.loads_within
    texts: list[str] = []

    def counting(text: str, max_depth: int) -> tuple[Any, bool]:
        texts.append(text)
        return real(text, max_depth)

    monkeypatch.setattr(decode_module, "loads_within", counting)
    monkeypatch.setattr(extract_module, "loads_within", counting)
    return texts


@pytest.mark.parametrize(
    ("reply", "options", "reads"),
    [
        pytest.param('{"a": 1}', {}, 1, id="clean_json_read_once"),
        pytest.param("  [1, 2]\n", {}, 1, id="clean_json_in_space_read_once"),
        pytest.param('{"a": [1, 2', {}, 1, id="cut_reply_not_read_whole_first"),
        pytest.param('{"a": 1} and more', {}, 2, id="prose_after_not_read_whole"),
        pytest.param('[{"a": 1}}', {}, 1, id="other_closer_not_read_whole"),
        pytest.param(
            '{"a": [1, 2', {"close_truncated": True}, 1, id="cut_read_whole_to_close"
        ),
    ],
)
def test_a_reply_that_cannot_be_clean_json_is_not_read_whole_first(
    strict_reads: list[str], reply: str, options: dict[str, Any], reads: int
) -> None:
    """Strict reads (``loads_within``, an orjson call each) of one extraction.

    A reply that opens with a bracket but does not end with its closer is
    read whole only to close it (``close_truncated``); the two-read row is
    the candidate and the value found in it (the decoder cuts trailing text).
    A candidate the span scan failed to decode as a root is not read again.
    """
    extract(reply, repair=False, **options)
    assert len(strict_reads) == reads


@pytest.mark.parametrize(
    ("parser", "reply", "looks"),
    [
        pytest.param(JsonFenceOutputParser(), '{"a": 1}', 0, id="clean_reply"),
        pytest.param(
            JsonFenceOutputParser(), 'Sure!\n```json\n{"a": 1}\n```', 0, id="fenced"
        ),
        pytest.param(
            TruncationRecoveringOutputParser(), '{"a": [1, 2', 1, id="cut_closed"
        ),
    ],
)
def test_a_parse_that_recovered_nothing_asks_no_listener(
    monkeypatch: pytest.MonkeyPatch,
    parser: JsonFenceOutputParser[Any],
    reply: str,
    looks: int,
) -> None:
    """The recovery event's listeners are looked up only when there is news."""
    real = events_module._find_listening_config
    found: list[object] = []

    def counting() -> object:
        found.append(None)
        return real()

    monkeypatch.setattr(events_module, "_find_listening_config", counting)
    parser.parse(reply)
    assert len(found) == looks


@pytest.mark.parametrize("repair", [False, "safe", True])
@pytest.mark.parametrize(
    "reply",
    [
        pytest.param('<think>Keys {a}, [b].</think>\n{"a": [1, 2]}', id="think"),
        pytest.param('[THINK]{"draft": 0}[/THINK]{"a": 1}', id="bracket_think"),
        pytest.param('<think>hm</think>{"a": 1}<|im_end|>', id="think_and_token"),
    ],
)
def test_clean_json_after_reasoning_is_read_once_with_no_repair_built(
    monkeypatch: pytest.MonkeyPatch, strict_reads: list[str], reply: str, repair: Any
) -> None:
    """Reasoning blanked, the rest one clean value: one strict read, no more.

    Neither the strict gate's whole-reply read nor a repair pass runs, and
    the value is the one the candidate scan finds (its repairs included).
    """
    gates: list[str] = []

    def gate(text: str) -> bool:
        gates.append(text)
        return True

    monkeypatch.setattr(extract_module, "may_be_one_broken_value", gate)
    monkeypatch.setattr(extract_module, "RepairPass", None)
    found = extract(reply, repair=repair)
    assert isinstance(found, Extraction)
    assert found.repairs[0] == "reasoning_skipped"
    assert (len(strict_reads), gates) == (1, [])


@pytest.mark.parametrize(
    ("reply", "reads", "reads_unknown"),
    [
        pytest.param('{"a": 1, "b": [1, 2],}', 1, 2, id="trailing_comma"),
        pytest.param('{"a": 1\n "b": 2}', 1, 2, id="lost_comma"),
        pytest.param('{"a": [1, 2, "b": 2}', 1, 2, id="lost_bracket"),
        pytest.param('{"a: 1, "b": 2}', 1, 2, id="lost_quote"),
        pytest.param(' \n{"a": 1,}', 1, 2, id="space_before"),
        pytest.param('[{"a": 1}, {"b": 2,}]', 1, 2, id="inside_an_array"),
        pytest.param('{"a": 1,} ok', 2, 2, id="prose_after: no first strict read"),
        pytest.param('{"a": 1,}\n', 2, 3, id="space_after: the span ends before"),
        pytest.param('{"a": "x\ny",}', 2, 3, id="control_character: escaped"),
    ],
)
def test_one_slip_without_repair_fails_to_decode_once(
    monkeypatch: pytest.MonkeyPatch,
    strict_reads: list[str],
    reply: str,
    reads: int,
    reads_unknown: int,
) -> None:
    """The error of a reply that does not decode costs one failing orjson call.

    Where orjson stopped in the whole reply (its first strict read) is handed
    to the span scan and to the candidate that is the rest of the reply, so
    neither decodes that text again to learn it; the error is the same as
    when each decodes it (``Scan.reading`` ignoring the stop: ``reads_unknown``).
    A candidate whose text the span scan failed to decode as a root keeps
    that failure (``Span.failed``): it is not decoded a second time.
    """
    found = extract(reply, repair=False)
    assert isinstance(found, ReplyFailure)
    assert len(strict_reads) == reads
    strict_reads.clear()
    monkeypatch.setattr(Scan, "reading", lambda scan, _stop: scan)
    assert extract(reply, repair=False) == found
    assert len(strict_reads) == reads_unknown
