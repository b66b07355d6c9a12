"""Publication records are read from where the reader needs them, not from the
start: a store that has published thousands of versions costs a publish, a
/healthz and a /metrics scrape one LIST page and a few GETs (on both backends,
S3 over real HTTP)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from freshindex.catalog.layout import (
    CURRENT,
    RecordTail,
    newest_record,
    next_seq,
    read_pointer,
    read_records,
    record_key,
    records_before,
)
from freshindex.catalog.manifest import BuildKind, PublicationRecord
from freshindex.ops.health import HealthChecker
from freshindex.storage import Store, open_store
from freshindex.storage.base import Blob
from tests.integration.test_storage import _pointer


class Counted(Store):
    """A real store that counts the requests made of it, and what LISTs asked for."""

    def __init__(self, inner: Store) -> None:
        self.inner, self.uri = inner, inner.uri
        self.calls: Counter[str] = Counter()
        self.listed_after: list[str | None] = []

    def get(self, key: str) -> Blob:
        self.calls["get"] += 1
        return self.inner.get(key)

    def exists(self, key: str) -> bool:
        self.calls["exists"] += 1
        return self.inner.exists(key)

    def put(self, key: str, data: bytes) -> None:
        self.inner.put(key, data)

    def put_if_absent(self, key: str, data: bytes) -> str:
        return self.inner.put_if_absent(key, data)

    def put_if_match(self, key: str, data: bytes, etag: str | None) -> str:
        return self.inner.put_if_match(key, data, etag)

    def list(self, prefix: str, start_after: str | None = None) -> Iterator[str]:
        self.calls["list"] += 1
        self.listed_after.append(start_after)
        return self.inner.list(prefix, start_after)

    def delete(self, key: str) -> None:
        self.inner.delete(key)


def record(seq: int, version: str | None = None) -> PublicationRecord:
    return PublicationRecord(
        version=version or f"v{seq}",
        seq=seq,
        sourceCommit="0" * 40,
        manifestDigest="sha256:x",
        parentVersion=None,
        buildKind=BuildKind.INCREMENTAL,
        publishedAt="t",
    )


def publish_records(store: Store, *seqs: int) -> None:
    for seq in seqs:
        store.put_if_absent(record_key(seq), record(seq).to_bytes())


def point_at(store: Store, seq: int, reason: str = "publish") -> None:
    pointer = _pointer(f"v{seq}", seq).model_copy(update={"reason": reason})
    store.put(CURRENT, pointer.to_bytes())


def test_list_after_a_key(store_uri: str) -> None:
    store = open_store(store_uri)
    for seq in (1, 2, 10, 11):
        store.put(record_key(seq), b"{}")
    store.put("records/README", b"not a record")
    store.put("recordsx/000000000012.json", b"{}")  # another prefix
    assert list(store.list("records/", start_after=record_key(2))) == [
        record_key(10),
        record_key(11),
        "records/README",
    ]
    assert list(store.list("records/", start_after=record_key(11))) == ["records/README"]
    assert len(list(store.list("records/", start_after=None))) == 5


def test_next_seq_lists_only_after_the_pointer(store_uri: str) -> None:
    store = Counted(open_store(store_uri))
    assert next_seq(store, read_pointer(store)) == 1  # an empty store
    publish_records(store, *range(1, 31))
    point_at(store, 30)
    store.listed_after.clear()
    assert next_seq(store, read_pointer(store)) == 31
    assert store.listed_after == [record_key(30)]
    # rolled back to 12: the seqs published after it stay taken
    point_at(store, 12, reason="rollback")
    assert next_seq(store, read_pointer(store)) == 31
    # a writer that lost the pointer after writing nothing leaves no gap to fill
    point_at(store, 40)
    assert next_seq(store, read_pointer(store)) == 41


def test_newest_record_from_the_pointer_on(store_uri: str) -> None:
    store = Counted(open_store(store_uri))
    publish_records(store, *range(1, 41))
    store.calls.clear()
    newest = newest_record(store, 38)
    assert newest is not None and newest.seq == 40
    assert store.calls == {"list": 1, "get": 1}
    assert newest_record(store, 41) is None
    store.put_if_absent(record_key(41), b"corrupt")  # proves nothing: the one below is newest
    newest = newest_record(store, 39)
    assert newest is not None and newest.seq == 40


def test_record_tail_reads_each_record_once_even_out_of_order(store_uri: str) -> None:
    store = Counted(open_store(store_uri))
    tail = RecordTail()
    assert tail.new(store) == []
    publish_records(store, 1, 2, 4)  # 3's writer swapped the pointer first, its record is late
    assert [r.seq for r in tail.new(store)] == [1, 2, 4]
    assert tail.through == 2
    store.calls.clear()
    assert tail.new(store) == [] and store.calls == {"list": 1}  # nothing new: no GET
    publish_records(store, 3, 5)
    assert [r.seq for r in tail.new(store)] == [3, 5]
    assert tail.through == 5
    store.listed_after.clear()
    publish_records(store, 7)  # 6 never written (a crash between swap and record)
    assert [r.seq for r in tail.new(store)] == [7]
    assert [r.seq for r in tail.new(store)] == []
    assert store.listed_after == [record_key(5), record_key(5)]
    # read once each, and the same records as reading them all
    assert [r.seq for r in read_records(store)] == [1, 2, 3, 4, 5, 7]


def test_health_reads_records_from_the_pointer_on(store_uri: str) -> None:
    store = Counted(open_store(store_uri))
    publish_records(store, *range(1, 51))
    point_at(store, 50)
    checker = HealthChecker(store)
    store.calls.clear()
    report = checker.check()
    # pointer, its newest record, the manifest (absent here: a problem, not a crash)
    assert store.calls == {"list": 1, "get": 3}
    assert report["problems"] == ["current version v50 has no manifest"]
    point_at(store, 48, reason="rollback")
    assert checker.check()["notes"] == ["rolled back from v50 to v48"]
    point_at(store, 48)  # moved back without saying so
    assert "current.json names v48, newest published is v50" in checker.check()["problems"]
    point_at(store, 51)  # the pointer moved, its record was never written
    assert "current version v51 has no publication record (seq 51)" in checker.check()["problems"]


def test_records_before_are_read_newest_first_and_only_as_asked(store_uri: str) -> None:
    store = Counted(open_store(store_uri))
    publish_records(store, *range(1, 61))
    store.put_if_absent(record_key(61), b"corrupt")
    store.calls.clear()
    below = records_before(store, 60)
    assert next(below).seq == 59
    assert store.calls == {"list": 1, "get": 1}  # rollback's search stops at the first good one
    assert [r.seq for r in records_before(store, 4)] == [3, 2, 1]
    assert [r.seq for r in records_before(store, 100)][:2] == [60, 59]  # the corrupt one skipped
