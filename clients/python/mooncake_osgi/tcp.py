"""The tcp transport's requester side (docs/protocol.md, section 2): one-sided READ and WRITE of a
range of a segment another process serves.

Zero copy where Python allows it: a READ's payload is received with ``recv_into`` straight into
the caller's memoryview, a WRITE's is sent with ``sendmsg`` from the caller's memoryview beside
the header. Connections are pooled per peer and reused; one on which a transfer failed is closed,
since its stream may be out of step.

Requests are frame version 2: the version 1 header, then a grant length (0 or 41), the segment
name and the grant the master issued for the replica (``grants.Grant``), sent unchanged with every
slice of the transfer. With TLS settings, connections are mutual TLS 1.3 with the cluster CA.

A WRITE whose response does not come in time is reported *in doubt* (``TransferError.in_doubt``):
its bytes may still land later, so the put is revoked saying so and the master keeps the blocks
until the WRITE grants expired. A transfer whose connection the peer closed or reset, or that the
peer refused, is a plain failure.
"""

import itertools
import socket
import struct
import threading

from .connect import open_socket, recv_exactly, recv_exactly_into

MAGIC = 0x4D435431  # "MCT1"
VERSION = 2
VERSION_1 = 1
READ = 1
WRITE = 2
OK = 0
NO_SEGMENT = -1
OUT_OF_RANGE = -2
FAILED = -3
ACCESS_DENIED = -4
STATUS = {OK: "OK", NO_SEGMENT: "NO_SEGMENT", OUT_OF_RANGE: "OUT_OF_RANGE", FAILED: "FAILED",
          ACCESS_DENIED: "ACCESS_DENIED"}
DEFAULT_CHUNK_BYTES = 4 << 20
REQUEST_V1 = struct.Struct(">IBBHqqq")  # magic version op nameLength requestId offset length
REQUEST = struct.Struct(">IBBHqqqB")  # version 2: ... grantLength (0 or grants.WIRE.size)
RESPONSE = struct.Struct(">Iiqq")


class TransferError(Exception):
    """A transfer that did not complete; the object's next replica may still be read.
    ``in_doubt``: a WRITE that timed out, whose bytes may still land later."""

    def __init__(self, message, in_doubt=False, status=None):
        super().__init__(message)
        self.in_doubt = in_doubt
        self.status = status


def encode_request(op, name, request_id, offset, length, grant=None):
    """A version 2 request header with its name and grant (a WRITE's payload follows it)."""
    field = b"" if grant is None else grant.encode()
    return REQUEST.pack(MAGIC, VERSION, op, len(name), request_id, offset, length, len(field)) + name + field


class TcpRequester:
    def __init__(self, timeout_s=30.0, chunk_bytes=DEFAULT_CHUNK_BYTES, tls=None):
        self.timeout_s = timeout_s
        self.chunk_bytes = chunk_bytes
        self.tls = tls
        self._ids = itertools.count(1)
        self._idle = {}
        self._lock = threading.Lock()
        self.after_slice = None  # test hook: called with (address, bytes moved so far) after each slice

    def close(self):
        with self._lock:
            for socks in self._idle.values():
                for s in socks:
                    s.close()
            self._idle.clear()

    def _take(self, address):
        with self._lock:
            pool = self._idle.get(address)
            if pool:
                return pool.pop()
        return open_socket(address, self.timeout_s, self.tls)

    def _give(self, address, sock):
        with self._lock:
            self._idle.setdefault(address, []).append(sock)

    def read_into(self, address, segment, offset, view, grant=None, on_received=None):
        """Reads ``len(view)`` bytes at ``offset`` of ``segment`` into ``view`` under ``grant``. The
        requests of every slice leave at once (a peer answers a connection's requests in order), so
        the peer sends the next slice while ``on_received(slice)`` runs on the last one."""
        self._run(address, segment, offset, view, READ, grant, on_received)

    def write_from(self, address, segment, offset, view, grant=None, on_sent=None):
        """Writes ``view`` at ``offset`` of ``segment`` under ``grant``; returns once every byte is in
        the segment. ``on_sent(slice)`` runs after each slice is sent, while the peer receives it."""
        self._run(address, segment, offset, view, WRITE, grant, on_sent)

    def _run(self, address, segment, offset, view, op, grant, each):
        name = segment.encode()
        pieces = [(offset + at, view[at:at + self.chunk_bytes]) for at in range(0, len(view), self.chunk_bytes)]
        ids = [next(self._ids) for _ in pieces]
        try:
            sock = self._take(address)
        except OSError as e:
            raise TransferError(f"cannot reach {address}: {e}") from e
        try:
            if op == READ:
                sock.sendall(b"".join(encode_request(READ, name, i, at, len(piece), grant)
                                      for i, (at, piece) in zip(ids, pieces)))
            moved = 0
            for request_id, (at, piece) in zip(ids, pieces):
                if op == WRITE:
                    send_all(sock, [encode_request(WRITE, name, request_id, at, len(piece), grant), piece])
                    if each is not None:
                        each(piece)
                expect_response(sock, request_id, len(piece))
                if op == READ:
                    recv_exactly_into(sock, piece)
                    if each is not None:
                        each(piece)
                moved += len(piece)
                if self.after_slice is not None:
                    self.after_slice(address, moved)
        except (OSError, TransferError) as e:
            sock.close()
            in_doubt = getattr(e, "in_doubt", False) or (op == WRITE and isinstance(e, TimeoutError))
            raise TransferError(f"{'READ' if op == READ else 'WRITE'} of {segment} at {address}: {e}"
                                + (" (in doubt: the bytes may still land)" if in_doubt else ""),
                                in_doubt, getattr(e, "status", None)) from e
        self._give(address, sock)


def expect_response(sock, request_id, length):
    """Reads a response header: OK for ``length`` bytes of request ``request_id``, else TransferError."""
    magic, status, answered_id, answered = RESPONSE.unpack(recv_exactly(sock, RESPONSE.size))
    if magic != MAGIC or answered_id != request_id:
        raise TransferError(f"bad response: magic {magic:#x}, id {answered_id} for {request_id}")
    if status != OK:
        raise TransferError(f"refused: {STATUS.get(status, status)}", status=status)
    if answered != length:
        raise TransferError(f"answered {answered} bytes for {length}")


def send_all(sock, views):
    """Sends the buffers in order with ``sendmsg`` (gathering, no joined copy); TLS sockets fall back to sendall."""
    if not hasattr(sock, "sendmsg") or sock.__class__ is not socket.socket:
        for v in views:
            sock.sendall(v)
        return
    views = [memoryview(v).cast("B") for v in views]
    while views:
        sent = sock.sendmsg(views)
        while views and sent >= len(views[0]):
            sent -= len(views[0])
            views.pop(0)
        if views and sent:
            views[0] = views[0][sent:]
