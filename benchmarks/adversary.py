"""An adversarial fuzzer for the schema-chosen readings: faults the oracle never injects.

What it measures
    The syntax oracle (``oracle.py``) puts exactly one fault in each reply, so
    a rule of the form "exactly one one-edit reading validates" is safe there
    by construction. This fuzzer builds tables (rows of scalars, of objects,
    nested rows) and puts in faults the oracle does not make: two faults at
    once, a whole element or member deleted, a bracket moved, a cut, and
    replies with a labelled example beside the answer. Each reply is read
    with and without a schema inferred from the original (tight: tuples of a
    row's length, a model with optional fields; loose: ``list[list[Any]]``,
    ``list[Any]``, ``dict[str, Any]``), through ``extract`` at
    ``repair=True`` and the default ``repair="safe"``. Each answer is right
    (the original, read through the schema), an error, or wrong.

How to run
    python benchmarks/adversary.py --count 3000 --seed 5
    python benchmarks/adversary.py --count 3000 --seed 5 --examples 20
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, TypeAdapter, create_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle import (
    CLOSE,
    COMMA,
    KEY,
    NUM,
    OPEN,
    STR,
    WS,
    Token,
    _join,
    _Layout,
    _tokens,
    canonical,
)

from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.schema.validate import Schema

_WORDS = ("a", "b", "c", "x", "yes", "no", "red", "blue", "Paris", "Rome", "1", "")
_KEYS = ("name", "age", "city", "tags", "score", "id", "note")


def _scalar(rng: random.Random, kind: str) -> Any:
    if kind == "int":
        return rng.randint(0, 20)
    return rng.choice(_WORDS)


def _original(rng: random.Random) -> tuple[Any, list[Any]]:
    """A table-like value and the schemas to read it with."""
    shape = rng.choice(("rows", "rows", "ragged", "objects", "nested", "wrapped"))
    kind = rng.choice(("int", "str"))
    py = int if kind == "int" else str
    if shape in ("rows", "ragged", "wrapped"):
        width = rng.randint(1, 4)
        rows = [
            [
                _scalar(rng, kind)
                for _ in range(width if shape != "ragged" else rng.randint(0, 4))
            ]
            for _ in range(rng.randint(2, 5))
        ]
        schemas: list[Any] = [None, list[list[py]], list[Any], list[list[Any]]]  # type: ignore[valid-type]
        if shape != "ragged":
            schemas.append(list[tuple[(py,) * width]])  # type: ignore[misc]
        if shape == "wrapped":
            rows_field: Any = (list[list[py]], ...)  # type: ignore[valid-type]
            trows_field: Any = (list[tuple[(py,) * width]], ...)  # type: ignore[misc]
            table: Any = create_model("Table", rows=rows_field)
            ttable: Any = create_model("TTable", rows=trows_field)
            return {"rows": rows}, [None, table, ttable, dict[str, Any]]
        return rows, schemas
    if shape == "nested":
        rows3 = [
            [[_scalar(rng, kind) for _ in range(rng.randint(1, 3))] for _ in range(2)]
            for _ in range(rng.randint(2, 3))
        ]
        return rows3, [None, list[list[list[py]]], list[list[Any]], list[Any]]  # type: ignore[valid-type]
    keys = rng.sample(_KEYS, rng.randint(1, 3))
    objs = []
    for _ in range(rng.randint(2, 4)):
        obj: dict[str, Any] = {}
        for k in keys:
            if rng.random() < 0.8:
                obj[k] = _scalar(rng, kind)
        objs.append(obj)
    fields = dict.fromkeys(keys, (py | None, None))
    model: Any = create_model("Row", **fields)  # type: ignore[call-overload]
    req = {k: (py, ...) for k in keys if all(k in o for o in objs)}
    fields2 = {k: (py | None, None) for k in keys if k not in req}
    model2: Any = create_model("RowReq", **req, **fields2)  # type: ignore[call-overload]
    return objs, [None, list[model], list[model2], list[dict[str, Any]], list[Any]]


def _delete_element(rng: random.Random, toks: list[Token]) -> str | None:
    where = [i for i, (k, _) in enumerate(toks) if k in (NUM, STR, KEY)]
    if not where:
        return None
    i = rng.choice(where)
    if toks[i][0] == KEY:  # the member: key, colon, space, value
        j = i + 1
        while j < len(toks) and toks[j][0] not in (COMMA, CLOSE):
            j += 1
        if j < len(toks) and toks[j][0] == COMMA:
            j += 1
        return _join(toks[:i] + toks[j:])
    if rng.random() < 0.5:  # the value only: a hole between separators
        return _join(toks[:i] + toks[i + 1 :])
    after = [j for j in range(i + 1, len(toks)) if toks[j][0] != WS][:1]
    before = [j for j in range(i - 1, -1, -1) if toks[j][0] != WS][:1]
    if after and toks[after[0]][0] == COMMA:
        return _join(toks[:i] + toks[after[0] + 1 :])
    if before and toks[before[0]][0] == COMMA:
        return _join(toks[: before[0]] + toks[i + 1 :])
    return _join(toks[:i] + toks[i + 1 :])


def _bracket_moved(rng: random.Random, toks: list[Token]) -> str | None:
    where = [i for i, (k, _) in enumerate(toks) if k in (OPEN, CLOSE) and i]
    if not where:
        return None
    i = rng.choice(where)
    tok = toks[i]
    rest = toks[:i] + toks[i + 1 :]
    j = rng.randint(1, len(rest) - 1)
    return _join([*rest[:j], tok, *rest[j:]])


def _one_char(rng: random.Random, text: str) -> str:
    """One structural slip: a bracket, comma or quote deleted, added or swapped."""
    how = rng.choice(("del", "add", "swap"))
    sites = [i for i, c in enumerate(text) if c in '[]{},"']
    if how == "del" and sites:
        i = rng.choice(sites)
        return text[:i] + text[i + 1 :]
    if how == "swap" and sites:
        i = rng.choice(sites)
        c = text[i]
        new = {"[": "{", "{": "[", "]": "}", "}": "]", ",": ":", '"': "'"}[c]
        return text[:i] + new + text[i + 1 :]
    i = rng.randint(1, len(text) - 1)
    return text[:i] + rng.choice("[]{},") + text[i:]


def _fault(rng: random.Random, toks: list[Token]) -> tuple[str, str | None]:
    kind = rng.choice(("two", "two", "element", "element", "moved", "cut", "elem+1"))
    text = _join(toks)
    if kind == "two":
        return kind, _one_char(rng, _one_char(rng, text))
    if kind == "element":
        return kind, _delete_element(rng, toks)
    if kind == "elem+1":
        once = _delete_element(rng, toks)
        return kind, None if once is None else _one_char(rng, once)
    if kind == "moved":
        return kind, _bracket_moved(rng, toks)
    return kind, text[: rng.randint(2, len(text) - 1)]


_LABELS = (
    "Sample output:",
    "Expected:",
    "Template:",
    "Example:",
    "Output:",
    "Result:",
    "Answer:",
)


def _wrap(rng: random.Random, payload: str, original: Any, kind: str) -> str:
    style = rng.choice(("bare", "fence", "prose", "label", "label2"))
    if kind == "cut":
        return payload if style != "fence" else "```json\n" + payload
    if style == "fence":
        return "```json\n" + payload + "\n```"
    if style == "prose":
        return "Here is the table:\n" + payload + "\nHope this helps!"
    label = rng.choice(_LABELS)
    if style == "label":
        return f"{label}\n{payload}"
    return f"{label} {payload}\n\nAnswer:\n```json\n{json.dumps(original)}\n```"


def _name(schema: Any) -> str:
    if schema is None:
        return "none"
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.__name__
    return repr(schema).replace("typing.", "")


def main() -> None:
    """Run the fuzzer and print right / error / wrong per level and fault kind."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--examples", type=int, default=0)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    tally: Counter[tuple[str, str, str]] = Counter()
    wrongs: list[str] = []
    for index in range(args.count):
        rng = random.Random(f"{args.seed}:{index}")
        original, schemas = _original(rng)
        layout = _Layout(
            indent=rng.choice((None, None, 2)),
            item_sep=rng.choice((",", ", ")),
            key_sep=": ",
            ensure_ascii=False,
        )
        toks = list(_tokens(original, layout))
        kind, payload = _fault(rng, toks)
        if payload is None:
            continue
        try:
            orjson.loads(payload)
        except orjson.JSONDecodeError:
            pass
        else:
            continue  # invisible
        reply = _wrap(rng, payload, original, kind)
        for schema in schemas:
            try:
                expected = (
                    original
                    if schema is None
                    else TypeAdapter(schema).validate_python(original)
                )
            except ValueError:
                continue
            adapter = TypeAdapter(Any if schema is None else schema)
            want = canonical(adapter.dump_python(expected, mode="json"))
            for level in (True, "safe"):
                found = extract(
                    reply,
                    schema=None if schema is None else Schema(schema),
                    repair=level,
                    close_truncated=kind == "cut",
                )
                got = ""
                if not isinstance(found, Extraction):
                    verdict = "error"
                else:
                    try:
                        got = canonical(adapter.dump_python(found.value, mode="json"))
                    except ValueError:
                        got = canonical(found.value)
                    verdict = "right" if got == want else "wrong"
                    if verdict == "wrong" and kind == "cut":
                        verdict = "cutread"  # a cut's partial reading
                tally[(str(level), kind, verdict)] += 1
                if verdict == "wrong" and isinstance(found, Extraction):
                    wrongs.append(
                        json.dumps(
                            {
                                "index": index,
                                "level": str(level),
                                "kind": kind,
                                "schema": _name(schema),
                                "reply": reply,
                                "meant": want,
                                "got": got,
                                "repairs": found.repairs,
                            },
                            ensure_ascii=False,
                        )
                    )
    for level in ("True", "safe"):
        for kind in ("two", "element", "elem+1", "moved", "cut"):
            row = {
                v: tally[(level, kind, v)]
                for v in ("right", "error", "wrong", "cutread")
            }
            print(f"repair={level:5} {kind:8} {row}")
    print(f"{len(wrongs)} wrong")
    if args.out:
        Path(args.out).write_text("".join(line + "\n" for line in wrongs))
    for line in wrongs[: args.examples]:
        print(line)


if __name__ == "__main__":
    main()
