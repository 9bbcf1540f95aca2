"""Data-path grants (docs/security.md): the mac of the Java ``DataGrant`` byte for byte, the
version 2 tcp request carrying a grant, and the Python segment server refusing every request whose
grant is missing, forged, expired, for the other operation or for other bytes."""

import socket
import threading
import time

import pytest

from mooncake_osgi import grants, tcp
from mooncake_osgi.connect import recv_exactly
from mooncake_osgi.grants import Check, Grant
from mooncake_osgi.segment import SegmentServer

KEY = bytes(range(32))
GOLDEN_MAC = bytes.fromhex("d4868e5f2d591c6c1a4fbc224ec60b7b")
# the spec's version 2 WRITE of 5 bytes at 4096 of "seg-a", request id 1, under the golden grant
GOLDEN_WRITE_REQUEST = bytes.fromhex(
    "4d435431" "02" "02" "0005" "0000000000000001" "0000000000001000" "0000000000000005" "29"
    "7365672d61"
    "02" "0000000000001000" "0000000000010000" "000001a229f12800" "d4868e5f2d591c6c1a4fbc224ec60b7b")


def golden():
    return Grant.sign(KEY, "seg-a", True, 4096, 65536, 1796000000000)


def test_the_mac_is_the_java_grants():
    assert golden().mac == GOLDEN_MAC
    assert grants.signed_bytes("seg-a", True, 4096, 65536, 1796000000000) == (
        b"mooncake-grant-1" + bytes.fromhex("0005") + b"seg-a" + bytes.fromhex(
            "02" "0000000000001000" "0000000000010000" "000001a229f12800"))


def test_a_version_2_request_carries_the_grant_after_the_name():
    assert tcp.encode_request(tcp.WRITE, b"seg-a", 1, 4096, 5, golden()) == GOLDEN_WRITE_REQUEST
    assert Grant.decode(GOLDEN_WRITE_REQUEST[-41:]) == golden()
    no_grant = tcp.encode_request(tcp.READ, b"seg-a", 1, 4096, 5)
    assert no_grant == bytes.fromhex(
        "4d435431" "02" "01" "0005" "0000000000000001" "0000000000001000" "0000000000000005" "00") + b"seg-a"


def test_a_grant_decodes_from_the_masters_replica_location():
    message = {"write": True, "offset": 4096, "length": 65536, "expiresAtMs": 1796000000000, "mac": GOLDEN_MAC}
    assert Grant.of_message(message) == golden()
    assert Grant.of_message(None) is None


@pytest.mark.parametrize("case, expected", [
    (lambda g: g.check(KEY, "seg-a", True, 4096, 65536, 0), Check.PERMITTED),
    (lambda g: g.check(KEY, "seg-a", True, 8192, 4096, 0), Check.PERMITTED),
    (lambda g: g.check(bytes(32), "seg-a", True, 4096, 5, 0), Check.FORGED),
    (lambda g: g.check(KEY, "seg-b", True, 4096, 5, 0), Check.FORGED),
    (lambda g: Grant(g.write, g.offset, g.length + 1, g.expires_at_ms, g.mac).check(KEY, "seg-a", True, 4096, 5, 0),
     Check.FORGED),
    (lambda g: g.check(KEY, "seg-a", True, 4096, 5, 1796000000000), Check.EXPIRED),
    (lambda g: g.check(KEY, "seg-a", False, 4096, 5, 0), Check.WRONG_OPERATION),
    (lambda g: g.check(KEY, "seg-a", True, 4095, 5, 0), Check.OUT_OF_RANGE),
    (lambda g: g.check(KEY, "seg-a", True, 4096, 65537, 0), Check.OUT_OF_RANGE),
    (lambda g: g.check(KEY, "seg-a", True, 4096 + 65536, 1, 0), Check.OUT_OF_RANGE),
], ids=["whole", "inside", "other-key", "other-segment", "altered", "expired", "other-op", "before", "longer",
        "after"])
def test_check(case, expected):
    assert case(golden()) is expected


@pytest.fixture
def guarded():
    server = SegmentServer("seg-g", 1 << 16, grant_key=KEY)
    requester = tcp.TcpRequester(timeout_s=5.0)
    yield server, requester
    requester.close()
    server.close()


def far():
    return int(time.time() * 1000) + 60_000


def test_the_segment_server_serves_requests_under_their_grants(guarded):
    server, requester = guarded
    write = Grant.sign(KEY, "seg-g", True, 1024, 4096, far())
    requester.write_from(server.address, "seg-g", 2048, memoryview(b"granted"), write)
    read = Grant.sign(KEY, "seg-g", False, 1024, 4096, far())
    out = bytearray(7)
    requester.read_into(server.address, "seg-g", 2048, memoryview(out), read)
    assert out == b"granted"


@pytest.mark.parametrize("op", [tcp.READ, tcp.WRITE], ids=["READ", "WRITE"])
@pytest.mark.parametrize("why", ["missing", "forged", "expired", "other-op", "out-of-range", "other-key"])
def test_the_segment_server_refuses_with_access_denied(guarded, op, why):
    server, requester = guarded
    write = op == tcp.WRITE
    grant = {
        "missing": None,
        "forged": Grant(write, 0, 4096, far(), bytes(16)),
        "expired": Grant.sign(KEY, "seg-g", write, 0, 4096, int(time.time() * 1000) - 1),
        "other-op": Grant.sign(KEY, "seg-g", not write, 0, 4096, far()),
        "out-of-range": Grant.sign(KEY, "seg-g", write, 0, 4096, far()),
        "other-key": Grant.sign(bytes(32), "seg-g", write, 0, 4096, far()),
    }[why]
    offset = 4000 if why == "out-of-range" else 100
    server.view[offset:offset + 200] = b"\x07" * 200
    view = memoryview(bytearray(200) if op == tcp.READ else b"\xee" * 200)
    with pytest.raises(tcp.TransferError, match="ACCESS_DENIED") as e:
        (requester.read_into if op == tcp.READ else requester.write_from)(server.address, "seg-g", offset, view, grant)
    assert e.value.status == tcp.ACCESS_DENIED and not e.value.in_doubt
    assert bytes(server.view[offset:offset + 200]) == b"\x07" * 200, "nothing written"
    if op == tcp.READ:
        assert bytes(view) == bytes(200), "nothing read"


def test_a_denied_write_closes_the_connection_and_a_version_1_request_has_no_grant(guarded):
    server, _ = guarded
    with socket.create_connection(("127.0.0.1", int(server.address.rsplit(":", 1)[1]))) as s:
        s.sendall(tcp.REQUEST_V1.pack(tcp.MAGIC, 1, tcp.READ, 5, 7, 0, 4) + b"seg-g")
        assert recv_exactly(s, tcp.RESPONSE.size) == tcp.RESPONSE.pack(tcp.MAGIC, tcp.ACCESS_DENIED, 7, 0)
        s.sendall(tcp.encode_request(tcp.WRITE, b"seg-g", 8, 0, 4) + b"abcd")
        assert recv_exactly(s, tcp.RESPONSE.size) == tcp.RESPONSE.pack(tcp.MAGIC, tcp.ACCESS_DENIED, 8, 0)
        try:
            assert s.recv(1) == b""
        except ConnectionResetError:
            pass  # a reset, with the payload unread, is a close too


def test_a_server_without_a_key_serves_requests_without_grants_of_either_version():
    server = SegmentServer("seg-open", 1 << 16)
    try:
        server.view[0:4] = b"open"
        with socket.create_connection(("127.0.0.1", int(server.address.rsplit(":", 1)[1]))) as s:
            s.sendall(tcp.REQUEST_V1.pack(tcp.MAGIC, 1, tcp.READ, 8, 1, 0, 4) + b"seg-open")
            assert recv_exactly(s, tcp.RESPONSE.size + 4) == tcp.RESPONSE.pack(tcp.MAGIC, 0, 1, 4) + b"open"
            s.sendall(tcp.encode_request(tcp.READ, b"seg-open", 2, 0, 4, golden()))
            assert recv_exactly(s, tcp.RESPONSE.size + 4) == tcp.RESPONSE.pack(tcp.MAGIC, 0, 2, 4) + b"open"
    finally:
        server.close()


def test_a_bad_grant_key_is_refused():
    with pytest.raises(ValueError, match="16 to 64 bytes"):
        SegmentServer("seg-short", 4096, grant_key=bytes(8))


def test_a_write_that_times_out_is_in_doubt_and_a_read_is_not():
    listener = socket.create_server(("127.0.0.1", 0))  # accepts, reads nothing, never answers
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    requester = tcp.TcpRequester(timeout_s=0.3)
    try:
        with pytest.raises(tcp.TransferError) as e:
            requester.write_from(address, "seg", 0, memoryview(b"x" * 10))
        assert e.value.in_doubt
        with pytest.raises(tcp.TransferError) as e:
            requester.read_into(address, "seg", 0, memoryview(bytearray(10)))
        assert not e.value.in_doubt
    finally:
        requester.close()
        listener.close()


def test_a_write_whose_connection_the_peer_closed_is_not_in_doubt():
    listener = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    requester = tcp.TcpRequester(timeout_s=5.0)

    def close_after_request():
        conn, _ = listener.accept()
        recv_exactly(conn, tcp.REQUEST.size)
        conn.close()

    t = threading.Thread(target=close_after_request)
    t.start()
    try:
        with pytest.raises(tcp.TransferError) as e:
            requester.write_from(address, "seg", 0, memoryview(b"x" * 10))
        assert not e.value.in_doubt
    finally:
        t.join()
        requester.close()
        listener.close()
