"""The tcp transport's requester side (docs/protocol.md, section 2): one-sided READ and WRITE of a
range of a segment another process serves.

Zero copy where Python allows it: a READ's payload is received with ``recv_into`` straight into
the caller's memoryview, a WRITE's is sent with ``sendmsg`` from the caller's memoryview beside
the header. Connections are pooled per peer and reused; one on which a transfer failed is closed,
since its stream may be out of step.

Grants: the security work will have every request carry a grant the master issued for that
segment, range and operation. ``Grants.for_request`` is where one comes from; the wire format has
no slot for it yet, and this requester sends none.
"""

import itertools
import socket
import struct
import threading

from .connect import open_socket, recv_exactly, recv_exactly_into

MAGIC = 0x4D435431  # "MCT1"
VERSION = 1
READ = 1
WRITE = 2
STATUS = {0: "OK", -1: "NO_SEGMENT", -2: "OUT_OF_RANGE", -3: "FAILED"}
DEFAULT_CHUNK_BYTES = 4 << 20
REQUEST = struct.Struct(">IBBHqqq")
RESPONSE = struct.Struct(">Iiqq")


class TransferError(Exception):
    """A transfer that did not complete; the object's next replica may still be read."""


class Grants:
    """Where a request's grant will come from (none yet: the wire format has no field for it)."""

    def for_request(self, segment, offset, length, op):
        return None


class TcpRequester:
    def __init__(self, timeout_s=30.0, chunk_bytes=DEFAULT_CHUNK_BYTES, grants=None):
        self.timeout_s = timeout_s
        self.chunk_bytes = chunk_bytes
        self.grants = grants or Grants()
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
        return open_socket(address, self.timeout_s)

    def _give(self, address, sock):
        with self._lock:
            self._idle.setdefault(address, []).append(sock)

    def read_into(self, address, segment, offset, view):
        """Reads ``len(view)`` bytes at ``offset`` of ``segment`` into ``view``."""
        self._run(address, segment, offset, view, READ)

    def write_from(self, address, segment, offset, view):
        """Writes ``view`` at ``offset`` of ``segment``; returns once every byte is in the segment."""
        self._run(address, segment, offset, view, WRITE)

    def _run(self, address, segment, offset, view, op):
        name = segment.encode()
        try:
            sock = self._take(address)
        except OSError as e:
            raise TransferError(f"cannot reach {address}: {e}") from e
        try:
            for at in range(0, len(view), self.chunk_bytes):
                piece = view[at:at + self.chunk_bytes]
                self._slice(sock, name, offset + at, piece, op)
                if self.after_slice is not None:
                    self.after_slice(address, at + len(piece))
        except (OSError, TransferError) as e:
            sock.close()
            raise TransferError(f"{'READ' if op == READ else 'WRITE'} of {segment} at {address}: {e}") from e
        self._give(address, sock)

    def _slice(self, sock, name, offset, piece, op):
        request_id = next(self._ids)
        header = REQUEST.pack(MAGIC, VERSION, op, len(name), request_id, offset, len(piece)) + name
        if op == WRITE:
            send_all(sock, [header, piece])
        else:
            sock.sendall(header)
        magic, status, answered_id, length = RESPONSE.unpack(recv_exactly(sock, RESPONSE.size))
        if magic != MAGIC or answered_id != request_id:
            raise TransferError(f"bad response: magic {magic:#x}, id {answered_id} for {request_id}")
        if status != 0:
            raise TransferError(f"refused: {STATUS.get(status, status)}")
        if length != len(piece):
            raise TransferError(f"answered {length} bytes for {len(piece)}")
        if op == READ:
            recv_exactly_into(sock, piece)


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
