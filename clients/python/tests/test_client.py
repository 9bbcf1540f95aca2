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
from mooncake_osgi.tcp import TcpRequester, TransferError


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


def test_a_corrupt_replica_is_skipped_and_two_are_a_checksum_mismatch(client):
    data = os.urandom(200_000)
    client.put("cl-corrupt", data, ReplicateConfig(replica_num=2))
    replicas = client.query("cl-corrupt")["replicas"]
    assert len(replicas) == 2
    writer = TcpRequester()
    try:
        def corrupt(replica):
            address = next(e["address"] for e in replica["endpoints"] if e["protocol"] == "tcp")
            writer.write_from(address, replica["segmentName"], replica["offset"] + 70_000, memoryview(b"\xff" * 8))
        corrupt(replicas[0])
        assert client.get("cl-corrupt") == data, "read from the intact replica"
        corrupt(replicas[1])
        with pytest.raises(errors.ChecksumMismatchError):
            client.get("cl-corrupt")
    finally:
        writer.close()


def test_a_read_that_outlives_its_lease_is_read_again_under_a_new_one(client):
    client.put("cl-lease", b"abc")
    reads = []

    def clock():  # the first read ends an hour late; the next on time
        reads.append(1)
        return time.time() + (3600 if len(reads) == 1 else 0)

    client.clock = clock
    assert client.get("cl-lease") == b"abc" and len(reads) == 2
    client.clock = lambda: time.time() + 3600
    with pytest.raises(errors.LeaseExpiredError):
        client.get("cl-lease")


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
