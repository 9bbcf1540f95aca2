"""The Pythonic client: the store's calls, raising :class:`~mooncake_osgi.errors.StoreError`
subclasses named like the Java ``ErrorCode``s.

What a call does on the wire is what the Java ``EmbeddedStoreClient`` does (docs/protocol.md):

- a put is two-phase: ``PUT_START`` places the replicas, the bytes go to every replica over the
  tcp transport, ``PUT_END`` records the XXH3-64 checksum (per 64 KiB chunk for larger objects);
  any failure in between sends ``PUT_REVOKE``, so a failed put leaves nothing half-visible (saying
  the writes are in doubt when a WRITE timed out, so the master keeps the blocks until the put's
  WRITE grants expired and a late WRITE lands nowhere it could harm);
- a get takes a lease (``GET_REPLICA_LIST``), reads a replica straight into the caller's memory,
  checks every byte against the recorded checksum and tries the next replica when a transfer
  fails or the bytes do not match; a read that outlives its lease is done again under a new one
  (the lease's end moved onto this process's clock with the master's ``serverTimeMs``);
- every transfer carries the grant the master issued for its replica;
- a process that contributes a segment (``global_segment_size`` > 0) serves it from a thread,
  mounts it with a fresh grant key (so the master signs grants for it and the server refuses
  requests without one), heartbeats, and mounts it again when the master's registration changes
  (a master that restarted has forgotten it).

Every buffer argument is anything with the buffer protocol (bytes, bytearray, memoryview, numpy
arrays) or a list of them, read as the concatenation of its parts.
"""

import logging
import math
import threading
import time
import uuid

from . import checksum, errors, grants
from .connect import TlsSettings
from .master import (MasterClient, chunk_checksums, int64, object_key, replicate_config_message, to_local_ms,
                     uint64)
from .segment import SegmentServer
from .tcp import TcpRequester, TransferError

LOG = logging.getLogger(__name__)
READ_ATTEMPTS = 3


def as_views(buffers):
    """A buffer, or a list of buffers, as a list of byte memoryviews (no copy)."""
    if isinstance(buffers, (list, tuple)):
        return [memoryview(b).cast("B") for b in buffers]
    return [memoryview(buffers).cast("B")]


class ReplicateConfig:
    """How a put places and protects an object: upstream's fields and this store's additions."""

    def __init__(self, replica_num=1, with_soft_pin=False, with_hard_pin=False, preferred_segment="",
                 preferred_segments=None, data_type="GENERAL", recompute_cost_ms=math.nan, group_id=None,
                 group_only=False, soft_pin_ttl_ms=0):
        self.replica_num = replica_num
        self.with_soft_pin = with_soft_pin
        self.with_hard_pin = with_hard_pin
        self.preferred_segment = preferred_segment
        self.preferred_segments = list(preferred_segments or [])
        self.data_type = data_type
        self.recompute_cost_ms = recompute_cost_ms
        self.group_id = group_id
        self.group_only = group_only
        self.soft_pin_ttl_ms = soft_pin_ttl_ms

    def message(self):
        preferred = ([self.preferred_segment] if self.preferred_segment else []) + [
            s for s in self.preferred_segments if s != self.preferred_segment]
        return replicate_config_message(
            replica_count=self.replica_num, soft_pin="ENABLE" if self.with_soft_pin else "PRESERVE",
            soft_pin_ttl_ms=self.soft_pin_ttl_ms, hard_pin=self.with_hard_pin, preferred_segments=preferred,
            data_type=self.data_type, recompute_cost_ms=self.recompute_cost_ms, group_id=self.group_id,
            group_only=self.group_only)

    def __repr__(self):
        return f"ReplicateConfig({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


DEFAULT_CONFIG = ReplicateConfig()


class StoreClient:
    """A connection to a store: the master at ``master_address`` and the segments it names."""

    def __init__(self, master_address, *, tenant="default", client_id=None, tls=None, global_segment_size=0,
                 local_hostname="127.0.0.1", rpc_timeout_s=5.0, io_timeout_s=30.0,
                 checksum_chunk_bytes=checksum.DEFAULT_CHUNK_BYTES, heartbeat_interval_s=1.0):
        if checksum_chunk_bytes < checksum.MIN_CHUNK_BYTES:
            raise ValueError(f"checksum chunk must be at least {checksum.MIN_CHUNK_BYTES} bytes")
        self.tenant = tenant
        self.client_id = client_id or f"py-{uuid.uuid4()}"
        self.checksum_chunk_bytes = checksum_chunk_bytes
        tls = tls if isinstance(tls, (TlsSettings, type(None))) else TlsSettings.of(tls)
        data_tls = None if tls is None else tls.for_data_path()
        self.master = MasterClient(master_address, rpc_timeout_s, tls)
        self.transport = TcpRequester(io_timeout_s, tls=data_tls)
        self.clock = time.time  # wall-clock seconds, compared with a lease's end moved onto this clock
        self.segment = None
        self._registration = None
        self._stop = threading.Event()
        self._heartbeat = None
        if global_segment_size > 0:
            self.segment = SegmentServer(f"{self.client_id}-seg", global_segment_size, bind_host=local_hostname,
                                         grant_key=grants.new_key(), tls=data_tls)
            self._mount()
            self._heartbeat = threading.Thread(target=self._beat, args=(heartbeat_interval_s,), daemon=True,
                                               name="mooncake-heartbeat")
            self._heartbeat.start()

    # -- lifecycle ---------------------------------------------------------------------------

    def _descriptor(self):
        return {"name": self.segment.name, "clientId": self.client_id, "sizeBytes": self.segment.size,
                "endpoints": [self.segment.endpoint()], "memoryKind": "HOST",
                "grantKey": {"bytes": self.segment.grant_key}}

    def _mount(self):
        self.master.call("MOUNT_SEGMENT", self._descriptor())
        self._registration = self.master.call("HEARTBEAT", self.client_id)

    def _beat(self, interval_s):
        while not self._stop.wait(interval_s):
            try:
                registration = self.master.call("HEARTBEAT", self.client_id)
                if registration != self._registration:
                    LOG.info("master registration changed: mounting segment %s again", self.segment.name)
                    try:
                        self._mount()
                    except errors.SegmentAlreadyExistsError:
                        self._registration = registration
            except errors.StoreError as e:
                LOG.warning("heartbeat to %s failed: %s", self.master.address, e)

    def close(self):
        """Unmounts this process's segment, leaves the master and closes every connection."""
        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join()
        try:
            if self.segment is not None:
                try:
                    self.master.call("UNMOUNT_SEGMENT", self.client_id, self.segment.name)
                finally:
                    self.master.call("LEAVE", self.client_id)
        finally:
            self.master.close()
            self.transport.close()
            if self.segment is not None:
                self.segment.close()
                self.segment = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _key(self, key):
        return object_key(self.tenant, key)

    # -- writes ------------------------------------------------------------------------------

    def put(self, key, value, config=DEFAULT_CONFIG, upsert=False):
        """Stores ``value`` (a buffer or a list of buffers, concatenated) under ``key``."""
        views = as_views(value)
        ticket = self.master.call("PUT_START", self.client_id, self._key(key), sum(len(v) for v in views),
                                  config.message(), upsert)
        self._finish_put(key, views, ticket)

    def _write_replicas(self, views, ticket):
        """Writes every replica of a ticket; returns (checksum, chunk sums or None), hashed from the
        first replica's slices while the peer receives each."""
        summer = checksum.Summer(sum(len(v) for v in views), self.checksum_chunk_bytes)
        for n, replica in enumerate(ticket["replicas"]):
            address = tcp_address(replica)
            grant = grants.Grant.of_message(replica.get("grant"))
            at = replica["offset"]
            for v in views:
                if len(v):
                    self.transport.write_from(address, replica["segmentName"], at, v, grant,
                                              summer.update if n == 0 else None)
                at += len(v)
        if not ticket["replicas"]:
            for v in views:
                summer.update(v)
        return summer.result()

    def _finish_put(self, key, views, ticket):
        put_id = ticket["putId"]
        in_doubt = False
        try:
            try:
                whole, sums = self._write_replicas(views, ticket)
            except TransferError as e:
                in_doubt = e.in_doubt
                raise errors.TransferFailError(f"put of {key}: {e}") from e
            self.master.call("PUT_END", self.client_id, self._key(key), put_id, int64(whole),
                             chunk_checksums(self.checksum_chunk_bytes, sums))
        except BaseException as e:
            try:
                # writes in doubt: the optional 4th argument, sent only when true (older masters take three)
                self.master.call("PUT_REVOKE", self.client_id, self._key(key), put_id, *([True] if in_doubt else []))
            except errors.StoreError as revoke_failed:
                e.add_note(f"and its revoke failed: {revoke_failed}")
            raise

    def put_batch(self, keys, values, config=DEFAULT_CONFIG, upsert=False):
        """Puts several objects with one placement and one completion call; per key None or the StoreError."""
        if len(keys) != len(values):
            raise errors.InvalidParamsError(f"{len(keys)} keys and {len(values)} values")
        views = [as_views(v) for v in values]
        started = self.master.call("PUT_START_BATCH", self.client_id, [self._key(k) for k in keys],
                                   [sum(len(p) for p in v) for v in views], config.message(), upsert)
        outcome = [None] * len(keys)
        completions, failed, in_doubt = [], [], []
        for i, result in enumerate(started):
            if result["error"] != "OK":
                outcome[i] = errors.error_named(result["error"], result.get("message") or keys[i])
                continue
            ticket = result["value"]
            try:
                whole, sums = self._write_replicas(views[i], ticket)
                completions.append((i, {"key": self._key(keys[i]), "putId": ticket["putId"], "checksum": int64(whole),
                                        "chunks": chunk_checksums(self.checksum_chunk_bytes, sums)}))
            except TransferError as e:
                outcome[i] = errors.TransferFailError(f"put of {keys[i]}: {e}")
                (in_doubt if e.in_doubt else failed).append(
                    {"key": self._key(keys[i]), "putId": ticket["putId"], "checksum": 0, "chunks": None})
        try:
            ended = self.master.call("PUT_END_BATCH", self.client_id, [c for _, c in completions]) if completions else []
        except errors.StoreError as e:
            ended = [{"error": e.name, "message": str(e)} for _ in completions]
        for (i, completion), result in zip(completions, ended):
            if result["error"] != "OK":
                outcome[i] = errors.error_named(result["error"], result.get("message") or keys[i])
                failed.append(completion)
        if failed:
            self.master.call("PUT_REVOKE_BATCH", self.client_id, failed)
        if in_doubt:
            self.master.call("PUT_REVOKE_BATCH", self.client_id, in_doubt, True)
        return outcome

    # -- reads -------------------------------------------------------------------------------

    def _lease(self, key):
        """A read lease of ``key``, its end (``localExpiresAtMs``) on this process's clock."""
        sent_ms = self.clock() * 1000
        lease, server_ms = self.master.call_timed("GET_REPLICA_LIST", self._key(key))
        return localize(lease, server_ms, sent_ms)

    def get(self, key):
        """The object as a new bytearray (verified)."""
        for attempt in range(1, READ_ATTEMPTS + 1):
            lease = self._lease(key)
            out = bytearray(lease["sizeBytes"])
            try:
                self._read(key, lease, [memoryview(out)])
                return out
            except errors.LeaseExpiredError:
                if attempt == READ_ATTEMPTS:
                    raise

    def get_into(self, key, target):
        """Reads the object into ``target`` (a writable buffer or list of them); returns its size."""
        views = as_views(target)
        for attempt in range(1, READ_ATTEMPTS + 1):
            lease = self._lease(key)
            try:
                return self._read_leased(key, lease, views)
            except errors.LeaseExpiredError:
                if attempt == READ_ATTEMPTS:
                    raise

    def _read_leased(self, key, lease, views):
        size = lease["sizeBytes"]
        room = sum(len(v) for v in views)
        if room < size:
            raise errors.BufferTooSmallError(f"{key} has {size} bytes, the buffer {room}")
        parts, left = [], size
        for v in views:
            if left == 0:
                break
            parts.append(v[:left])
            left -= len(parts[-1])
        self._read(key, lease, parts)
        return size

    def _read(self, key, lease, parts):
        """Reads a replica into ``parts`` (exactly the object's size), next replica on failure; each
        slice is hashed as it arrives, while the peer sends the next."""
        last = None
        for replica in lease["replicas"]:
            chunks = lease.get("chunks")
            summer = checksum.Summer(lease["sizeBytes"], chunks["chunkBytes"] if chunks else 1, chunks is not None)
            try:
                address = tcp_address(replica)
                grant = grants.Grant.of_message(replica.get("grant"))
                at = replica["offset"]
                for v in parts:
                    if len(v):
                        self.transport.read_into(address, replica["segmentName"], at, v, grant, summer.update)
                    at += len(v)
            except (TransferError, errors.TransferFailError) as e:
                LOG.info("replica of %s on %s failed, trying the next: %s", key, replica["segmentName"], e)
                last = errors.TransferFailError(f"get of {key} from {replica['segmentName']}: {e}")
                continue
            if self.clock() * 1000 >= lease["localExpiresAtMs"]:
                raise errors.LeaseExpiredError(f"read of {key} outlived its lease; the bytes may have been reused")
            if intact(lease, summer.result()):
                return
            last = errors.ChecksumMismatchError(f"replica of {key} on {replica['segmentName']} does not match its checksum")
        raise last or errors.InvalidReplicaError(f"object {key} has no replica")

    def get_batch_into(self, keys, targets):
        """Reads several objects, one lease call for all; per key its size or the StoreError."""
        if len(keys) != len(targets):
            raise errors.InvalidParamsError(f"{len(keys)} keys and {len(targets)} buffers")
        sent_ms = self.clock() * 1000
        leases, server_ms = self.master.call_timed("GET_REPLICA_LIST_BATCH", [self._key(k) for k in keys])
        out = []
        for key, target, result in zip(keys, targets, leases):
            if result["error"] != "OK":
                out.append(errors.error_named(result["error"], result.get("message") or key))
                continue
            try:
                out.append(self._read_leased(key, localize(result["value"], server_ms, sent_ms), as_views(target)))
            except errors.LeaseExpiredError:
                try:
                    out.append(self.get_into(key, target))
                except errors.StoreError as e:
                    out.append(e)
            except errors.StoreError as e:
                out.append(e)
        return out

    # -- metadata ----------------------------------------------------------------------------

    def exists(self, key):
        return self.master.call("EXISTS", self._key(key))

    def exists_batch(self, keys):
        """Per key True, False or the StoreError."""
        results = self.master.call("EXISTS_BATCH", [self._key(k) for k in keys])
        return [r["value"] if r["error"] == "OK" else errors.error_named(r["error"], r.get("message") or "")
                for r in results]

    def size(self, key):
        """The size of a complete object; ``ObjectNotFoundError`` when there is none."""
        info = self.master.call("QUERY_KEY", self._key(key))
        if info is None or info["state"] != "COMPLETE":
            raise errors.ObjectNotFoundError(f"no object {key}")
        return info["sizeBytes"]

    def query(self, key):
        """The master's ObjectInfo of ``key`` (a dict) or None; takes no lease."""
        return self.master.call("QUERY_KEY", self._key(key))

    def remove(self, key, force=False):
        self.master.call("REMOVE", self._key(key), force)

    def remove_by_regex(self, regex, force=False):
        """Removes this tenant's objects whose key matches ``regex`` (Java Pattern syntax); returns how many."""
        return self.master.call("REMOVE_BY_REGEX", self.tenant, regex, force)

    def remove_all(self, force=False):
        return self.master.call("REMOVE_ALL", self.tenant, force)

    def segments(self):
        return self.master.call("SEGMENTS")

    def stats(self):
        return self.master.call("STATS")


def localize(lease, server_time_ms, sent_local_ms):
    """``lease`` with ``localExpiresAtMs``: its end on this process's clock (grants stay as sent)."""
    lease["localExpiresAtMs"] = to_local_ms(lease["leaseExpiresAtMs"], server_time_ms, sent_local_ms)
    return lease


def tcp_address(replica):
    """The tcp endpoint's address of a replica; TRANSFER_FAIL when it is reachable over nothing else."""
    for endpoint in replica["endpoints"]:
        if endpoint["protocol"] == "tcp":
            return endpoint["address"]
    raise errors.TransferFailError(f"segment {replica['segmentName']} has no tcp endpoint "
                                   f"({[e['protocol'] for e in replica['endpoints']]})")


def intact(lease, summed):
    """Whether the (checksum, chunk sums) of bytes read match what the put recorded (per chunk
    where it recorded chunks)."""
    whole, sums = summed
    chunks = lease.get("chunks")
    if chunks is None:
        return whole == uint64(lease["checksum"])
    return sums == [uint64(s) for s in chunks["sums"]]
