"""The public helpers on a real local Dask cluster: rows equal the single-process ones.

Two worker processes, 10,000 generated replies of every shape, through
``dask.bag`` ``.map(recover_record)`` and ``dask.dataframe``
``.map_partitions(recover_frame, meta=...)``. Skipped without the ``dask``
extra (CI installs it).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import orjson
import pytest

dask = pytest.importorskip("dask", reason="needs the dask extra")
db = pytest.importorskip("dask.bag", reason="needs the dask extra")
dd = pytest.importorskip("dask.dataframe", reason="needs the dask extra")
distributed = pytest.importorskip("distributed", reason="needs the dask extra")
pd = pytest.importorskip("pandas", reason="needs the dask extra")

from langchain_jsonrecover import (  # noqa: E402 - after the skips
    TruncationRecoveringOutputParser,
    recover_frame,
    recover_record,
)

if TYPE_CHECKING:
    from pathlib import Path

N = 10_000


def record(i: int) -> Any:
    """A logged reply of one of ten shapes, carrying its number."""
    cut = {"finish_reason": "length"}
    shapes: list[Any] = [
        f'Sure! {{"id": {i}, "tags": ["a", "b"]}}',
        {"content": f'```json\n{{"id": {i}}}\n```', "response_metadata": {}},
        {"content": f'{{"id": {i}, "items": [1, 2', "response_metadata": cut},
        {"content": f"Sorry, nothing for {i}."},
        f'<think>{{"draft": {i}}}</think> [{i}, {i + 1}]',
        {"content": f"{{'id': {i}, 'ok': True,}}"},
        {"content": [{"type": "text", "text": f'{{"id": {i}}}'}]},
        {"content": f'{{"id": {i}, "x": 1}} and {{"id": -{i}}}'},
        {"no_content": i},
        f'{{"id": {i}, "big": 123456789012345678901234567890}}',
    ]
    return shapes[i % len(shapes)]


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dask") / "replies.jsonl"
    path.write_bytes(b"".join(orjson.dumps(record(i)) + b"\n" for i in range(N)))
    return path


@pytest.fixture(scope="module")
def client() -> Any:
    with (
        distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


PARSER = TruncationRecoveringOutputParser(repair=True)


def test_bag_rows_equal_single_process_rows(client: Any, log: Path) -> None:
    records = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    single = [recover_record(r, PARSER) for r in records]
    bag = (
        db.read_text(str(log), blocksize=100_000)
        .map(orjson.loads)
        .map(recover_record, parser=PARSER)
    )
    assert bag.npartitions > 2
    rows = bag.compute()
    assert len(rows) == N
    assert rows == single
    # The log holds every outcome, so the comparison means something.
    kinds = {r["error"]["kind"] for r in single if r["error"]}
    assert kinds == {"NoJsonFoundError", "BadRecord"}
    assert sum(r["ok"] for r in single) == N * 8 // 10
    assert sum(r["cut_off"] for r in single) == N // 10
    assert any("truncation_closed" in r["repairs"] for r in single)
    assert any(
        r["value"] == {"id": 9, "big": 123456789012345678901234567890} for r in single
    )


def test_frame_rows_equal_single_process_rows(client: Any, log: Path) -> None:
    records = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    frame = pd.DataFrame({"reply": records})
    single = recover_frame(frame, PARSER, column="reply")
    meta = recover_frame(frame.iloc[:0], PARSER, column="reply")
    # Cells holding dicts stay dicts: dask would otherwise turn object columns
    # into text (their Python repr), which is not the logged reply.
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=6)
        recover = functools.partial(recover_frame, parser=PARSER, column="reply")
        out = ddf.map_partitions(recover, meta=meta).compute()
    assert list(out.columns) == list(single.columns)
    assert out["line"].tolist() == list(range(1, N + 1))
    pd.testing.assert_frame_equal(out.reset_index(drop=True), single)


def test_frame_of_text_replies_under_dask_defaults(client: Any) -> None:
    # A column of reply text needs no configuration.
    texts = [f'Answer {i}: {{"id": {i}}}' if i % 3 else "none" for i in range(3000)]
    frame = pd.DataFrame({"content": texts})
    single = recover_frame(frame)
    out = (
        dd.from_pandas(frame, npartitions=4)
        .map_partitions(recover_frame, meta=recover_frame(frame.iloc[:0]))
        .compute()
    )
    assert out["value_json"].tolist() == single["value_json"].tolist()
    assert out["line"].tolist() == single["line"].tolist()
    assert out["ok"].tolist() == single["ok"].tolist()
