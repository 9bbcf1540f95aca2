"""The master RPC (docs/protocol.md, section 1): MCR1 frames carrying one CBOR map each.

One connection per ``MasterClient``, opened on first use with ``HELLO`` (protocol 3). Calls are
sent and answered one at a time under a lock: the server answers a connection's requests in
order, so a response's ``id`` is checked against the request's rather than matched from a table.
An I/O error or a bad frame closes the connection and fails the call with ``RPC_FAIL``; the next
call opens a new one, as the Java client does.

Clocks: a request carries its budget as ``timeoutMs`` (relative, measured by the master from when
it read the frame) and ``deadlineMs`` 0, so a client whose clock differs from the master's is
served the same. A response carries ``serverTimeMs``, the master's wall clock when it answered;
``call_timed`` returns it beside the result, so that a master time the client compares with its own
clock (a lease's end) can be moved onto the client's clock (``to_local_ms``).
"""

import itertools
import math
import struct
import threading

import cbor2

from . import errors
from .connect import open_socket, recv_exactly

MAGIC = 0x4D435231  # "MCR1"
PROTOCOL_VERSION = 3
DEFAULT_MAX_FRAME_BYTES = 16 << 20
_HEADER = struct.Struct(">Ii")


def int64(value):
    """An unsigned 64-bit value (a checksum) as the signed int64 the master RPC carries."""
    return value - (1 << 64) if value >= 1 << 63 else value


def uint64(value):
    return value + (1 << 64) if value < 0 else value


def encode_frame(body):
    """One frame: magic, length, the CBOR of ``body``."""
    payload = cbor2.dumps(body)
    return _HEADER.pack(MAGIC, len(payload)) + payload


def object_key(tenant, key):
    return {"tenant": tenant, "key": key}


def chunk_checksums(chunk_bytes, sums):
    return None if sums is None else {"chunkBytes": chunk_bytes, "sums": [int64(s) for s in sums]}


class MasterClient:
    """Calls on the master at ``address`` (``host:port``); thread-safe."""

    def __init__(self, address, timeout_s=5.0, tls=None, max_frame_bytes=DEFAULT_MAX_FRAME_BYTES):
        self.address = address
        self.timeout_s = timeout_s
        self.tls = tls
        self.max_frame_bytes = max_frame_bytes
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._sock = None

    def close(self):
        with self._lock:
            self._drop()

    def _drop(self):
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def _connected(self):
        if self._sock is None:
            self._sock = open_socket(self.address, self.timeout_s, self.tls)
            version = self._exchange("HELLO", [PROTOCOL_VERSION]).get("result")
            if version != PROTOCOL_VERSION:
                self._drop()
                raise errors.InvalidVersionError(f"master answered HELLO {PROTOCOL_VERSION} with {version}")
        return self._sock

    def call(self, op, *args):
        """The result of ``op``; a refusal raises the StoreError of its code, a broken link ``RpcFailError``."""
        return self.call_timed(op, *args)[0]

    def call_timed(self, op, *args):
        """``op``'s result and the master's ``serverTimeMs`` (None from a master that sends none)."""
        with self._lock:
            try:
                self._connected()
                response = self._exchange(op, list(args))
                return response.get("result"), response.get("serverTimeMs")
            except (OSError, ValueError, cbor2.CBORDecodeError) as e:
                self._drop()
                raise errors.RpcFailError(f"{op} to master {self.address}: {e}") from e

    def _exchange(self, op, args):
        request_id = next(self._ids)
        self._sock.sendall(encode_frame({"id": request_id, "op": op, "timeoutMs": int(self.timeout_s * 1000),
                                         "deadlineMs": 0, "args": args}))
        magic, length = _HEADER.unpack(recv_exactly(self._sock, _HEADER.size))
        if magic != MAGIC or length < 0 or length > self.max_frame_bytes:
            raise ValueError(f"bad response frame: magic {magic:#x}, length {length}")
        response = cbor2.loads(recv_exactly(self._sock, length))
        if not isinstance(response, dict) or response.get("id") != request_id:
            raise ValueError(f"response {response!r:.200} does not answer request {request_id}")
        code = response.get("code", 0)
        if code != 0:
            if op == "HELLO":
                self._drop()
            raise errors.error(code, response.get("message") or op)
        return response


def to_local_ms(master_ms, server_time_ms, sent_local_ms):
    """A master wall-clock time on the local clock: the local time the request was sent plus how
    far ahead of the master's answer it lies (early by the round trip, the safe side for a lease's
    end). A master that sends no ``serverTimeMs`` is taken to share the local clock."""
    if server_time_ms is None:
        return master_ms
    return sent_local_ms + (master_ms - server_time_ms)


def replicate_config_message(replica_count=1, soft_pin="PRESERVE", soft_pin_ttl_ms=0, hard_pin=False,
                             preferred_segments=(), data_type="GENERAL", recompute_cost_ms=math.nan,
                             group_id=None, group_only=False):
    """A ReplicateConfig as the master reads it, every field sent (a missing one reads as 0)."""
    return {
        "replicaCount": int(replica_count),
        "softPin": soft_pin,
        "softPinTtlMs": int(soft_pin_ttl_ms),
        "hardPin": bool(hard_pin),
        "preferredSegments": list(preferred_segments),
        "dataType": data_type,
        "recomputeCostMs": float(recompute_cost_ms),
        "groupId": group_id,
        "groupOnly": bool(group_only),
    }
