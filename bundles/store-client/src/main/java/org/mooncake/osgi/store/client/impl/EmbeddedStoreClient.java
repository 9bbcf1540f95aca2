package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.RangeCopy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.DeviceMemoryException;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * The client: asks the master where, moves bytes through a transport, and never lets a torn or
 * corrupt object through: a put is published only after every replica is written (else it is
 * revoked), and a get checks the checksum (XXH3-64) recorded at put before it returns a byte; a read that
 * outlives its lease is made again under a fresh one (twice at most), then fails with LEASE_EXPIRED.
 *
 * <p>Device memory ({@link #putFromDevice}, {@link #getIntoDevice}) is staged through host
 * buffers ({@link StagingBuffers}): the calling thread holds one for the whole operation, copies
 * each piece between it and the device through the {@link DeviceMemory} of the buffer's kind,
 * and moves it with the same transfers and checksums as a host payload.
 *
 * <p>Thread-safe; holds no lock while bytes move.
 */
public final class EmbeddedStoreClient implements StoreClient {
    private static final System.Logger LOG = System.getLogger(EmbeddedStoreClient.class.getName());
    private final MasterService master;
    private final Transports transports;
    private final String clientId;
    private final String tenant;
    private final String protocol;
    private final InstantSource clock;
    private final Set<MemorySegment> registered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger segmentSeq = new AtomicInteger();
    /** Why the last heartbeat failed; null when it got through. */
    private volatile String heartbeatFailure;
    /** The segments this client contributes, and what the master knows of them. */
    private final ContributedSegments contributed;
    /** The DeviceMemory services bound, by kind (DS, any thread). */
    private final DeviceMemories devices = new DeviceMemories();
    private final Set<DeviceBuffer> registeredDevice = ConcurrentHashMap.newKeySet();
    /** Host buffers device payloads travel through; replaced whole by {@link #deviceStaging}. */
    private volatile StagingBuffers staging;
    /** Checksum chunk of the objects this client writes; any thread may change it, each put reads it once. */
    private volatile long checksumChunkBytes = DEFAULT_CHECKSUM_CHUNK_BYTES;

    /**
     * A ranged read of an object larger than this moves whole chunks only: a tensor header is
     * checked by moving 64 KiB, not the payload. Smaller chunks cost the master more metadata
     * (8 bytes a chunk) and a transfer a call per chunk.
     */
    static final long DEFAULT_CHECKSUM_CHUNK_BYTES = 64 << 10;
    /** Bytes of each host staging buffer of device payloads ({@code device.staging.bytes}). */
    static final long DEFAULT_STAGING_BYTES = 64L << 20;
    /** How many device puts and gets may stage at once ({@code device.staging.buffers}); the next waits. */
    static final int DEFAULT_STAGING_BUFFERS = 4;

    EmbeddedStoreClient(MasterService master, Transports transports, String clientId, String tenant, String protocol,
            InstantSource clock) {
        ObjectKey.validateTenant(tenant);
        this.master = master;
        this.transports = transports;
        this.clientId = clientId;
        this.tenant = tenant;
        this.protocol = protocol;
        this.clock = clock;
        this.contributed = new ContributedSegments(master, transports, clientId);
        this.staging = newStaging(DEFAULT_STAGING_BYTES, DEFAULT_STAGING_BUFFERS);
    }

    private StagingBuffers newStaging(long bytes, int buffers) {
        return new StagingBuffers(bytes, buffers, this::registerBuffer, this::unregisterBuffer);
    }

    /**
     * Sets the host staging of device payloads: up to {@code buffers} buffers of {@code bytes}
     * each (allocated when first needed). Operations under way finish on their old buffers, which
     * are then freed.
     */
    public void deviceStaging(long bytes, int buffers) {
        StoreException.require(bytes >= ChunkChecksums.MIN_CHUNK_BYTES && buffers >= 1, "device staging needs buffers"
                + " of at least " + ChunkChecksums.MIN_CHUNK_BYTES + " bytes and at least one, not " + buffers + " of "
                + bytes);
        StagingBuffers old = staging;
        staging = newStaging(bytes, buffers);
        old.close();
    }

    /** Frees the staging buffers (the owner's deactivation); a device put or get after this fails. */
    public void closeDeviceStaging() {
        staging.close();
    }

    /** A {@link DeviceMemory} service is available: buffers of its kind can be moved (DS, any thread). */
    public void bindDeviceMemory(DeviceMemory memory) {
        devices.add(memory);
    }

    public void unbindDeviceMemory(DeviceMemory memory) {
        devices.remove(memory);
    }

    /** A client over the given transports (for tests and embedding without OSGi). */
    public static EmbeddedStoreClient create(MasterService master, List<Transport> transports, String clientId,
            String tenant, String protocol, InstantSource clock) {
        Transports t = new Transports();
        transports.forEach(t::add);
        return new EmbeddedStoreClient(master, t, clientId, tenant, protocol, clock);
    }

    String clientId() {
        return clientId;
    }

    /**
     * Sets the checksum chunk of later puts: an object larger than this records one checksum per
     * chunk, and a ranged read of it moves only the chunks its ranges touch. At least {@link
     * ChunkChecksums#MIN_CHUNK_BYTES}.
     */
    public void checksumChunkBytes(long bytes) {
        StoreException.require(bytes >= ChunkChecksums.MIN_CHUNK_BYTES,
                "checksum chunk must be at least " + ChunkChecksums.MIN_CHUNK_BYTES + " bytes, was " + bytes);
        checksumChunkBytes = bytes;
    }

    @Override
    public String tenant() {
        return tenant;
    }

    @Override
    public List<TransferStats> transferStats() {
        return transports.transferStats();
    }

    /** See {@link #unhealthyReason}. */
    @Override
    public boolean isHealthy() {
        return unhealthyReason() == null;
    }

    /**
     * Why this client is unhealthy, or null when it is not: the last heartbeat failed, or a
     * segment it contributes is not held by the master (not mounted yet, refused when mounted
     * again) or is served by no transport. A pure client, with no segment, is healthy while the
     * master answers. Answers from state at hand, without asking the master.
     */
    public String unhealthyReason() {
        List<String> why = new ArrayList<>();
        String failed = heartbeatFailure;
        if (failed != null) {
            why.add(failed);
        }
        new TreeMap<>(contributed.notContributing()).forEach((segment, reason) ->
                why.add("segment " + segment + " contributes nothing: " + reason));
        return why.isEmpty() ? null : String.join("; ", why);
    }

    /**
     * Reports liveness to the master; called by the owner's scheduler. Each segment the master no
     * longer holds is mounted again: after a master restart, after it declared this client dead
     * (a new registration), or after another caller unmounted it; the objects it held are gone.
     */
    public void heartbeat() {
        try {
            contributed.heard(master.heartbeat(clientId));
            heartbeatFailure = null;
        } catch (RuntimeException e) {
            heartbeatFailure = "the last heartbeat failed: " + e.getMessage();
        }
    }

    private ObjectKey key(String key) {
        return new ObjectKey(tenant, key);
    }

    // ---- put ----

    @Override
    public void put(String key, byte[] value, ReplicateConfig config) {
        StoreException.require(value != null, "value is null");
        write(key, MemorySegment.ofArray(value), config, false);
    }

    @Override
    public void upsert(String key, byte[] value, ReplicateConfig config) {
        StoreException.require(value != null, "value is null");
        write(key, MemorySegment.ofArray(value), config, true);
    }

    @Override
    public void putFrom(String key, MemorySegment source, ReplicateConfig config) {
        write(key, source, config, false);
    }

    @Override
    public void upsertFrom(String key, MemorySegment source, ReplicateConfig config) {
        write(key, source, config, true);
    }

    private void write(String key, MemorySegment source, ReplicateConfig config, boolean upsert) {
        StoreException.require(source != null, "source is null");
        write(key, source.byteSize(), config, upsert, put -> writeReplicas(source, put));
    }

    /** Starts a put of {@code size} bytes, writes its replicas with {@code writer}, ends it, or revokes it on any failure. */
    private void write(String key, long size, ReplicateConfig config, boolean upsert, Function<PutTicket, Written> writer) {
        ObjectKey k = key(key);
        StoreException.require(config != null, "replicate config is null");
        PutTicket put = master.putStart(clientId, k, size, config, upsert);
        try {
            Written w = writer.apply(put);
            master.putEnd(clientId, k, put.putId(), w.checksum(), w.chunks());
        } catch (RuntimeException e) {
            try {
                master.putRevoke(clientId, k, put.putId(), TransferInDoubt.in(e));
            } catch (RuntimeException revokeFailed) {
                e.addSuppressed(revokeFailed);
            }
            throw e;
        }
    }

    /** What a put-end reports: the object's checksum, and its chunk checksums when it has more than one chunk. */
    private record Written(long checksum, ChunkChecksums chunks) {
    }

    /**
     * Writes every replica and returns the checksums. A large object's are computed on another
     * thread while its bytes travel (both only read the source), unless the first replica's
     * transport computes them in the same pass as its copy; a smaller one's by the transport
     * beside its copy where it can, else here afterwards. An object larger than the checksum
     * chunk gets one checksum per chunk.
     */
    private Written writeReplicas(MemorySegment source, PutTicket put) {
        long chunk = checksumChunkBytes;
        boolean chunked = source.byteSize() > chunk;
        return written(writeAt(source, put, 0, chunk, chunked), chunk, chunked);
    }

    /** What a put-end reports for these checksums: {@link #writeAt}'s one, or the chunks'. */
    private static Written written(long[] sums, long chunk, boolean chunked) {
        if (!chunked) {
            return new Written(sums[0], null);
        }
        ChunkChecksums chunks = new ChunkChecksums(chunk, sums);
        return new Written(Checksums.combine(chunks), chunks);
    }

    /**
     * Writes {@code source} at byte {@code at} of every replica and returns its checksums: one of
     * all of it, or (when {@code chunked}; {@code at} a multiple of {@code chunk}) one per chunk.
     * An aside checksum still reading the source when a transfer fails is waited for, so the
     * caller may reuse the source (a staging buffer) once this returns or throws.
     */
    private long[] writeAt(MemorySegment source, PutTicket put, long at, long chunk, boolean chunked) {
        java.util.concurrent.CompletableFuture<?> aside = null;
        if (Checksums.worthAside(source) && !firstTransport(put).checksumsInOnePass()) {
            aside = chunked ? Checksums.ofChunksAside(source, chunk) : Checksums.aside(source);
        }
        Transports.Reported moved;
        try {
            moved = transports.runAll(writes(source, put, at, aside == null, chunked ? chunk : 0));
        } catch (RuntimeException e) {
            if (aside != null) {
                aside.handle((v, t) -> null).join();
            }
            throw e;
        }
        if (!chunked) {
            return new long[] {aside != null ? (Long) aside.join() : moved.whole().orElseGet(() -> Checksums.of(source))};
        }
        return aside != null ? (long[]) aside.join()
                : moved.chunks() != null ? moved.chunks() : Checksums.ofChunks(source, chunk);
    }

    private Transport firstTransport(PutTicket put) {
        var r = put.replicas().getFirst();
        return transports.reaching(transports.pick(r.segmentName(), r.endpoints(), TransferOp.WRITE));
    }

    /** One WRITE per replica; the first asks the transport for the checksums if {@code checksum}. */
    private List<TransferRequest> writes(MemorySegment source, PutTicket put, long at, boolean checksum,
            long chunkBytes) {
        List<TransferRequest> out = new ArrayList<>(put.replicas().size());
        for (var r : put.replicas()) {
            boolean first = out.isEmpty();
            out.add(new TransferRequest(TransferOp.WRITE, source, transports.pick(r.segmentName(), r.endpoints(),
                    TransferOp.WRITE), r.offset() + at, checksum && first, checksum && first ? chunkBytes : 0, r.grant()));
        }
        return out;
    }

    // ---- get ----

    /**
     * Reads under a lease: made at most this many times when a read outlives its lease (a GC
     * pause or a stalled peer; the bytes are dropped unread), each time under a fresh one.
     */
    static final int READ_ATTEMPTS = 3;

    /**
     * {@code read} under a fresh lease on {@code key}, again under a new one if it outlived its
     * lease, up to {@link #READ_ATTEMPTS} times: the object is most likely still there, and if it
     * was evicted meanwhile the next lease says so (OBJECT_NOT_FOUND).
     */
    private <T> T underLease(String key, java.util.function.Function<ReadLease, T> read) {
        for (int attempt = 1; ; attempt++) {
            ReadLease lease = master.getReplicaList(key(key));
            try {
                return read.apply(lease);
            } catch (StoreException e) {
                if (e.errorCode() != ErrorCode.LEASE_EXPIRED || attempt == READ_ATTEMPTS) {
                    throw e;
                }
                LOG.log(System.Logger.Level.DEBUG, "read of {0} outlived its lease, reading again", key);
            }
        }
    }

    @Override
    public byte[] get(String key) {
        return underLease(key, lease -> readAll(key, lease));
    }

    /** The whole object as a byte[], verified. */
    private byte[] readAll(String key, ReadLease lease) {
        if (lease.sizeBytes() > Integer.MAX_VALUE - 8) {
            throw new StoreException(ErrorCode.BUFFER_OVERFLOW,
                    "object of " + lease.sizeBytes() + " bytes does not fit a byte[]; use getInto");
        }
        byte[] out = new byte[(int) lease.sizeBytes()];
        read(key, lease, 0, MemorySegment.ofArray(out));
        return out;
    }

    @Override
    public long getInto(String key, MemorySegment target) {
        StoreException.require(target != null, "target is null");
        return underLease(key, lease -> readInto(key, lease, target));
    }

    /**
     * Reads the object's bytes from {@code from} into {@code target}, trying replicas (own
     * segments first) until they arrive intact within the lease. An object checked whole is read
     * whole ({@code from} 0, {@code target} its size); one with chunk checksums may be read from
     * any chunk boundary to another (or its end), and every chunk moved is verified.
     */
    private void read(String key, ReadLease lease, long from, MemorySegment target) {
        ChunkChecksums chunks = lease.chunks();
        List<ReplicaLocation> order = lease.replicas();
        if (order.size() > 1) {
            order = new ArrayList<>(order);
            order.sort(Comparator.comparing(r -> contributed.contains(r.segmentName()) ? 0 : 1));
        }
        StoreException last = null; // made only when a read fails: an exception costs its stack trace
        for (ReplicaLocation r : order) {
            Transports.Reported moved;
            long startMs = clock.millis();
            SegmentEndpoint endpoint;
            try {
                endpoint = transports.pick(r.segmentName(), r.endpoints(), TransferOp.READ);
                moved = transports.runAll(List.of(new TransferRequest(TransferOp.READ, target, endpoint,
                        r.offset() + from, true, chunks == null ? 0 : chunks.chunkBytes(), r.grant())));
            } catch (StoreException e) {
                last = e;
                continue;
            }
            // a lease holds while now < its end: from then on the master may reuse the blocks
            long endMs = clock.millis();
            if (endMs >= lease.leaseExpiresAtMs()) {
                throw new StoreException(ErrorCode.LEASE_EXPIRED, "read of " + key + " outlived its lease by "
                        + (endMs - lease.leaseExpiresAtMs()) + " ms (it took " + (endMs - startMs)
                        + " ms); the bytes may have been reused");
            }
            if (intact(lease, from, target, moved)) {
                return;
            }
            transports.checksumMismatch(endpoint.protocol());
            last = new StoreException(ErrorCode.CHECKSUM_MISMATCH,
                    "replica of " + key + " on " + r.segmentName() + " does not match its checksum");
        }
        throw last != null ? last : new StoreException(ErrorCode.INVALID_REPLICA, "object " + key + " has no replica");
    }

    /** Whether the bytes read match what the put recorded, with what the transport computed where it did. */
    private static boolean intact(ReadLease lease, long from, MemorySegment read, Transports.Reported moved) {
        ChunkChecksums chunks = lease.chunks();
        if (chunks == null) {
            return moved.whole().orElseGet(() -> Checksums.of(read)) == lease.checksum();
        }
        long[] sums = moved.chunks() != null ? moved.chunks() : Checksums.ofChunks(read, chunks.chunkBytes());
        return chunks.matches((int) (from / chunks.chunkBytes()), sums);
    }

    @Override
    public long getIntoRanges(String key, List<RangeCopy> ranges, MemorySegment target) {
        StoreException.require(ranges != null && !ranges.isEmpty(), "ranges are required");
        StoreException.require(target != null, "target is null");
        return underLease(key, lease -> {
            long copied = 0;
            for (RangeCopy r : ranges) {
                StoreException.require(r.objectOffset() + r.length() <= lease.sizeBytes(),
                        "range " + r + " is outside the object of " + lease.sizeBytes() + " bytes");
                StoreException.require(r.targetOffset() + r.length() <= target.byteSize(),
                        "range " + r + " is outside the target of " + target.byteSize() + " bytes");
                copied += r.length();
            }
            try (Arena scratch = Arena.ofConfined()) {
                // every piece moved is verified before any byte reaches the target
                List<ChunkRuns.Run> runs = ChunkRuns.covering(ranges, lease.sizeBytes(),
                        lease.chunks() == null ? lease.sizeBytes() : lease.chunks().chunkBytes());
                List<MemorySegment> moved = new ArrayList<>(runs.size());
                for (ChunkRuns.Run run : runs) {
                    MemorySegment bytes = scratch.allocate(run.length(), 64);
                    read(key, lease, run.from(), bytes);
                    moved.add(bytes);
                }
                for (RangeCopy r : ranges) {
                    ChunkRuns.copy(r, runs, moved, target);
                }
            }
            return copied;
        });
    }

    @Override
    public long getSize(String key) {
        return master.queryKey(key(key)).filter(i -> "COMPLETE".equals(i.state()))
                .orElseThrow(() -> new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + key)).sizeBytes();
    }

    @Override
    public boolean exists(String key) {
        return master.exists(key(key));
    }

    // ---- remove ----

    @Override
    public void remove(String key, boolean force) {
        master.remove(key(key), force);
    }

    @Override
    public int removeByRegex(String regex, boolean force) {
        StoreException.require(regex != null, "regex is null");
        Pattern p;
        try {
            p = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "bad regex: " + e.getDescription());
        }
        return master.removeByRegex(tenant, p, force);
    }

    @Override
    public int removeAll(boolean force) {
        return master.removeAll(tenant, force);
    }

    // ---- batches: one result per key, in input order ----

    private static <I, T> List<OpResult<T>> each(List<I> inputs, Function<I, String> keyOf, Function<I, T> op) {
        List<OpResult<T>> out = new ArrayList<>(inputs.size());
        for (I in : inputs) {
            String key = keyOf.apply(in);
            try {
                out.add(OpResult.ok(key, op.apply(in)));
            } catch (StoreException e) {
                out.add(OpResult.failed(key, e));
            }
        }
        return out;
    }

    /**
     * Many puts in three master calls (start, end, revoke) instead of two per key: every started
     * put is written, the written ones are ended together, the failed ones revoked together.
     */
    private List<OpResult<Void>> writeMany(List<Map.Entry<String, MemorySegment>> entries, ReplicateConfig config,
            boolean upsert) {
        StoreException.require(config != null, "replicate config is null");
        int n = entries.size();
        List<OpResult<Void>> out = new ArrayList<>(java.util.Collections.nCopies(n, null));
        List<Integer> started = new ArrayList<>();
        List<ObjectKey> keys = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            var e = entries.get(i);
            try {
                if (e.getValue() == null) {
                    throw new StoreException(ErrorCode.INVALID_PARAMS, "value of " + e.getKey() + " is null");
                }
                keys.add(key(e.getKey()));
                sizes.add(e.getValue().byteSize());
                started.add(i);
            } catch (StoreException bad) {
                out.set(i, OpResult.failed(e.getKey(), bad));
            }
        }
        List<OpResult<PutTicket>> tickets = started.isEmpty() ? List.of()
                : master.putStartBatch(clientId, keys, sizes, config, upsert);
        List<PutCompletion> written = new ArrayList<>();
        List<Integer> writtenAt = new ArrayList<>();
        List<PutCompletion> failed = new ArrayList<>();
        boolean inDoubt = false;
        for (int j = 0; j < tickets.size(); j++) {
            int i = started.get(j);
            var e = entries.get(i);
            OpResult<PutTicket> t = tickets.get(j);
            if (!t.isOk()) {
                out.set(i, new OpResult<>(e.getKey(), null, t.error(), t.message()));
                continue;
            }
            PutTicket put = t.value();
            try {
                Written w = writeReplicas(e.getValue(), put);
                written.add(new PutCompletion(keys.get(j), put.putId(), w.checksum(), w.chunks()));
                writtenAt.add(i);
            } catch (StoreException bad) {
                failed.add(new PutCompletion(keys.get(j), put.putId(), 0));
                out.set(i, OpResult.failed(e.getKey(), bad));
                inDoubt |= TransferInDoubt.in(bad);
            }
        }
        List<OpResult<Void>> ended = written.isEmpty() ? List.of() : master.putEndBatch(clientId, written);
        for (int j = 0; j < ended.size(); j++) {
            out.set(writtenAt.get(j), ended.get(j).isOk() ? OpResult.ok(entries.get(writtenAt.get(j)).getKey(), null)
                    : new OpResult<>(entries.get(writtenAt.get(j)).getKey(), null, ended.get(j).error(), ended.get(j).message()));
            if (!ended.get(j).isOk()) {
                failed.add(written.get(j));
            }
        }
        if (!failed.isEmpty()) {
            master.putRevokeBatch(clientId, failed, inDoubt);
        }
        return out;
    }

    private static List<Map.Entry<String, MemorySegment>> heap(Map<String, byte[]> values) {
        List<Map.Entry<String, MemorySegment>> out = new ArrayList<>(values.size());
        values.forEach((k, v) -> out.add(new java.util.AbstractMap.SimpleImmutableEntry<>(k,
                v == null ? null : MemorySegment.ofArray(v))));
        return out;
    }

    @Override
    public List<OpResult<Void>> putBatch(Map<String, byte[]> values, ReplicateConfig config) {
        return writeMany(heap(values), config, false);
    }

    @Override
    public List<OpResult<Void>> upsertBatch(Map<String, byte[]> values, ReplicateConfig config) {
        return writeMany(heap(values), config, true);
    }

    @Override
    public List<OpResult<Void>> putFromBatch(Map<String, MemorySegment> sources, ReplicateConfig config) {
        return writeMany(List.copyOf(sources.entrySet()), config, false);
    }

    /**
     * One master call for the keys that are valid; an invalid key fails alone. Results in input
     * order, each under the caller's key string.
     */
    private <T> List<OpResult<T>> perKey(List<String> keys, Function<List<ObjectKey>, List<OpResult<T>>> masterCall) {
        List<OpResult<T>> out = new ArrayList<>(keys.size());
        List<ObjectKey> valid = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            try {
                valid.add(key(keys.get(i)));
                at.add(i);
                out.add(null);
            } catch (StoreException bad) {
                out.add(OpResult.failed(keys.get(i), bad));
            }
        }
        List<OpResult<T>> answered = valid.isEmpty() ? List.of() : masterCall.apply(valid);
        for (int j = 0; j < answered.size(); j++) {
            OpResult<T> r = answered.get(j);
            out.set(at.get(j), new OpResult<>(keys.get(at.get(j)), r.value(), r.error(), r.message()));
        }
        return out;
    }

    /** One master call for all the leases, then each object's bytes. */
    @Override
    public List<OpResult<byte[]>> getBatch(List<String> keys) {
        return perKey(keys, master::getReplicaListBatch).stream().map(l -> {
            if (!l.isOk()) {
                return new OpResult<byte[]>(l.key(), null, l.error(), l.message());
            }
            try {
                return OpResult.ok(l.key(), readAll(l.key(), l.value()));
            } catch (StoreException bad) {
                return OpResult.<byte[]>failed(l.key(), bad);
            }
        }).toList();
    }

    @Override
    public List<OpResult<Boolean>> existsBatch(List<String> keys) {
        return perKey(keys, master::existsBatch);
    }

    @Override
    public List<OpResult<Void>> removeBatch(List<String> keys, boolean force) {
        return each(keys, k -> k, k -> {
            remove(k, force);
            return null;
        });
    }

    /**
     * Every lease in one master call, then each object's bytes; a read that outlives its lease
     * is made again on its own, under a fresh one ({@link #getInto}).
     */
    @Override
    public List<OpResult<Long>> getIntoBatch(Map<String, MemorySegment> targets) {
        StoreException.require(targets != null, "targets are null");
        List<Map.Entry<String, MemorySegment>> entries = List.copyOf(targets.entrySet());
        List<OpResult<ReadLease>> leases = perKey(entries.stream().map(Map.Entry::getKey).toList(),
                master::getReplicaListBatch);
        List<OpResult<Long>> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String key = entries.get(i).getKey();
            MemorySegment target = entries.get(i).getValue();
            OpResult<ReadLease> l = leases.get(i);
            if (!l.isOk()) {
                out.add(new OpResult<>(key, null, l.error(), l.message()));
                continue;
            }
            try {
                StoreException.require(target != null, "target of " + key + " is null");
                out.add(OpResult.ok(key, readInto(key, l.value(), target)));
            } catch (StoreException e) {
                if (e.errorCode() != ErrorCode.LEASE_EXPIRED) {
                    out.add(OpResult.failed(key, e));
                    continue;
                }
                try {
                    out.add(OpResult.ok(key, getInto(key, target)));
                } catch (StoreException again) {
                    out.add(OpResult.failed(key, again));
                }
            }
        }
        return out;
    }

    /** The whole object into {@code target} under {@code lease}; returns its size. */
    private long readInto(String key, ReadLease lease, MemorySegment target) {
        if (lease.sizeBytes() > target.byteSize()) {
            throw new StoreException(ErrorCode.BUFFER_TOO_SMALL,
                    "object of " + lease.sizeBytes() + " bytes does not fit " + target.byteSize() + " bytes");
        }
        read(key, lease, 0, target.asSlice(0, lease.sizeBytes()));
        return lease.sizeBytes();
    }

    @Override
    public List<OpResult<ObjectState>> lookupBatch(List<String> keys) {
        StoreException.require(keys != null, "keys are null");
        return perKey(keys, valid -> {
            List<ObjectState> states = master.lookupBatch(valid);
            List<OpResult<ObjectState>> out = new ArrayList<>(states.size());
            for (int i = 0; i < states.size(); i++) {
                out.add(OpResult.ok(valid.get(i).key(), states.get(i)));
            }
            return out;
        });
    }

    // ---- device memory ----

    @Override
    public void registerDeviceBuffer(DeviceBuffer buffer) {
        devices.of(buffer, "buffer"); // its kind has a DeviceMemory here, and the device index is one of it
        registeredDevice.add(buffer);
    }

    @Override
    public void unregisterDeviceBuffer(DeviceBuffer buffer) {
        if (buffer != null) {
            registeredDevice.remove(buffer);
        }
    }

    /** How many host buffers are registered now: the caller's and the staging buffers (tests). */
    int registeredBuffers() {
        return registered.size();
    }

    /** The device buffers registered now (tests). */
    Set<DeviceBuffer> registeredDeviceBuffers() {
        return Set.copyOf(registeredDevice);
    }

    @Override
    public void putFromDevice(String key, DeviceBuffer source, ReplicateConfig config) {
        writeFromDevice(key, source, config, false);
    }

    @Override
    public void upsertFromDevice(String key, DeviceBuffer source, ReplicateConfig config) {
        writeFromDevice(key, source, config, true);
    }

    /**
     * A put of device memory through a host staging buffer this thread holds for the whole put.
     * An object of one checksum chunk is copied down whole and written as a host payload is; a
     * larger one in pieces of whole chunks that fill the buffer: each is copied down, written at
     * its offset in every replica, and checksummed chunk by chunk (by the transport beside its
     * copy, or here) on the host copy, before the next is copied into the same buffer. Where the
     * checksum chunk is larger than the staging buffer (settings changed so), or an object of one
     * chunk is, a temporary host buffer of that size stands in.
     */
    private void writeFromDevice(String key, DeviceBuffer source, ReplicateConfig config, boolean upsert) {
        DeviceMemory memory = devices.of(source, "source");
        long size = source.byteSize();
        long chunk = checksumChunkBytes;
        boolean chunked = size > chunk;
        try (StagingBuffers.Lease lease = staging.acquire();
                Staged buf = staged(lease, chunked ? chunk : size)) {
            long piece = chunked ? Math.max(chunk, buf.memory().byteSize() / chunk * chunk) : size;
            write(key, size, config, upsert, put -> {
                if (!chunked) {
                    MemorySegment host = buf.memory().asSlice(0, size);
                    toHost(memory, source, host);
                    return written(writeAt(host, put, 0, chunk, false), chunk, false);
                }
                long[] sums = new long[(int) ChunkChecksums.chunksOf(size, chunk)];
                for (long from = 0; from < size; from += piece) {
                    MemorySegment host = buf.memory().asSlice(0, Math.min(piece, size - from));
                    toHost(memory, source.slice(from, host.byteSize()), host);
                    long[] part = writeAt(host, put, from, chunk, true);
                    System.arraycopy(part, 0, sums, (int) (from / chunk), part.length);
                }
                return written(sums, chunk, true);
            });
        }
    }

    @Override
    public long getIntoDevice(String key, DeviceBuffer target) {
        DeviceMemory memory = devices.of(target, "target");
        try (StagingBuffers.Lease lease = staging.acquire()) {
            return underLease(key, l -> readIntoDevice(key, l, target, memory, lease));
        }
    }

    /**
     * The whole object into device memory under {@code lease}: read into the host staging buffer
     * and verified there (a piece of whole chunks at a time where the object has chunk checksums,
     * else whole), then copied up; a piece that fails its checksum never reaches the device.
     */
    private long readIntoDevice(String key, ReadLease lease, DeviceBuffer target, DeviceMemory memory,
            StagingBuffers.Lease staged) {
        long size = lease.sizeBytes();
        if (size > target.byteSize()) {
            throw new StoreException(ErrorCode.BUFFER_TOO_SMALL,
                    "object of " + size + " bytes does not fit " + target.byteSize() + " bytes of " + target);
        }
        ChunkChecksums chunks = lease.chunks();
        long chunk = chunks == null ? size : chunks.chunkBytes();
        try (Staged buf = staged(staged, Math.min(chunk, size))) {
            long piece = chunks == null ? size : Math.max(chunk, buf.memory().byteSize() / chunk * chunk);
            for (long from = 0; from < size; from += piece) {
                MemorySegment host = buf.memory().asSlice(0, Math.min(piece, size - from));
                read(key, lease, from, host);
                fromHost(memory, host, target.slice(from, host.byteSize()));
            }
        }
        return size;
    }

    /** A host buffer for staging: the lease's, or a temporary one where a single piece needs more. */
    private record Staged(MemorySegment memory, Arena temporary, EmbeddedStoreClient client) implements AutoCloseable {
        @Override
        public void close() {
            if (temporary != null) {
                client.unregisterBuffer(memory);
                temporary.close();
            }
        }
    }

    private Staged staged(StagingBuffers.Lease lease, long atLeast) {
        if (atLeast <= lease.memory().byteSize()) {
            return new Staged(lease.memory(), null, this);
        }
        LOG.log(System.Logger.Level.DEBUG, "staging {0} bytes in a temporary host buffer (device.staging.bytes {1})",
                atLeast, lease.memory().byteSize());
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = arena.allocate(atLeast, 4096);
            registerBuffer(memory);
            return new Staged(memory, arena, this);
        } catch (RuntimeException | OutOfMemoryError e) {
            arena.close();
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "cannot allocate a temporary " + atLeast
                    + "-byte host buffer to stage device memory: " + e);
        }
    }

    private static void toHost(DeviceMemory memory, DeviceBuffer source, MemorySegment host) {
        try {
            if (host.byteSize() > 0) {
                memory.copyToHost(source, host);
            }
        } catch (DeviceMemoryException e) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "copying " + source + " to host memory failed: "
                    + e.getMessage());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "source " + source + " cannot be copied: " + e.getMessage());
        }
    }

    private static void fromHost(DeviceMemory memory, MemorySegment host, DeviceBuffer target) {
        try {
            if (host.byteSize() > 0) {
                memory.copyFromHost(host, target);
            }
        } catch (DeviceMemoryException e) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "copying host memory to " + target + " failed: "
                    + e.getMessage());
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "target " + target + " cannot be written: " + e.getMessage());
        }
    }

    @Override
    public String mountDeviceSegment(DeviceBuffer memory) {
        StoreException.require(memory != null, "memory is null");
        StoreException.require(memory.kind().isDevice(), memory + " is host memory: mount it as a MemorySegment "
                + "(mountSegment)");
        String name = nextSegmentName();
        contributed.mountDevice(name, memory);
        return name;
    }

    // ---- buffers and segments ----

    @Override
    public void registerBuffer(MemorySegment buffer) {
        StoreException.require(buffer != null, "buffer is null");
        if (registered.add(buffer)) {
            transports.all().forEach(t -> t.registerLocal(buffer));
        }
    }

    @Override
    public void unregisterBuffer(MemorySegment buffer) {
        if (buffer != null && registered.remove(buffer)) {
            transports.all().forEach(t -> t.unregisterLocal(buffer));
        }
    }

    @Override
    public String mountSegment(MemorySegment memory) {
        StoreException.require(memory != null && memory.isNative(), "a segment must be native (off-heap) memory");
        // the segment transport must serve it, if this client has one; else whichever can
        return mount(nextSegmentName(), protocol == null ? null : transports.get(protocol), memory, false);
    }

    /** Mounts a new segment of memory the segment transport provides (a shared file for shm). */
    public String mountNewSegment(long sizeBytes, Arena arena) {
        String name = nextSegmentName();
        Transport via = transports.get(protocol);
        return mount(name, via, via.allocateSegment(name, sizeBytes, arena), false);
    }

    /**
     * As {@link #mountNewSegment}, except that a master that cannot be reached yet (RPC_FAIL)
     * does not fail it: the segment stays allocated and exposed, and the first {@link #heartbeat}
     * that reaches the master mounts it. So a storage node may start before its master.
     */
    public String mountNewSegmentOnceReachable(long sizeBytes, Arena arena) {
        return mountNewSegmentOnceReachable(transports.get(protocol), sizeBytes, arena);
    }

    /** As {@link #mountNewSegmentOnceReachable(long, Arena)}, with memory that {@code via} provides. */
    String mountNewSegmentOnceReachable(Transport via, long sizeBytes, Arena arena) {
        String name = nextSegmentName();
        return mount(name, via, via.allocateSegment(name, sizeBytes, arena), true);
    }

    private String nextSegmentName() {
        return clientId + "/segment-" + segmentSeq.incrementAndGet();
    }

    private String mount(String name, Transport primary, MemorySegment memory, boolean laterIfUnreachable) {
        contributed.mount(name, primary, memory, laterIfUnreachable); // unmounted: unhealthy until a heartbeat mounts it
        return name;
    }

    /**
     * Registers every buffer registered so far (the caller's and the device staging buffers) with
     * a transport bound after them, for a transport that pins memory; the owner calls it as it binds one.
     */
    void registerBuffersWith(Transport t) {
        registered.forEach(t::registerLocal);
    }

    void transportBound(Transport t) {
        contributed.transportBound(t);
    }

    void transportUnbound(Transport t) {
        contributed.transportUnbound(t);
    }

    @Override
    public void unmountSegment(String segmentName) {
        contributed.unmount(segmentName);
    }

    /**
     * Withdraws every segment, then tells the master this client is gone, so that it is not
     * counted (and logged as silent) until client_ttl. A master that cannot be reached, or one
     * too old to know the call, forgets the client at client_ttl as before.
     */
    public void leave() {
        if (!unmountAll()) {
            return; // the master did not answer: asking again would only add its timeout to the shutdown
        }
        try {
            master.leave(clientId);
        } catch (StoreException e) {
            LOG.log(System.Logger.Level.DEBUG, "the master did not hear that client {0} left: {1}", clientId,
                    e.getMessage());
        }
    }

    /** Withdraws every segment this client contributed; false when the master could not be reached. */
    public boolean unmountAll() {
        return contributed.unmountAll();
    }

    Set<String> ownSegments() {
        return contributed.names();
    }

    /** How the master should see segment {@code name} now (tests). */
    SegmentDescriptor describe(String name) {
        return contributed.describe(name);
    }

    Transports transports() {
        return transports;
    }
}
