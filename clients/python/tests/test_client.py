"""The Pythonic client against a real cluster: exceptions named like the Java ErrorCodes, two-phase
puts revoked on failure, verified reads that fall back to the next replica, large objects read in
place, concurrent clients."""

import os
import threading
import time
import tracemalloc

import numpy as np
import pytest

from mooncake_osgi import ReplicateConfig, StoreClient, errors
from mooncake_osgi.tcp import TransferError


@pytest.fixture
def client(cluster):
    c = StoreClient(cluster.master_address)
    yield c
    c.remove_all(force=True)
    c.close()


def test_failures_raise_the_named_errors(client):
    with pytest.raises(errors.ObjectNotFoundError) as e:
        client.get("cl-missing")
    assert e.value.code == -704 and e.value.name == "OBJECT_NOT_FOUND" and isinstance(e.value, errors.StoreError)
    client.put("cl-once", b"x")
    with pytest.raises(errors.ObjectAlreadyExistsError):
        client.put("cl-once", b"y")
    client.put("cl-once", b"z", upsert=True)
    assert client.get("cl-once") == b"z"
    with pytest.raises(errors.InvalidKeyError):
        client.put("has space", b"x")
    with pytest.raises(errors.BufferTooSmallError):
        client.get_into("cl-once", bytearray(0))
    with pytest.raises(errors.InvalidParamsError):
        client.remove_by_regex("([unclosed", force=True)


def test_a_put_that_fails_midway_is_revoked_and_leaves_nothing(client):
    data = os.urandom(3 << 20)

    def fail(address, moved):
        raise TransferError("injected: the link broke")

    client.transport.after_slice = fail
    with pytest.raises(errors.TransferFailError, match="injected"):
        client.put("cl-revoked", data, ReplicateConfig(replica_num=2))
    client.transport.after_slice = None
    assert client.query("cl-revoked") is None, "the revoked put left no object, not even a PROCESSING one"
    client.put("cl-revoked", data)
    assert client.get("cl-revoked") == data


def test_a_corrupt_replica_is_skipped_and_two_are_a_checksum_mismatch(cluster, client):
    """Both replicas in segments this process contributes, so the test can damage their memory (over
    the network it could not: a WRITE needs a grant, and the master grants none for a complete object)."""
    data = os.urandom(200_000)
    with StoreClient(cluster.master_address, global_segment_size=4 << 20) as a, \
            StoreClient(cluster.master_address, global_segment_size=4 << 20) as b:
        owners = {a.segment.name: a.segment, b.segment.name: b.segment}
        client.put("cl-corrupt", data, ReplicateConfig(replica_num=2, preferred_segments=list(owners)))
        replicas = client.query("cl-corrupt")["replicas"]
        assert sorted(r["segmentName"] for r in replicas) == sorted(owners)

        def corrupt(replica):
            at = replica["offset"] + 70_000
            owners[replica["segmentName"]].view[at:at + 8] = b"\xff" * 8
        corrupt(replicas[0])
        assert client.get("cl-corrupt") == data, "read from the intact replica"
        corrupt(replicas[1])
        with pytest.raises(errors.ChecksumMismatchError):
            client.get("cl-corrupt")
        client.remove("cl-corrupt", force=True)


def late_clock(late_reads):
    """A clock read twice per attempt (asking for the lease, then after the bytes arrived): the
    first ``late_reads`` attempts end an hour after their lease was asked for."""
    calls = []

    def clock():
        calls.append(1)
        late = len(calls) % 2 == 0 and len(calls) // 2 <= late_reads
        return time.time() + (3600 if late else 0)
    return clock, calls


def test_a_read_that_outlives_its_lease_is_read_again_under_a_new_one(client):
    client.put("cl-lease", b"abc")
    client.clock, calls = late_clock(1)
    assert client.get("cl-lease") == b"abc" and len(calls) == 4
    client.clock, calls = late_clock(3)
    with pytest.raises(errors.LeaseExpiredError):
        client.get("cl-lease")


@pytest.mark.parametrize("skew_s", [60, -60], ids=["ahead", "behind"])
def test_a_client_whose_clock_is_a_minute_off_still_reads(client, skew_s):
    """The master's serverTimeMs moves the lease's end onto the client's clock (tests/test_clocks.py
    has the cases a real master cannot show)."""
    client.put("cl-skew", b"abc")
    client.clock = lambda: time.time() + skew_s
    assert client.get("cl-skew") == b"abc"
    assert client.get_batch_into(["cl-skew"], [bytearray(3)]) == [3]


def test_a_write_that_times_out_revokes_its_put_saying_the_writes_are_in_doubt(client, monkeypatch):
    revokes = []
    call = client.master.call

    def spy(op, *args):
        if op.startswith("PUT_REVOKE"):
            revokes.append((op, args))
        return call(op, *args)

    def stall(address, moved):  # what a socket raises when the peer does not answer in time
        raise TimeoutError("injected: no answer in time")

    monkeypatch.setattr(client.master, "call", spy)
    client.transport.after_slice = stall
    with pytest.raises(errors.TransferFailError, match="no answer in time"):
        client.put("cl-doubt", b"d" * 1000)
    out = client.put_batch(["cl-doubt-b"], [b"e" * 1000])
    assert isinstance(out[0], errors.TransferFailError)
    client.transport.after_slice = None
    assert [(op, args[-1]) for op, args in revokes] == [("PUT_REVOKE", True), ("PUT_REVOKE_BATCH", True)]
    assert client.query("cl-doubt") is None or client.query("cl-doubt")["state"] != "COMPLETE"


def test_batches_report_per_key(client):
    client.put("cl-b3", b"there")
    out = client.put_batch(["cl-b1", "cl-b2", "cl-b3"], [b"one", [b"t", b"wo"], b"three"])
    assert out[0] is None and out[1] is None and isinstance(out[2], errors.ObjectAlreadyExistsError)
    with pytest.raises(errors.InvalidKeyError):
        client.put_batch(["cl-b4", "cl b5"], [b"x", b"y"])  # a malformed key refuses the whole call
    targets = [bytearray(8), bytearray(8), bytearray(8)]
    got = client.get_batch_into(["cl-b1", "cl-b2", "cl-none"], targets)
    assert got[:2] == [3, 3] and isinstance(got[2], errors.ObjectNotFoundError)
    assert targets[1][:3] == b"two"
    assert client.exists_batch(["cl-b1", "cl-none"]) == [True, False]


def test_a_64_mib_get_into_reads_in_place(client):
    src = np.random.default_rng(7).integers(0, 255, 64 << 20, dtype=np.uint8)
    dst = np.zeros_like(src)
    tracemalloc.start()
    try:
        client.put("cl-big", src)
        _, put_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        assert client.get_into("cl-big", dst) == 64 << 20
        _, get_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.array_equal(src, dst)
    assert get_peak < 1 << 20, f"get_into peaked at {get_peak} bytes of Python allocations"
    assert put_peak < 1 << 20, f"put peaked at {put_peak} bytes of Python allocations"


def test_concurrent_clients(cluster):
    failures = []

    def work(n):
        try:
            with StoreClient(cluster.master_address) as c:
                for i in range(10):
                    value = os.urandom(100_000 + n * 1000 + i)
                    c.put(f"cc-{n}-{i}", value)
                    assert c.get(f"cc-{n}-{i}") == value
                    c.remove(f"cc-{n}-{i}", force=True)
        except BaseException as e:  # reported below, with the thread that failed
            failures.append((n, e))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
