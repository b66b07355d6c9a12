"""Conditional writes on both backends, the S3 one over real HTTP to moto's server."""

from __future__ import annotations

import threading
import uuid

import boto3
import pytest

from freshindex.catalog.layout import CURRENT, PointerState, read_pointer, swap_pointer
from freshindex.catalog.manifest import Pointer
from freshindex.core.exceptions import (
    NotFound,
    PreconditionFailed,
    PublishConflict,
    StoreUnavailable,
)
from freshindex.storage import open_store
from freshindex.storage.s3 import S3Store
from tests.conftest import new_bucket


def test_put_get_list_delete(store_uri: str) -> None:
    store = open_store(store_uri)
    store.put("a/b/one.bin", b"1")
    store.put("a/two.bin", b"2")
    assert store.get("a/b/one.bin").data == b"1"
    assert list(store.list("a/")) == ["a/b/one.bin", "a/two.bin"]
    assert store.exists("a/two.bin") and not store.exists("a/none")
    store.delete("a/two.bin")
    with pytest.raises(NotFound):
        store.get("a/two.bin")


def test_put_if_absent_refuses_a_second_writer(store_uri: str) -> None:
    store = open_store(store_uri)
    store.put_if_absent("m.json", b"first")
    # the same bytes again is our own retried write: accepted
    store.put_if_absent("m.json", b"first")
    with pytest.raises(PreconditionFailed):
        store.put_if_absent("m.json", b"second")
    assert store.get("m.json").data == b"first"


def test_put_if_match_refuses_a_stale_etag(store_uri: str) -> None:
    store = open_store(store_uri)
    etag1 = store.put_if_match("p.json", b"A", None)
    etag2 = store.put_if_match("p.json", b"B", etag1)
    with pytest.raises(PreconditionFailed):
        store.put_if_match("p.json", b"C", etag1)
    with pytest.raises(PreconditionFailed):
        store.put_if_match("p.json", b"C", None)  # "only if absent"
    store.put_if_match("p.json", b"C", etag2)
    assert store.get("p.json").data == b"C"


def _pointer(version: str, generation: int) -> Pointer:
    return Pointer(
        version=version,
        manifestKey=f"versions/{version}/manifest.json",
        manifestDigest="sha256:x",
        seq=generation,
        generation=generation,
        nonce=uuid.uuid4().hex,
        writer="test",
        updatedAt="t",
    )


def test_pointer_bodies_never_repeat_so_aba_cannot_fool_if_match(store_uri: str) -> None:
    """A -> B -> A: the third body names the same version as the first, but its
    generation and nonce differ, so the first body's etag no longer matches."""
    store = open_store(store_uri)
    swap_pointer(store, _pointer("A", 1), PointerState(None, None))
    stale = read_pointer(store)
    swap_pointer(store, _pointer("B", 2), stale)
    swap_pointer(store, _pointer("A", 3), read_pointer(store))
    with pytest.raises(PublishConflict, match="moved"):
        swap_pointer(store, _pointer("C", 4), stale)
    assert read_pointer(store).pointer.version == "A"  # type: ignore[union-attr]


def test_racing_pointer_swaps_have_exactly_one_winner(
    serial_s3_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 writers compare-and-swap from the same etag at once; one wins."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", serial_s3_server)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing-secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    bucket = new_bucket(serial_s3_server)
    uri = f"s3://{bucket}/race"
    setup = open_store(uri)
    swap_pointer(setup, _pointer("base", 1), PointerState(None, None))
    base = read_pointer(setup)
    winners: list[str] = []
    losers: list[str] = []
    barrier = threading.Barrier(20)

    def contend(i: int) -> None:
        store = open_store(uri)  # one client per writer, as separate processes would have
        barrier.wait()
        try:
            swap_pointer(store, _pointer(f"v{i}", 2), base)
            winners.append(f"v{i}")
        except PublishConflict:
            losers.append(f"v{i}")

    threads = [threading.Thread(target=contend, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1 and len(losers) == 19
    assert read_pointer(setup).pointer.version == winners[0]  # type: ignore[union-attr]


def test_a_put_that_landed_but_reports_412_is_ours(s3_server: str) -> None:
    """botocore may retry a put that already landed; the retry sees 412. Reading
    the object back and finding our own bytes makes it a success, not a loss."""
    store = open_store(f"s3://{new_bucket(s3_server)}/x")
    assert isinstance(store, S3Store)
    body = b'{"nonce":"mine"}'
    store.put(CURRENT, body)  # "landed" on an earlier attempt
    etag = store.put_if_absent(CURRENT, body)  # the retry: 412 from S3, then read-back
    assert etag == store.get(CURRENT).etag


def test_missing_bucket_is_one_clear_error(s3_server: str) -> None:
    with pytest.raises(StoreUnavailable, match="does not exist"):
        open_store("s3://no-such-bucket-here/prefix")


def test_unreachable_endpoint_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import free_port

    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDSECRETVALUE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "very-secret-key")
    with pytest.raises(StoreUnavailable) as info:
        open_store("s3://bucket/prefix")
    assert "cannot reach S3 endpoint" in str(info.value)
    assert "very-secret-key" not in str(info.value) and "AKIDSECRETVALUE" not in str(info.value)


def test_s3_listing_pages(s3_server: str) -> None:
    bucket = new_bucket(s3_server)
    client = boto3.client("s3")
    for i in range(1005):  # more than one page of 1000
        client.put_object(Bucket=bucket, Key=f"p/k{i:05d}", Body=b"x")
    store = open_store(f"s3://{bucket}/p")
    keys = list(store.list(""))
    assert len(keys) == 1005 and keys[0] == "k00000"
    keys = list(store.list("", start_after="k00003"))  # StartAfter, then continuation pages
    assert len(keys) == 1001 and keys[0] == "k00004" and keys[-1] == "k01004"
