"""Clients whose clock differs from the master's (docs/protocol.md, "Clocks"): requests carry a
relative ``timeoutMs``; a lease's end is moved onto the client's clock with the response's
``serverTimeMs``, so a client 60 s ahead or behind still reads, and still notices a read that
outlived its lease. Against a master in the test process and a Python segment holding the object,
under grants the fake master signs with the segment's key."""

import os
import time

import pytest

from fake_master import FakeMaster
from mooncake_osgi import StoreClient, checksum, errors
from mooncake_osgi.grants import Grant
from mooncake_osgi.master import int64, to_local_ms
from mooncake_osgi.segment import SegmentServer

LEASE_MS = 5000
DATA = os.urandom(100_000)


@pytest.fixture
def world():
    """(segment holding DATA, a factory of fake masters that send serverTimeMs or not)."""
    segment = SegmentServer("seg-clock", 1 << 20, grant_key=os.urandom(32))
    segment.view[0:len(DATA)] = DATA
    masters = []

    def master(sends_server_time=True):
        def handle(request):
            assert request["op"] == "GET_REPLICA_LIST", request
            now = int(time.time() * 1000)  # the master's clock
            grant = Grant.sign(segment.grant_key, segment.name, False, 0, len(DATA), now + LEASE_MS)
            lease = {"sizeBytes": len(DATA), "checksum": int64(checksum.of(DATA)), "dataType": "GENERAL",
                     "chunks": None, "leaseExpiresAtMs": now + LEASE_MS,
                     "replicas": [{"segmentName": segment.name, "endpoints": [segment.endpoint()], "offset": 0,
                                   "sizeBytes": len(DATA),
                                   "grant": {"write": False, "offset": 0, "length": len(DATA),
                                             "expiresAtMs": grant.expires_at_ms, "mac": grant.mac}}]}
            return lease, now if sends_server_time else None
        m = FakeMaster(handle)
        masters.append(m)
        return m

    yield segment, master
    for m in masters:
        m.close()
    segment.close()


def client_at(master, skew_s):
    client = StoreClient(master.address, rpc_timeout_s=4.0)
    client.clock = lambda: time.time() + skew_s
    return client


@pytest.mark.parametrize("skew_s", [60, -60, 0])
def test_a_client_whose_clock_is_off_still_reads(world, skew_s):
    _, master = world
    m = master()
    with client_at(m, skew_s) as client:
        assert client.get("k") == DATA
    request = m.requests[-1]
    assert request["timeoutMs"] == 4000 and request["deadlineMs"] == 0, "a relative budget, no absolute time"


def test_a_client_behind_the_master_still_notices_a_read_that_outlived_its_lease(world):
    _, master = world
    with client_at(master(), -60) as client:
        calls = []

        def clock():  # 60 s behind; every read ends 30 s after its lease was asked for
            calls.append(1)
            return time.time() - 60 + (30 if len(calls) % 2 == 0 else 0)

        client.clock = clock
        with pytest.raises(errors.LeaseExpiredError):
            client.get("k")


def test_without_server_time_the_lease_end_is_taken_as_it_is(world):
    _, master = world
    with client_at(master(sends_server_time=False), 0) as client:
        assert client.get("k") == DATA
    with client_at(master(sends_server_time=False), 60) as client:
        with pytest.raises(errors.LeaseExpiredError):
            client.get("k")


def test_to_local_ms():
    assert to_local_ms(10_000, 4_000, 70_000) == 76_000
    assert to_local_ms(10_000, None, 70_000) == 10_000
