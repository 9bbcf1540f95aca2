"""A segment contributed by this Python process, served over the tcp wire format (docs/protocol.md,
section 2) by a server thread: the memory other processes read and write by offset.

The segment is an anonymous ``mmap`` of ``global_segment_size`` bytes (pages are only backed once
written). One thread accepts; each connection gets a thread that answers its requests one at a
time, receiving a WRITE's payload straight into the segment and sending a READ's from it.
Malformed requests close the connection without a response, as the Java server does. Requests
of frame version 2 and 1 are served (a version 1 request carries no grant).

Grants: a server made with a ``grant_key`` (the key the owner sends the master in
``MOUNT_SEGMENT``) answers ``ACCESS_DENIED`` to every request whose grant is missing or does not
check ``PERMITTED`` (``check_grant``: signature, expiry by this process's wall clock, operation,
range), and closes the connection after a denied WRITE, whose payload has nowhere to go. With TLS
settings, connections are mutual TLS 1.3: the requester must show a certificate of the cluster CA.
"""

import logging
import mmap
import socket
import threading
import time

from . import grants, tcp
from .connect import recv_exactly, recv_exactly_into

LOG = logging.getLogger(__name__)
MAX_NAME_BYTES = 1024
HANDSHAKE_TIMEOUT_S = 30.0


class SegmentServer:
    def __init__(self, name, size, bind_host="127.0.0.1", advertised_host=None, port=0,
                 chunk_bytes=tcp.DEFAULT_CHUNK_BYTES, grant_key=None, tls=None):
        if size <= 0:
            raise ValueError(f"a segment has a positive size, not {size}")
        if grant_key is not None and not grants.MIN_KEY_BYTES <= len(grant_key) <= grants.MAX_KEY_BYTES:
            raise ValueError(f"a grant key has {grants.MIN_KEY_BYTES} to {grants.MAX_KEY_BYTES} bytes")
        self.name = name
        self.size = size
        self.chunk_bytes = chunk_bytes
        self.grant_key = grant_key
        self.clock = time.time  # wall-clock seconds: a grant's expiry is the master's wall clock, in ms
        self._tls = None if tls is None else tls.server_context()
        self.memory = mmap.mmap(-1, size)
        self.view = memoryview(self.memory)
        self._listener = socket.create_server((bind_host, port))
        self.address = f"{advertised_host or bind_host}:{self._listener.getsockname()[1]}"
        self._open = set()
        self._workers = set()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name=f"mooncake-segment-{name}", daemon=True)
        self._thread.start()

    def endpoint(self):
        return {"protocol": "tcp", "address": self.address, "segmentName": self.name}

    def check_grant(self, op, offset, length, grant):
        """Whether a request may touch this range: ``grants.Check.PERMITTED`` or why not. Without a
        grant key every request may; with one, only under a grant the master signed with it."""
        if self.grant_key is None:
            return grants.Check.PERMITTED
        if grant is None:
            return None
        return grant.check(self.grant_key, self.name, op == tcp.WRITE, offset, length, int(self.clock() * 1000))

    def close(self):
        self._closed = True
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        except OSError:
            pass
        self._listener.close()
        with self._lock:
            for c in list(self._open):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                c.close()
        self._thread.join(5)
        with self._lock:
            workers = list(self._workers)
        for w in workers:  # each lets go of the segment's memory before it is unmapped
            w.join(5)
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
            worker = threading.Thread(target=self._serve, args=(conn,), daemon=True,
                                      name=f"mooncake-segment-{self.name}-conn")
            with self._lock:
                self._workers.add(worker)
            worker.start()

    def _serve(self, conn):
        try:
            if self._tls is not None:
                conn.settimeout(HANDSHAKE_TIMEOUT_S)
                plain, conn = conn, self._tls.wrap_socket(conn, server_side=True)
                with self._lock:
                    self._open.discard(plain)
                    self._open.add(conn)
                conn.settimeout(None)
            while self._serve_one(conn):
                pass
        except (OSError, ConnectionError, ValueError) as e:
            LOG.debug("segment %s: connection ends: %s", self.name, e)
        finally:
            with self._lock:
                self._open.discard(conn)
                self._workers.discard(threading.current_thread())
            conn.close()

    def _serve_one(self, conn):
        try:
            header = recv_exactly(conn, tcp.REQUEST_V1.size)
        except ConnectionError:
            return False  # the requester closed between requests
        magic, version, op, name_len, request_id, offset, length = tcp.REQUEST_V1.unpack(header)
        if (magic != tcp.MAGIC or version not in (tcp.VERSION_1, tcp.VERSION) or op not in (tcp.READ, tcp.WRITE)
                or not 0 < name_len <= MAX_NAME_BYTES or offset < 0 or not 0 < length <= self.chunk_bytes):
            return False
        grant_len = recv_exactly(conn, 1)[0] if version == tcp.VERSION else 0
        if grant_len not in (0, grants.WIRE.size):
            return False
        name = bytes(recv_exactly(conn, name_len)).decode("utf-8", "replace")
        grant = grants.Grant.decode(recv_exactly(conn, grant_len)) if grant_len else None
        status = tcp.OK
        if name != self.name:
            status = tcp.NO_SEGMENT
        else:
            verdict = self.check_grant(op, offset, length, grant)
            if verdict is not grants.Check.PERMITTED:
                LOG.info("segment %s: %s of %d bytes at %d refused: %s", self.name,
                         "WRITE" if op == tcp.WRITE else "READ", length, offset,
                         "no grant" if verdict is None else verdict.value)
                status = tcp.ACCESS_DENIED
            elif offset + length > self.size:
                status = tcp.OUT_OF_RANGE
        if status != tcp.OK:
            conn.sendall(tcp.RESPONSE.pack(tcp.MAGIC, status, request_id, 0))
            return op == tcp.READ  # a refused WRITE's payload has nowhere to go
        with self.view[offset:offset + length] as target:
            if op == tcp.WRITE:
                recv_exactly_into(conn, target)
                conn.sendall(tcp.RESPONSE.pack(tcp.MAGIC, 0, request_id, length))
            else:
                tcp.send_all(conn, [tcp.RESPONSE.pack(tcp.MAGIC, 0, request_id, length), target])
        return True
