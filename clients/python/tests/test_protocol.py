"""The client against docs/protocol.md: every documented frame and checksum, byte for byte where
the encoding is fixed, by value where CBOR leaves the choice to the encoder (this client writes
definite-length maps, which the master reads; see the doc's "What the Java side reads")."""

import pathlib
import re
import socket

import cbor2
import pytest

from mooncake_osgi import checksum, errors, tcp
from mooncake_osgi.master import MasterClient, encode_frame, int64, replicate_config_message, uint64
from mooncake_osgi.grants import Grant
from mooncake_osgi.segment import SegmentServer
from mooncake_osgi.connect import recv_exactly

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "protocol.md"


def blocks(kind):
    """{name: bytes} of the doc's ``<!-- kind: name -->`` hex blocks."""
    text = DOC.read_text()
    out = {}
    for m in re.finditer(r"<!-- " + kind + r": (\S+)(?: (\S+))? -->\s*```hex\n(.*?)```", text, re.S):
        hexdigits = "".join(line.split("#", 1)[0].replace(" ", "") for line in m.group(3).splitlines())
        out[m.group(1)] = (bytes.fromhex(hexdigits), m.group(2))
    return out


FRAMES = {name: b for name, (b, _) in blocks("frame").items()}


def test_the_doc_has_the_frames_this_test_reads():
    assert {"master-hello-request", "master-get-replica-list-response", "tcp-read-request",
            "tcp-write-unknown-segment-response", "tcp-write-granted-request",
            "tcp-read-without-grant-response"} <= FRAMES.keys()
    assert len(FRAMES) >= 20


@pytest.mark.parametrize("name", sorted(n for n in FRAMES if n.startswith("master-")))
def test_master_frames_decode_and_reencode_to_the_same_values(name):
    frame = FRAMES[name]
    assert frame[:4] == b"MCR1"
    assert int.from_bytes(frame[4:8], "big") == len(frame) - 8
    body = cbor2.loads(frame[8:])
    again = encode_frame(body)
    assert cbor2.loads(again[8:]) == body or _nan_equal(cbor2.loads(again[8:]), body)


def _nan_equal(a, b):
    return repr(a) == repr(b)


def test_a_request_this_client_builds_is_the_docs_request():
    hello = cbor2.loads(FRAMES["master-hello-request"][8:])
    assert {k: hello[k] for k in ("id", "op", "args")} == {"id": 1, "op": "HELLO", "args": [3]}
    put_start = cbor2.loads(FRAMES["master-put-start-request"][8:])
    config = put_start["args"][3]
    assert repr(config) == repr(replicate_config_message()), "the Java default ReplicateConfig"
    assert list(config) == list(replicate_config_message()), "fields in the Java encoder's order"


def test_checksums_travel_as_signed_int64():
    response = cbor2.loads(FRAMES["master-get-replica-list-response"][8:])
    assert response["result"]["checksum"] == -4277888634134853864
    assert uint64(response["result"]["checksum"]) == 0xC4A1E2F3D5B60718
    assert int64(0xC4A1E2F3D5B60718) == -4277888634134853864
    assert cbor2.dumps(int64(0xC4A1E2F3D5B60718)) == bytes.fromhex("3b3b5e1d0c2a49f8e7")


@pytest.mark.parametrize("name", ["empty", "hello", "combined-chunks"])
def test_documented_checksums(name):
    data, expected = blocks("checksum")[name]
    assert expected.startswith("xxh3-64=")
    assert checksum.of(data) == int(expected.split("=")[1], 16)


def test_chunk_checksums_of_the_documented_object():
    data = bytes(i % 251 for i in range(8192))
    whole, sums = checksum.of_object(memoryview(data), 4096)
    assert sums == [0x7135FFA504F1BC71, 0x040C7B32B8767F94]
    assert whole == 0xEF6C63405CD26A42
    assert checksum.of_parts([memoryview(data)[:1000], memoryview(data)[1000:]], 4096) == (whole, sums)


DOC_GRANT_KEY = bytes(range(32))
DOC_SERVER_CLOCK_S = 1795999940.0  # the doc's server: a minute before its grant expires


def test_tcp_requests_are_the_docs_bytes():
    assert tcp.encode_request(tcp.READ, b"seg-1", 1, 4096, 5) == FRAMES["tcp-read-request"]
    assert tcp.encode_request(tcp.WRITE, b"seg-1", 2, 8192, 5) + b"world" == FRAMES["tcp-write-request"]
    grant = Grant.sign(DOC_GRANT_KEY, "seg-a", True, 4096, 65536, 1796000000000)
    assert tcp.encode_request(tcp.WRITE, b"seg-a", 6, 8192, 5, grant) + b"world" == FRAMES["tcp-write-granted-request"]
    assert tcp.encode_request(tcp.READ, b"seg-a", 7, 8192, 5) == FRAMES["tcp-read-without-grant-request"]


def exchange(server, names):
    """Sends each named request to ``server`` on one connection and checks the doc's response; then
    expects the connection closed (the last request is a refused WRITE)."""
    with socket.create_connection(("127.0.0.1", int(server.address.rsplit(":", 1)[1]))) as s:
        for name in names:
            s.sendall(FRAMES[name + "-request"])
            expected = FRAMES[name + "-response"]
            assert recv_exactly(s, len(expected)) == expected, name
        try:  # a refused WRITE closes the connection (a reset, with its payload unread, is allowed)
            assert s.recv(1) == b""
        except ConnectionResetError:
            pass


def test_the_python_segment_server_answers_the_docs_requests_with_the_docs_responses():
    plain = SegmentServer("seg-1", 65536)
    granted = SegmentServer("seg-a", 65536, grant_key=DOC_GRANT_KEY)
    granted.clock = lambda: DOC_SERVER_CLOCK_S
    try:
        plain.view[4096:4101] = b"hello"
        exchange(plain, ["tcp-read", "tcp-write", "tcp-read-out-of-range", "tcp-read-unknown-segment",
                         "tcp-write-unknown-segment"])
        assert bytes(plain.view[8192:8197]) == b"world"
        exchange(granted, ["tcp-write-granted", "tcp-read-without-grant", "tcp-write-unknown-segment"])
        assert bytes(granted.view[8192:8197]) == b"world"
    finally:
        plain.close()
        granted.close()


def test_the_requester_reads_and_writes_through_a_segment_server():
    server = SegmentServer("seg-r", 1 << 20, chunk_bytes=4096)
    requester = tcp.TcpRequester(chunk_bytes=4096)
    try:
        data = bytes(range(256)) * 64
        requester.write_from(server.address, "seg-r", 100, memoryview(data))
        out = bytearray(len(data))
        requester.read_into(server.address, "seg-r", 100, memoryview(out))
        assert out == data
        with pytest.raises(tcp.TransferError, match="OUT_OF_RANGE"):
            requester.read_into(server.address, "seg-r", (1 << 20) - 10, memoryview(bytearray(20)))
        with pytest.raises(tcp.TransferError, match="NO_SEGMENT"):
            requester.read_into(server.address, "other", 0, memoryview(bytearray(20)))
    finally:
        requester.close()
        server.close()


def test_a_master_answer_with_an_error_code_raises_the_named_exception():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    import threading

    def serve():
        conn, _ = listener.accept()
        with conn:
            conn.sendall(FRAMES["master-hello-refused-response"])

    t = threading.Thread(target=serve)
    t.start()
    client = MasterClient(f"127.0.0.1:{port}", 5.0)
    with pytest.raises(errors.InvalidVersionError) as e:
        client.call("STATS")
    assert e.value.code == -300 and "speaks 2 to 3" in str(e.value)
    t.join()
    listener.close()
