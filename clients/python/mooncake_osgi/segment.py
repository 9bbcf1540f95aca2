"""A segment contributed by this Python process, served over the tcp wire format (docs/protocol.md,
section 2) by a server thread: the memory other processes read and write by offset.

The segment is an anonymous ``mmap`` of ``global_segment_size`` bytes (pages are only backed once
written). One thread accepts; each connection gets a thread that answers its requests one at a
time, receiving a WRITE's payload straight into the segment and sending a READ's from it.
Malformed requests close the connection without a response, as the Java server does.

Grants: ``check_grant`` is where the security work's per-request grant will be verified (the
wire format has no field for it yet); it accepts every request today.
"""

import logging
import mmap
import socket
import threading

from . import tcp
from .connect import recv_exactly, recv_exactly_into

LOG = logging.getLogger(__name__)
MAX_NAME_BYTES = 1024


class SegmentServer:
    def __init__(self, name, size, bind_host="127.0.0.1", advertised_host=None, port=0,
                 chunk_bytes=tcp.DEFAULT_CHUNK_BYTES):
        if size <= 0:
            raise ValueError(f"a segment has a positive size, not {size}")
        self.name = name
        self.size = size
        self.chunk_bytes = chunk_bytes
        self.memory = mmap.mmap(-1, size)
        self.view = memoryview(self.memory)
        self._listener = socket.create_server((bind_host, port))
        self.address = f"{advertised_host or bind_host}:{self._listener.getsockname()[1]}"
        self._open = set()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name=f"mooncake-segment-{name}", daemon=True)
        self._thread.start()

    def endpoint(self):
        return {"protocol": "tcp", "address": self.address, "segmentName": self.name}

    def check_grant(self, op, offset, length, grant):
        """Whether a request may touch this range (no grants on the wire yet: every request may)."""
        return True

    def close(self):
        self._closed = True
        self._listener.close()
        with self._lock:
            for c in list(self._open):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                c.close()
        self._thread.join(5)
        self.view.release()
        self.memory.close()

    def _accept(self):
        while not self._closed:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._open.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True, name=f"mooncake-segment-{self.name}-conn").start()

    def _serve(self, conn):
        try:
            while self._serve_one(conn):
                pass
        except (OSError, ConnectionError, ValueError) as e:
            LOG.debug("segment %s: connection ends: %s", self.name, e)
        finally:
            with self._lock:
                self._open.discard(conn)
            conn.close()

    def _serve_one(self, conn):
        try:
            header = recv_exactly(conn, tcp.REQUEST.size)
        except ConnectionError:
            return False  # the requester closed between requests
        magic, version, op, name_len, request_id, offset, length = tcp.REQUEST.unpack(header)
        if (magic != tcp.MAGIC or version != tcp.VERSION or op not in (tcp.READ, tcp.WRITE)
                or not 0 < name_len <= MAX_NAME_BYTES or offset < 0 or not 0 < length <= self.chunk_bytes):
            return False
        name = bytes(recv_exactly(conn, name_len)).decode("utf-8", "replace")
        if not self.check_grant(op, offset, length, None):
            return False  # a request without its grant is not answered
        status = 0
        if name != self.name:
            status = -1
        elif offset + length > self.size:
            status = -2
        if status != 0:
            conn.sendall(tcp.RESPONSE.pack(tcp.MAGIC, status, request_id, 0))
            return op == tcp.READ  # a refused WRITE's payload has nowhere to go
        target = self.view[offset:offset + length]
        if op == tcp.WRITE:
            recv_exactly_into(conn, target)
            conn.sendall(tcp.RESPONSE.pack(tcp.MAGIC, 0, request_id, length))
        else:
            tcp.send_all(conn, [tcp.RESPONSE.pack(tcp.MAGIC, 0, request_id, length), target])
        target.release()
        return True
