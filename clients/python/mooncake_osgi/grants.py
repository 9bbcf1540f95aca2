"""Data-path grants (docs/security.md): the master's permission to READ or WRITE a range of one
segment until a time, signed with the key the segment's owner gave the master at mount.

A requester copies the grant of a replica location (GET_REPLICA_LIST, PUT_START) into every tcp
request for that replica; the owner of the segment checks it (``Grant.check``) before touching a
byte. The mac is the first 16 bytes of HMAC-SHA256 under the segment's key over
``"mooncake-grant-1"``, the segment name (u16 big-endian length, UTF-8), the op (1 READ, 2 WRITE)
and offset, length and expiry as big-endian int64: the Java ``DataGrant``'s, byte for byte.

``expires_at_ms`` is the master's wall clock and reaches the owner unchanged: it is judged by the
owner's clock (clocks are assumed synchronised), never converted to the requester's.
"""

import enum
import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass

DOMAIN = b"mooncake-grant-1"
MAC_BYTES = 16
KEY_BYTES = 32
MIN_KEY_BYTES = 16
MAX_KEY_BYTES = 64
READ = 1
WRITE = 2
WIRE = struct.Struct(">bqqq16s")  # op, offset, length, expiresAtMs, mac: the tcp request's grant field
_SIGNED_TAIL = struct.Struct(">bqqq")


class Check(enum.Enum):
    """What a check found, as the Java ``DataGrant.Check``."""
    PERMITTED = "PERMITTED"
    FORGED = "FORGED"
    EXPIRED = "EXPIRED"
    WRONG_OPERATION = "WRONG_OPERATION"
    OUT_OF_RANGE = "OUT_OF_RANGE"


def new_key():
    """A fresh 32-byte grant key for a segment this process contributes."""
    return secrets.token_bytes(KEY_BYTES)


def signed_bytes(segment, write, offset, length, expires_at_ms):
    name = segment.encode("utf-8")
    if len(name) > 0xFFFF:
        raise ValueError("segment name too long")
    return (DOMAIN + struct.pack(">H", len(name)) + name
            + _SIGNED_TAIL.pack(WRITE if write else READ, offset, length, expires_at_ms))


def mac(key, data):
    return hmac.new(key, data, hashlib.sha256).digest()[:MAC_BYTES]


@dataclass(frozen=True)
class Grant:
    write: bool
    offset: int
    length: int
    expires_at_ms: int
    mac: bytes

    def __post_init__(self):
        if self.offset < 0 or self.length <= 0 or len(self.mac) != MAC_BYTES:
            raise ValueError("a grant has offset >= 0, length > 0 and a 16-byte mac")

    @staticmethod
    def sign(key, segment, write, offset, length, expires_at_ms):
        return Grant(write, offset, length, expires_at_ms,
                     mac(key, signed_bytes(segment, write, offset, length, expires_at_ms)))

    @staticmethod
    def of_message(message):
        """The grant of a replica location's ``grant`` map (None when the master sent none)."""
        if message is None:
            return None
        return Grant(bool(message["write"]), int(message["offset"]), int(message["length"]),
                     int(message["expiresAtMs"]), bytes(message["mac"]))

    def encode(self):
        """The tcp request's grant field (41 bytes)."""
        return WIRE.pack(WRITE if self.write else READ, self.offset, self.length, self.expires_at_ms, self.mac)

    @staticmethod
    def decode(field):
        op, offset, length, expires_at_ms, tag = WIRE.unpack(field)
        if op not in (READ, WRITE):
            raise ValueError(f"grant op {op}")
        return Grant(op == WRITE, offset, length, expires_at_ms, tag)

    def check(self, key, segment, request_write, request_offset, request_length, now_ms):
        """Whether this grant lets a request touch ``request_length`` bytes at ``request_offset``
        now: the signature first, so that a forged grant learns nothing else."""
        expected = mac(key, signed_bytes(segment, self.write, self.offset, self.length, self.expires_at_ms))
        if not hmac.compare_digest(expected, self.mac):
            return Check.FORGED
        if now_ms >= self.expires_at_ms:
            return Check.EXPIRED
        if request_write != self.write:
            return Check.WRONG_OPERATION
        if (request_offset < self.offset or request_length < 0
                or request_offset - self.offset > self.length - request_length):
            return Check.OUT_OF_RANGE
        return Check.PERMITTED

    def __repr__(self):
        return (f"Grant({'WRITE' if self.write else 'READ'} {self.length} bytes at {self.offset} "
                f"until {self.expires_at_ms}, mac {self.mac[:4].hex()}...)")
