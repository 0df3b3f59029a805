"""A value whose one slip is a trailing comma: read in C, as the pass reads it.

``repair`` drops the comma the decoder stopped at when the rest decodes
whole, without walking the value token by token. Its answer must be the
pass's on every such text: seeded documents (pretty or compact, strings with
quotes, escapes, brackets, apostrophes, typographic quotes, non-ASCII), a
comma put before a random closer, compared with the pass alone. The work is
counted, never timed.
"""

from __future__ import annotations

import json
import random
from typing import Any

import orjson
import pytest
from _random_json import random_value

import langchain_jsonrecover._core.repair.syntax as syntax_module
from langchain_jsonrecover._core.repair import walk as walk_module
from langchain_jsonrecover._core.repair.syntax import Repaired, repair

_WORDS = (
    "a",
    "é€",
    "it's",
    "{x}",
    "[7]",
    'q"uote',
    "back\\slash",
    "“curly”",
    "„low“",
    "x,",
    '", "k": 1',
    "\u2028",
    "",
    '"""',
)


def _with_trailing_comma(rng: random.Random) -> str | None:
    """A seeded document with a comma put before one closer that ends items."""
    document = [random_value(rng, 1, _WORDS) for _ in range(rng.randrange(1, 6))]
    indent = 2 if rng.random() < 0.5 else None
    text = json.dumps(document, indent=indent, ensure_ascii=rng.random() < 0.2)
    closers = [
        i
        for i, char in enumerate(text)
        if char in "]}" and text[:i].rstrip()[-1:] not in {"[", "{"}
    ]
    # Closers inside strings are skipped: the comma must land between tokens.
    closers = [i for i in closers if _outside_strings(text, i)]
    if not closers:
        return None
    at = rng.choice(closers)
    cut = len(text[:at].rstrip())
    tail = rng.choice(["", "\n", "  "])
    return text[:cut] + "," + text[cut:] + tail


def _outside_strings(text: str, at: int) -> bool:
    try:
        orjson.loads(text[:at] + "," + text[at:])
    except orjson.JSONDecodeError as exc:
        return exc.msg == "trailing comma is not allowed"
    return False


def _walked(text: str, monkeypatch: pytest.MonkeyPatch) -> Repaired | None:
    with monkeypatch.context() as patch:
        patch.setattr(syntax_module, "_only_a_trailing_comma", lambda *_: None)
        return repair(text)


def test_a_trailing_comma_reads_as_the_pass_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(24)  # noqa: S311 - seeded test data, not secrets
    texts = [t for t in (_with_trailing_comma(rng) for _ in range(600)) if t]
    taken = 0
    for text in texts:
        quick = syntax_module._only_a_trailing_comma(text)
        taken += quick is not None
        assert repair(text) == _walked(text, monkeypatch), text
    assert taken >= 200, taken  # the quick reading answered many, not none


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"a": 1,} "note"', id="prose after the value"),
        pytest.param('{"a": "x”",}', id="a typographic quote"),
        pytest.param('{"a": 1,,}', id="two commas"),
        pytest.param('{"a": 1,]', id="a closer of the wrong kind"),
        pytest.param('{"a": [1, 2]}', id="nothing to repair"),
        pytest.param("[" * 1100 + "1," + "]" * 1100, id="nested past the pass"),
    ],
)
def test_other_texts_are_left_to_the_pass(text: str) -> None:
    assert syntax_module._only_a_trailing_comma(text) is None


def test_a_trailing_comma_takes_no_step_of_the_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # However many records, the pass is not run: two decodes in C.
    def rewrites(text: str) -> int:
        calls = 0
        real = walk_module.rewrite

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal calls
            calls += 1
            return real(*args, **kwargs)

        with monkeypatch.context() as patch:
            patch.setattr(syntax_module, "rewrite", counted)
            fixed = repair(text)
        assert fixed is not None
        assert fixed.repairs == ("trailing_comma_removed",)
        return calls

    records = orjson.dumps([{"id": i, "tags": ["a"]} for i in range(400)]).decode()
    text = records[:-1] + ",]"
    assert rewrites(text) == 0
    assert walk_module.DEEPEST > 2  # the guard's bound is the pass's own
