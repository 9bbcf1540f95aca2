"""Object checksums (docs/protocol.md, section 3): XXH3-64, seed 0, whole or per chunk.

An object larger than the writer's chunk (default 65536 bytes, at least 4096) gets one checksum
per chunk, and its checksum is the XXH3-64 of those sums as little-endian 64-bit words. Hashing
reads the caller's memory through memoryviews: nothing is copied.
"""

import struct

import xxhash

DEFAULT_CHUNK_BYTES = 64 << 10
MIN_CHUNK_BYTES = 4096


def of(view):
    """XXH3-64 of a buffer, as an unsigned int."""
    return xxhash.xxh3_64_intdigest(view)


def of_chunks(view, chunk_bytes):
    """The XXH3-64 of each ``chunk_bytes`` piece of ``view`` (the last may be shorter)."""
    return [xxhash.xxh3_64_intdigest(view[at:at + chunk_bytes]) for at in range(0, len(view), chunk_bytes)]


def combine(sums):
    """An object's checksum from its chunks' sums."""
    return xxhash.xxh3_64_intdigest(struct.pack(f"<{len(sums)}Q", *sums))


def of_object(view, chunk_bytes=DEFAULT_CHUNK_BYTES):
    """(checksum, chunk sums or None) as a put reports them for an object of ``len(view)`` bytes."""
    if len(view) <= chunk_bytes:
        return of(view), None
    sums = of_chunks(view, chunk_bytes)
    return combine(sums), sums


class _Chunker:
    """XXH3-64 per chunk over a sequence of buffers that need not align with the chunks."""

    def __init__(self, chunk_bytes):
        self.chunk_bytes = chunk_bytes
        self.sums = []
        self._hasher = xxhash.xxh3_64()
        self._filled = 0

    def update(self, view):
        at = 0
        while at < len(view):
            take = min(self.chunk_bytes - self._filled, len(view) - at)
            self._hasher.update(view[at:at + take])
            self._filled += take
            at += take
            if self._filled == self.chunk_bytes:
                self._finish_chunk()

    def _finish_chunk(self):
        self.sums.append(self._hasher.intdigest())
        self._hasher.reset()
        self._filled = 0

    def finish(self):
        if self._filled:
            self._finish_chunk()
        return self.sums


class Summer:
    """:func:`of_object` of an object of ``total`` bytes fed in order, piece by piece (a put feeds
    each slice while it waits for the peer's answer)."""

    def __init__(self, total, chunk_bytes=DEFAULT_CHUNK_BYTES, chunked=None):
        """``chunked``: per-chunk sums (True) or one whole sum (False); default: as a put decides."""
        chunked = total > chunk_bytes if chunked is None else chunked
        self._chunker = _Chunker(chunk_bytes) if chunked else None
        self._whole = xxhash.xxh3_64() if self._chunker is None else None

    def update(self, view):
        (self._whole if self._chunker is None else self._chunker).update(view)

    def result(self):
        """(checksum, chunk sums or None)."""
        if self._chunker is None:
            return self._whole.intdigest(), None
        sums = self._chunker.finish()
        return combine(sums), sums


def of_parts(views, chunk_bytes=DEFAULT_CHUNK_BYTES):
    """:func:`of_object` of the concatenation of ``views``, without concatenating them."""
    summer = Summer(sum(len(v) for v in views), chunk_bytes)
    for v in views:
        summer.update(v)
    return summer.result()
