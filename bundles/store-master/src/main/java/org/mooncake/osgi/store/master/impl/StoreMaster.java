package org.mooncake.osgi.store.master.impl;

import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.ObjectInfo;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.master.TenantStats;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.eviction.AccessObserver;

/**
 * The master's state and every operation on it, free of OSGi so tests drive it directly with
 * an injected clock.
 *
 * <p>Threading: each object is guarded by its shard's lock; a shard lock may be followed by a
 * segment allocator's monitor, never the reverse. The candidate index is changed only under
 * the changed object's shard lock and read lock-free by the eviction thread, which also takes
 * its victims without a lock ({@link IndexEntry#claim}): a round never holds what a put or get
 * waits for. Housekeeping and eviction run on the caller's thread (the component's single
 * scheduler thread).
 */
public final class StoreMaster implements MasterService {
    private static final System.Logger LOG = System.getLogger(StoreMaster.class.getName());

    private volatile MasterSettings settings;
    private final InstantSource clock;
    private final Shard[] shards;
    private final int shardShift;
    private final AtomicLong versionSequence = new AtomicLong();
    /** Random at every start, the base of client registrations: a restarted master never repeats one. */
    private final long incarnation = new java.security.SecureRandom().nextLong();
    private final Segments segments = new Segments();
    final CandidateIndex index = new CandidateIndex();
    final TypeCounters counters = new TypeCounters();
    /** A live client: when it last spoke, and the registration it got when the master (re)learned of it. */
    private record ClientRecord(long lastSeenMs, long registration) {
    }

    private final ConcurrentMap<String, ClientRecord> clients = new ConcurrentHashMap<>();
    private final AtomicLong registrations = new AtomicLong();
    /** Puts started and not yet ended or revoked (each shard lists its own: {@link Shard#pendingHead}). */
    private final LongAdder pendingPuts = new LongAdder();
    private final DeferredFrees deferred = new DeferredFrees();
    private final GroupIds groupIds = new GroupIds();
    private final AtomicBoolean spaceShortage = new AtomicBoolean();
    /** The largest block a put found no room for since the last round (see {@link RoomMaker}). */
    private final AtomicLong roomWanted = new AtomicLong();
    private final LongAdder failedPutsNoSpace = new LongAdder();
    private final PolicySelector policies;
    private final Evictor evictor;

    public StoreMaster(MasterSettings settings, InstantSource clock, PolicySelector policies) {
        this.settings = settings;
        this.clock = clock;
        this.policies = policies;
        this.shards = new Shard[settings.shards()];
        this.shardShift = 32 - Integer.numberOfTrailingZeros(settings.shards());
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new Shard();
        }
        this.evictor = new Evictor(this);
        policies.prefer(settings.preferredPolicy());
    }

    public MasterSettings settings() {
        return settings;
    }

    /** Applies new tunables; the shard count stays what it was at start. */
    public void update(MasterSettings next) {
        if (next.shards() != shards.length) {
            LOG.log(Level.WARNING, "shard count change to {0} takes effect only after a restart", next.shards());
        }
        settings = next;
        policies.prefer(next.preferredPolicy());
    }

    long now() {
        return clock.millis();
    }

    PolicySelector policies() {
        return policies;
    }

    Segments segmentRegistry() {
        return segments;
    }

    /** Rounds that evicted a contiguous range for a put that found no room: for benchmarks. */
    public long roomsMade() {
        return evictor.roomsMade();
    }

    Evictor evictor() {
        return evictor;
    }

    boolean takeSpaceShortage() {
        return spaceShortage.getAndSet(false);
    }

    /** The largest block a put found no room for since the last call; 0 when none. */
    long takeRoomWanted() {
        return roomWanted.getAndSet(0);
    }

    /**
     * The shard takes the top bits of a Fibonacci hash, and the shard's {@link KeyTable} a
     * different mix: if both used the same bits, every key of a shard would share one probe run.
     */
    Shard shardOf(ObjectKey key) {
        return shardShift == 32 ? shards[0] : shards[(key.hashCode() * 0x9E3779B9) >>> shardShift];
    }

    private static void requireClient(String clientId) {
        StoreException.require(clientId != null && !clientId.isEmpty(), "client id is required");
    }

    // ---- liveness and segments ----

    @Override
    public long heartbeat(String clientId) {
        requireClient(clientId);
        long now = now();
        // a client the master does not know (new, restarted master, or declared dead) gets a new
        // registration: seeing it change, the client mounts its segments again
        return clients.compute(clientId, (id, old) -> new ClientRecord(now,
                old != null ? old.registration() : incarnation + registrations.incrementAndGet())).registration();
    }

    @Override
    public void leave(String clientId) {
        requireClient(clientId);
        if (clients.remove(clientId) != null) {
            List<Segment> left = segments.ownedBy(clientId);
            left.forEach(this::drop);
            revokePutsOf(clientId);
            LOG.log(Level.INFO, left.isEmpty() ? "client {0} left" : "client {0} left; dropped its {1} segment(s)",
                    clientId, left.size());
        }
    }

    @Override
    public void mountSegment(SegmentDescriptor segment) {
        StoreException.require(segment != null, "segment is required");
        requireClient(segment.clientId());
        segments.mount(segment);
        heartbeat(segment.clientId());
        LOG.log(Level.INFO, "mounted segment {0} ({1} bytes of {2} memory) of client {3} via {4}", segment.name(),
                segment.sizeBytes(), segment.memoryKind(), segment.clientId(), protocols(segment));
    }

    @Override
    public void updateSegmentEndpoints(SegmentDescriptor segment) {
        StoreException.require(segment != null, "segment is required");
        Segment s = segmentOf(segment.clientId(), segment.name());
        if (s.retired()) {
            throw new StoreException(ErrorCode.SEGMENT_NOT_FOUND, "no segment " + segment.name());
        }
        SegmentDescriptor was = s.descriptor;
        StoreException.require(was.sizeBytes() == segment.sizeBytes(),
                "segment " + segment.name() + " holds " + was.sizeBytes() + " bytes, not " + segment.sizeBytes());
        StoreException.require(!segment.endpoints().isEmpty(), "a segment needs at least one endpoint");
        s.reachVia(segment.endpoints());
        heartbeat(segment.clientId());
        LOG.log(Level.INFO, "segment {0} of client {1} is now reached via {2} (was {3})", segment.name(),
                segment.clientId(), protocols(segment), protocols(was));
    }

    /** How a segment is reached, as an operator checks it after a transport was swapped: protocol://address each. */
    static String protocols(SegmentDescriptor d) {
        return String.join(", ", d.endpoints().stream().map(e -> e.protocol() + "://" + loggable(e.address())).toList());
    }

    /** Longest address logged whole; a ucx worker address is an opaque blob of about 500 characters. */
    static final int LOGGED_ADDRESS_CHARS = 64;

    /** An address as a log line shows it: whole when short, else its start and its length. */
    static String loggable(String address) {
        if (address.length() <= LOGGED_ADDRESS_CHARS) {
            return address;
        }
        return address.substring(0, LOGGED_ADDRESS_CHARS - 16) + "...(" + address.length() + " chars)";
    }

    @Override
    public void unmountSegment(String clientId, String segmentName) {
        drop(segmentOf(clientId, segmentName));
    }

    /** A mounted segment of this client's: SEGMENT_NOT_FOUND when none is, INVALID_PARAMS when another client's. */
    private Segment segmentOf(String clientId, String segmentName) {
        requireClient(clientId);
        Segment s = segments.get(segmentName);
        if (s == null) {
            throw new StoreException(ErrorCode.SEGMENT_NOT_FOUND, "no segment " + segmentName);
        }
        StoreException.require(s.descriptor.clientId().equals(clientId),
                "segment " + segmentName + " belongs to client " + s.descriptor.clientId());
        return s;
    }

    /** Retires a segment and drops every replica on it; objects left with none disappear whole. */
    private void drop(Segment s) {
        s.retire();
        int lost = 0;
        for (Shard shard : shards) {
            shard.lock();
            try {
                for (ObjectMeta m : shard.objects.snapshot()) {
                    if (m.pending != null && m.pending.uses(s)) {
                        m.pendingAborted = true;
                    }
                    Version current = m.current();
                    if (current != null && current.uses(s) && index.withdraw(m) != IndexEntry.EVICTED) {
                        Version left = current.without(s);
                        if (left.replicas().isEmpty()) {
                            dropVersion(m, current);
                            lost++;
                        } else {
                            m.current(left);
                            listBlock(m);
                            index.publish(m);
                        }
                    }
                    if (m.vacant()) {
                        shard.objects.remove(m);
                    }
                }
            } finally {
                shard.unlock();
            }
        }
        segments.drop(s);
        LOG.log(Level.INFO, "unmounted segment {0}; objects that lost their last replica: {1}", s.name(), lost);
    }

    /**
     * Forgets the readable version and returns it, its blocks now the caller's; null when there
     * is none (the evictor may just have taken it). Caller holds the shard lock.
     */
    private Version takeCurrent(ObjectMeta m) {
        index.withdraw(m);
        Version v = m.current();
        if (v != null) {
            dropVersion(m, v);
        }
        return v;
    }

    /** Drops {@code v}, the current version of the detached {@code m}, from the object and the counts. */
    private void dropVersion(ObjectMeta m, Version v) {
        counters.stored(v.config().dataType(), v.sizeBytes(), -1);
        if (v.replicas().size() == 1) {
            Replica r = v.replicas().getFirst();
            r.segment().evictable().remove(r.offset(), m);
        }
        m.current(null);
    }

    /**
     * Lists the current version's block among those a room search may take, if it is the only
     * copy and the object is not hard pinned. Before the object's entry is published: see
     * {@link EvictableBlocks#add}. Caller holds the shard lock.
     */
    private void listBlock(ObjectMeta m) {
        Version v = m.current();
        if (v != null && !m.hardPinned && v.replicas().size() == 1) {
            Replica r = v.replicas().getFirst();
            r.segment().evictable().add(r.offset(), OffsetAllocator.blockSize(v.sizeBytes()),
                    v.config().recomputeCostMs(), m.softPinDeadlineMs, m);
        }
    }

    // ---- two-phase put ----

    @Override
    public PutTicket putStart(String clientId, ObjectKey key, long sizeBytes, ReplicateConfig config,
            boolean upsert) {
        requireClient(clientId);
        StoreException.require(key != null, "key is required");
        StoreException.require(config != null, "replicate config is required");
        if (sizeBytes <= 0) { // not require(...): its message would be built on every put
            throw new StoreException(ErrorCode.INVALID_PARAMS, "object size must be > 0, was " + sizeBytes);
        }
        MasterSettings cfg = settings;
        if (config.softPinTtlMs() > cfg.maxSoftPinTtlMs()) {
            throw new StoreException(ErrorCode.INVALID_TTL,
                    "soft pin TTL " + config.softPinTtlMs() + " ms exceeds the maximum " + cfg.maxSoftPinTtlMs() + " ms");
        }
        long largest = segments.largestCapacity();
        if (largest == 0) {
            failedPutsNoSpace.increment();
            throw new StoreException(ErrorCode.NO_AVAILABLE_HANDLE, "no segment is mounted");
        }
        if (OffsetAllocator.blockSize(sizeBytes) > largest) {
            throw new StoreException(ErrorCode.INVALID_PARAMS,
                    "object of " + sizeBytes + " bytes is larger than the largest segment (" + largest + " bytes)");
        }
        ReplicateConfig shared = groupIds.canonical(config);
        long now = now();
        Shard shard = shardOf(key);
        shard.lock();
        try {
            ObjectMeta m = shard.objects.get(key);
            if (m != null && m.pending != null) {
                if (!m.pendingAborted && now - m.pending.startMs() < cfg.putStartDiscardTimeoutMs()) {
                    throw new StoreException(ErrorCode.OBJECT_BEING_WRITTEN, "a put of " + key + " is in progress");
                }
                // Zombie: the writer may still be copying, so its blocks wait for the release timeout.
                deferred.add(m.pending, m.pending.startMs() + cfg.putStartReleaseTimeoutMs());
                LOG.log(Level.INFO, "put of {0} by {1} discarded after {2} ms", key, m.pending.writerId(),
                        now - m.pending.startMs());
                clearPending(shard, m);
            }
            if (m != null && m.readable() && !upsert) {
                throw new StoreException(ErrorCode.OBJECT_ALREADY_EXISTS, "object " + key + " exists");
            }
            List<Replica> replicas = segments.place(sizeBytes, config.replicaCount(), config.preferredSegments(),
                    cfg.allocationStrategy());
            if (replicas.isEmpty()) {
                if (m != null && !m.readable()) {
                    shard.objects.remove(m);
                }
                failedPutsNoSpace.increment();
                if (config.replicaCount() == 1) {
                    roomWanted.accumulateAndGet(OffsetAllocator.blockSize(sizeBytes), Math::max);
                }
                spaceShortage.set(true);
                throw new StoreException(ErrorCode.NO_AVAILABLE_HANDLE,
                        "no segment has " + sizeBytes + " contiguous free bytes");
            }
            if (m == null) {
                m = new ObjectMeta(key);
                shard.objects.add(m);
            }
            long putId = versionSequence.incrementAndGet();
            m.pending = new Version(putId, clientId, sizeBytes, shared, replicas, now, 0);
            m.pendingAborted = false;
            shard.pendingStarted(m);
            pendingPuts.increment();
            return new PutTicket(putId, Replica.locations(replicas, true, writeGrantEnd(now)));
        } finally {
            shard.unlock();
        }
    }

    /**
     * Revokes every put {@code clientId} has in progress, once it left or was declared dead: its
     * keys are free for a new put at once (a dead encoder must not hold its keys until
     * put_start_discard_timeout), while the blocks stay reserved until the release timeout,
     * since a writer that was only cut off may still be copying into them. Walks each shard's
     * list of puts in progress: a client's going is rare, and that list is short.
     */
    int revokePutsOf(String clientId) {
        long releaseTimeout = settings.putStartReleaseTimeoutMs();
        int revoked = 0;
        for (Shard shard : shards) {
            shard.lock();
            try {
                for (ObjectMeta m = shard.pendingHead, next; m != null; m = next) {
                    next = m.pendingNext; // clearing unlinks m
                    if (m.pending.writerId().equals(clientId)) {
                        deferred.add(m.pending, m.pending.startMs() + releaseTimeout);
                        clearPending(shard, m);
                        if (!m.readable()) {
                            shard.objects.remove(m);
                        }
                        revoked++;
                    }
                }
            } finally {
                shard.unlock();
            }
        }
        if (revoked > 0) {
            LOG.log(Level.WARNING, "revoked {0} unfinished put(s) of client {1}: the keys are free again", revoked,
                    clientId);
        }
        return revoked;
    }

    /** When WRITE grants issued at {@code startMs} expire: a put's writer has until it is discardable. */
    private long writeGrantEnd(long startMs) {
        return startMs + settings.putStartDiscardTimeoutMs();
    }

    /** Until when a WRITE grant for {@code v}'s blocks may be used: 0 if none was issued. */
    private long writeGrantsEnd(Version v) {
        for (Replica r : v.replicas()) {
            if (r.granted()) {
                return writeGrantEnd(v.startMs());
            }
        }
        return 0;
    }

    /** Forgets the pending put (its blocks are the caller's business). Caller holds the shard lock. */
    private void clearPending(Shard shard, ObjectMeta m) {
        if (m.pending != null) {
            shard.pendingEnded(m);
            pendingPuts.decrement();
        }
        m.pending = null;
        m.pendingAborted = false;
    }

    /** Frees the pending put's blocks and forgets it (and the key, if nothing is readable). Caller holds the lock. */
    private void revokePending(Shard shard, ObjectMeta m, boolean writesInDoubt) {
        long grantsEnd = writesInDoubt ? writeGrantsEnd(m.pending) : 0;
        if (grantsEnd > now()) {
            // a WRITE the writer gave up on may still arrive (a stalled peer's socket buffer):
            // the blocks are reused only once its grant has expired and the peer refuses it
            deferred.add(m.pending, grantsEnd);
        } else {
            m.pending.freeAll();
        }
        clearPending(shard, m);
        if (!m.readable()) {
            shard.objects.remove(m);
        }
    }

    private ObjectMeta pendingOf(Shard shard, String clientId, ObjectKey key, long putId) {
        ObjectMeta m = shard.objects.get(key);
        if (m == null || m.pending == null) {
            throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no put of " + key + " is in progress");
        }
        if (m.pending.putId() != putId || !m.pending.writerId().equals(clientId)) {
            throw new StoreException(ErrorCode.INVALID_WRITE, "put " + putId + " of " + key
                    + " is not the pending one (put " + m.pending.putId() + " by client " + m.pending.writerId() + ")");
        }
        return m;
    }

    @Override
    public void putEnd(String clientId, ObjectKey key, long putId, long checksum, ChunkChecksums chunks) {
        requireClient(clientId);
        StoreException.require(key != null, "key is required");
        if (chunks != null && Checksums.combine(chunks) != checksum) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "the checksum of " + key + " is not that of its chunks");
        }
        long now = now();
        MasterSettings cfg = settings;
        Shard shard = shardOf(key);
        shard.lock();
        try {
            ObjectMeta m = pendingOf(shard, clientId, key, putId);
            if (m.pendingAborted) {
                throw new StoreException(ErrorCode.OBJECT_NOT_FOUND,
                        "the put of " + key + " was cancelled while being written (removed, or a segment was lost); revoke it");
            }
            if (chunks != null && !chunks.fits(m.pending.sizeBytes())) {
                throw new StoreException(ErrorCode.INVALID_PARAMS,
                        chunks + " do not fit " + key + " of " + m.pending.sizeBytes() + " bytes");
            }
            Version next = m.pending.withChecksum(checksum, chunks);
            Version old = takeCurrent(m);
            if (old != null) {
                // Readers may hold a lease on the old bytes; free them when it ends.
                deferred.add(old, Math.max(now, m.leaseExpiresAtMs));
            }
            ReplicateConfig c = next.config();
            m.current(next);
            clearPending(shard, m);
            m.sequence = versionSequence.incrementAndGet();
            m.putTimeMs = now;
            m.lastAccessMs = now;
            m.hits = 0;
            m.leaseExpiresAtMs = now;
            m.hardPinned = c.hardPin();
            switch (c.softPin()) {
                case ENABLE -> m.softPinDeadlineMs = now + (c.softPinTtlMs() == 0 ? cfg.defaultSoftPinTtlMs() : c.softPinTtlMs());
                case DISABLE -> m.softPinDeadlineMs = 0;
                case PRESERVE -> { }
            }
            counters.stored(c.dataType(), next.sizeBytes(), +1);
            listBlock(m);
            index.publish(m);
            IndexEntry view = m.published();
            if (view != null) {
                for (AccessObserver o : policies.observers()) {
                    o.written(view, now);
                }
            }
        } finally {
            shard.unlock();
        }
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId) {
        putRevoke(clientId, key, putId, false);
    }

    @Override
    public void putRevoke(String clientId, ObjectKey key, long putId, boolean writesInDoubt) {
        requireClient(clientId);
        StoreException.require(key != null, "key is required");
        Shard shard = shardOf(key);
        shard.lock();
        try {
            revokePending(shard, pendingOf(shard, clientId, key, putId), writesInDoubt);
        } finally {
            shard.unlock();
        }
    }

    // ---- reads ----

    @Override
    public ReadLease getReplicaList(ObjectKey key) {
        StoreException.require(key != null, "key is required");
        Shard shard = shardOf(key);
        shard.lock();
        try {
            ObjectMeta m = readable(shard, key);
            long previousAccess = m.lastAccessMs;
            // read once: the evictor may claim the object at any time (see grantLease for when)
            Version v = m.current();
            if (v == null || !grantLease(m, true)) {
                counters.miss(ObjectDataType.UNKNOWN);
                throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + key);
            }
            counters.hit(v.config().dataType());
            IndexEntry view = m.published();
            if (view != null) {
                for (AccessObserver o : policies.observers()) {
                    o.hit(view, previousAccess, m.lastAccessMs);
                }
            }
            return new ReadLease(v.sizeBytes(), v.checksum(), v.config().dataType(),
                    Replica.locations(v.replicas(), false, m.leaseExpiresAtMs), m.leaseExpiresAtMs, v.chunks());
        } finally {
            shard.unlock();
        }
    }

    private ObjectMeta readable(Shard shard, ObjectKey key) {
        ObjectMeta m = shard.objects.get(key);
        Version pending = m == null ? null : m.pending;
        boolean readable = m != null && m.readable(); // once: the evictor may take it meanwhile
        if (!readable && pending == null) {
            counters.miss(ObjectDataType.UNKNOWN);
            throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + key);
        }
        if (!readable) {
            counters.miss(pending.config().dataType());
            if (m.pendingAborted) {
                throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + key);
            }
            throw new StoreException(ErrorCode.REPLICA_IS_NOT_READY, "object " + key + " is still being written");
        }
        return m;
    }

    /**
     * Leases a readable object, counting a hit if {@code read}; false if the evictor took it
     * first. A lease only ever extends. A longer one re-indexes the object (the lease is the
     * index's sort key), after detaching its entry so that a round cannot take it meanwhile.
     * Otherwise (reads within one millisecond, or a shorter TTL since) the entry stays and takes
     * the new last access and hit count in place: a round may still claim it, but only at a time
     * past the unchanged lease, which is what it could have done before this read. Caller holds
     * the shard lock.
     */
    private boolean grantLease(ObjectMeta m, boolean read) {
        long now = now();
        long until = now + settings.defaultLeaseTtlMs();
        boolean longer = until > m.leaseExpiresAtMs;
        IndexEntry entry = longer ? m.detach() : m.published();
        if (longer ? entry == IndexEntry.EVICTED : !m.readable()) {
            return false;
        }
        m.lastAccessMs = now;
        if (read) {
            m.hits++;
        }
        if (longer) {
            m.leaseExpiresAtMs = until;
            if (entry != null) {
                index.forget(entry);
            }
            index.publish(m);
        } else if (entry != null) {
            entry.touched(now, m.hits);
        }
        return true;
    }

    /** Reads each key's state under its shard lock; grants no lease and counts nothing. */
    @Override
    public List<ObjectState> lookupBatch(List<ObjectKey> keys) {
        StoreException.require(keys != null, "keys are required");
        List<ObjectState> out = new ArrayList<>(keys.size());
        for (ObjectKey key : keys) {
            StoreException.require(key != null, "key is required");
            Shard shard = shardOf(key);
            shard.lock();
            try {
                ObjectMeta m = shard.objects.get(key);
                out.add(m == null ? ObjectState.ABSENT : m.readable() ? ObjectState.READABLE
                        : m.pending != null && !m.pendingAborted ? ObjectState.WRITING : ObjectState.ABSENT);
            } finally {
                shard.unlock();
            }
        }
        return out;
    }

    @Override
    public boolean exists(ObjectKey key) {
        StoreException.require(key != null, "key is required");
        Shard shard = shardOf(key);
        shard.lock();
        try {
            ObjectMeta m = shard.objects.get(key);
            return m != null && m.readable() && grantLease(m, false);
        } finally {
            shard.unlock();
        }
    }

    @Override
    public Optional<ObjectInfo> queryKey(ObjectKey key) {
        StoreException.require(key != null, "key is required");
        Shard shard = shardOf(key);
        shard.lock();
        try {
            ObjectMeta m = shard.objects.get(key);
            Version current = m == null ? null : m.current();
            Version v = current != null ? current : m == null ? null : m.pending;
            if (v == null) {
                return Optional.empty();
            }
            String state = current != null ? "COMPLETE" : m.pendingAborted ? "CANCELLED" : "PROCESSING";
            return Optional.of(new ObjectInfo(key, state, v.sizeBytes(),
                    v.config().dataType(), v.checksum(), m.putTimeMs, m.leaseExpiresAtMs, m.softPinDeadlineMs,
                    m.hardPinned, m.hits, v.config().recomputeCostMs(), v.config().groupId(), v.config().groupOnly(),
                    Replica.locations(v.replicas())));
        } finally {
            shard.unlock();
        }
    }

    // ---- removal ----

    @Override
    public void remove(ObjectKey key, boolean force) {
        StoreException.require(key != null, "key is required");
        Shard shard = shardOf(key);
        shard.lock();
        try {
            ObjectMeta m = shard.objects.get(key);
            if (m == null) {
                throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + key);
            }
            removeLocked(shard, m, force);
        } finally {
            shard.unlock();
        }
    }

    private void removeLocked(Shard shard, ObjectMeta m, boolean force) {
        long now = now();
        boolean readable = m.readable(); // once: the evictor may take it meanwhile
        if (!readable && m.pending == null) {
            throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + m.key);
        }
        if (!readable) {
            if (m.pendingAborted) {
                throw new StoreException(ErrorCode.OBJECT_NOT_FOUND, "no object " + m.key);
            }
            if (!force) {
                throw new StoreException(ErrorCode.REPLICA_IS_NOT_READY,
                        "object " + m.key + " is still being written; remove with force to revoke the put");
            }
        } else if (m.leaseExpiresAtMs > now && !force) {
            throw new StoreException(ErrorCode.OBJECT_HAS_LEASE,
                    "object " + m.key + " is leased for " + (m.leaseExpiresAtMs - now)
                            + " ms more (a forced remove takes it anyway)");
        }
        Version v = takeCurrent(m);
        if (v != null) {
            if (m.leaseExpiresAtMs > now) {
                deferred.add(v, m.leaseExpiresAtMs); // a reader may still be copying: its READ grant lasts as long
            } else {
                v.freeAll();
            }
        }
        if (m.pending != null && force) {
            // the writer may still be copying into these blocks: they wait for its revoke
            m.pendingAborted = true;
        }
        if (m.pending == null) {
            shard.objects.remove(m);
        }
    }

    @Override
    public int removeByRegex(String tenant, Pattern keyPattern, boolean force) {
        ObjectKey.validateTenant(tenant);
        StoreException.require(keyPattern != null, "pattern is required");
        BoundedInput.Budget budget = new BoundedInput.Budget(REGEX_BUDGET_NANOS);
        return removeMatching(tenant, k -> keyPattern.matcher(new BoundedInput(k, budget, keyPattern)).matches(), force);
    }

    /**
     * The time one removeByRegex may spend matching its caller's pattern over every key of the
     * tenant: a pattern that backtracks without end ("(.*a){20}b") is refused instead of holding
     * shard locks, and removes nothing.
     */
    static final long REGEX_BUDGET_NANOS = 2_000_000_000L;

    @Override
    public Optional<TenantStats> tenantStats(String tenant) {
        ObjectKey.validateTenant(tenant);
        long objects = 0;
        long bytes = 0;
        long processing = 0;
        for (Shard shard : shards) {
            shard.lock();
            try {
                for (ObjectMeta m : shard.objects.snapshot()) {
                    if (!m.key.tenant().equals(tenant)) {
                        continue;
                    }
                    Version v = m.current();
                    if (v != null) {
                        objects++;
                        bytes += v.sizeBytes();
                    }
                    if (m.pending != null && !m.pendingAborted) {
                        processing++;
                    }
                }
            } finally {
                shard.unlock();
            }
        }
        return Optional.of(new TenantStats(tenant, objects, bytes, processing));
    }

    @Override
    public int removeAll(String tenant, boolean force) {
        ObjectKey.validateTenant(tenant);
        return removeMatching(tenant, k -> true, force);
    }

    /**
     * Removes what it may; leased objects stay unless forced. The keys are matched first, over
     * every shard, and only then removed, so a predicate that fails (a pattern past its time
     * budget) removes nothing.
     */
    private int removeMatching(String tenant, Predicate<String> keyMatches, boolean force) {
        List<List<ObjectMeta>> matched = new ArrayList<>(shards.length);
        for (Shard shard : shards) {
            List<ObjectMeta> hits = new ArrayList<>();
            shard.lock();
            try {
                for (ObjectMeta m : shard.objects.snapshot()) {
                    if (m.key.tenant().equals(tenant) && m.readable() && keyMatches.test(m.key.key())) {
                        hits.add(m);
                    }
                }
            } finally {
                shard.unlock();
            }
            matched.add(hits);
        }
        int removed = 0;
        for (int i = 0; i < shards.length; i++) {
            Shard shard = shards[i];
            shard.lock();
            try {
                for (ObjectMeta m : matched.get(i)) {
                    if (shard.objects.get(m.key) != m || !m.readable()) {
                        continue; // removed or replaced since it matched
                    }
                    try {
                        removeLocked(shard, m, force);
                        removed++;
                    } catch (StoreException e) {
                        // leased: left in place, as a single remove would
                    }
                }
            } finally {
                shard.unlock();
            }
        }
        return removed;
    }

    // ---- eviction support ----

    /**
     * Evicts a planned victim if it is still what the planner saw and still evictable; true when
     * it did. The caller frees the victim's blocks (in a batch), purges it from the lease order
     * ({@link CandidateIndex#purge}), counts it ({@link EvictionTally}, {@link #countEvictions})
     * and tells the observers ({@link #evicted}). Takes no lock: the entry is a snapshot of the
     * lease and pins, and the claim succeeds only while it is still the object's published entry
     * (see {@link IndexEntry#claim}). Reads the entry only (see there why).
     */
    boolean evict(IndexEntry planned, long now, boolean softPinnedAllowed) {
        if (planned.leaseExpiresAtMs() > now) {
            return false;
        }
        if (planned.softPinDeadlineMs() > now && (!softPinnedAllowed || !settings.allowEvictSoftPinned())) {
            return false;
        }
        // Left in its shard's table, vacant, which sweeps it later (see KeyTable), and in the
        // lease order until the caller's Unlinker purges it beside the pass: both cheaper than
        // one by one here.
        return planned.claim();
    }

    /**
     * Tells the observers a batch of victims a round has taken, {@code victims[0..count)}. After
     * the claims rather than between them: a claim is a full fence, and an observer's per-victim
     * work (cost-aware's ghost list and model) then waited for its cache misses one victim after
     * another.
     */
    void evicted(IndexEntry[] victims, int count, long now) {
        if (count > 0) {
            for (AccessObserver o : policies.observers()) {
                o.evicted(victims, count, now);
            }
        }
    }

    /** Applies a pass's counts of its victims, once per pass. */
    void countEvictions(EvictionTally tally) {
        tally.apply(index, counters);
    }

    // ---- housekeeping ----

    /** Drops dead clients, reclaims abandoned puts and frees deferred blocks that are due. */
    public void runHousekeeping() {
        long now = now();
        MasterSettings cfg = settings;
        for (Map.Entry<String, ClientRecord> c : clients.entrySet()) {
            if (now - c.getValue().lastSeenMs() > cfg.clientTtlMs() && clients.remove(c.getKey(), c.getValue())) {
                List<Segment> owned = segments.ownedBy(c.getKey());
                // a client that stopped cleanly unmounted its segments already: its going is news, not a fault
                LOG.log(owned.isEmpty() ? Level.INFO : Level.WARNING, owned.isEmpty()
                        ? "client {0} silent for {1} ms: forgotten (it held no segment)"
                        : "client {0} silent for {1} ms: dropping its {2} segment(s)", c.getKey(),
                        now - c.getValue().lastSeenMs(), owned.size());
                owned.forEach(this::drop);
                revokePutsOf(c.getKey());
            }
        }
        for (Shard shard : shards) {
            shard.lock();
            try {
                for (ObjectMeta m = shard.pendingHead, next; m != null; m = next) {
                    next = m.pendingNext; // revoking unlinks m
                    if (now - m.pending.startMs() >= cfg.putStartReleaseTimeoutMs()) {
                        LOG.log(Level.INFO, "reclaiming put of {0} abandoned by {1}", m.key, m.pending.writerId());
                        revokePending(shard, m, false);
                    }
                }
            } finally {
                shard.unlock();
            }
        }
        deferred.releaseDue(now);
    }

    /** One eviction round if the watermark or a failed put asks for it. */
    public void runEvictionRound() {
        evictor.runRound();
    }

    // ---- views ----

    @Override
    public MasterStats stats() {
        var types = counters.snapshot();
        long objects = types.stream().mapToLong(t -> t.objects()).sum();
        PolicySelector.Offer active = policies.current();
        return new MasterStats(segments.capacity(), segments.used(), objects, pendingPuts.sum(),
                segments.all().size(), clients.size(), types, evictor.rounds(), evictor.lastRoundNanos(),
                evictor.totalRoundNanos(), failedPutsNoSpace.sum(), active == null ? "none" : active.name(),
                policies.names(), segments.byMemoryKind());
    }

    @Override
    public List<SegmentStats> segments() {
        return segments.all().stream().map(Segment::stats).toList();
    }

    int deferredFrees() {
        return deferred.size();
    }
}
