package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * An object's place in the candidate index and the view policies plan over: a copy of what a
 * policy reads, taken under the object's shard lock, so that planning never touches the
 * object's metadata (one cache line per candidate fewer on a scan of 10^5 candidates). A new
 * lease or a new version replaces the entry (the lease is the sort key); a read that leaves
 * the lease as it is (several in one millisecond) updates last access and hit count in place.
 * The entry is also the evictor's ticket: see {@link ObjectMeta#claim}.
 */
final class IndexEntry implements CandidateView {
    /** Marks an object the evictor has taken; never in the index, never shown to a policy. */
    static final IndexEntry EVICTED = new IndexEntry();

    final ObjectMeta meta;
    final CandidateIndex.Group group;
    /** The version this entry describes: what a successful claim evicts. */
    final Version version;
    private final long leaseExpiresAtMs;
    private final long sequence;
    private final ObjectDataType dataType;
    private final long sizeBytes;
    private final double recomputeCostMs;
    private final String groupId;
    private final long softPinDeadlineMs;
    private final long putTimeMs;
    private volatile long lastAccessMs;
    private volatile long hits;

    private IndexEntry() {
        this.meta = null;
        this.group = null;
        this.version = null;
        this.leaseExpiresAtMs = Long.MAX_VALUE;
        this.sequence = 0;
        this.dataType = ObjectDataType.UNKNOWN;
        this.sizeBytes = 0;
        this.recomputeCostMs = 0;
        this.groupId = null;
        this.softPinDeadlineMs = 0;
        this.putTimeMs = 0;
    }

    /** Snapshots {@code meta} and its current version. Caller holds the shard lock. */
    IndexEntry(ObjectMeta meta, CandidateIndex.Group group) {
        this.meta = meta;
        this.group = group;
        this.version = meta.current();
        this.leaseExpiresAtMs = meta.leaseExpiresAtMs;
        this.sequence = meta.sequence;
        this.dataType = version.config().dataType();
        this.sizeBytes = version.sizeBytes();
        this.recomputeCostMs = version.config().recomputeCostMs();
        this.groupId = version.config().groupId();
        this.softPinDeadlineMs = meta.softPinDeadlineMs;
        this.putTimeMs = meta.putTimeMs;
        this.lastAccessMs = meta.lastAccessMs;
        this.hits = meta.hits;
    }

    /** A read that kept the lease. Caller holds the shard lock. */
    void touched(long lastAccessMs, long hits) {
        this.lastAccessMs = lastAccessMs;
        this.hits = hits;
    }

    @Override
    public ObjectKey key() {
        return meta.key;
    }

    @Override
    public int keyHash() {
        return meta.hash;
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public ObjectDataType dataType() {
        return dataType;
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public double recomputeCostMs() {
        return recomputeCostMs;
    }

    @Override
    public long softPinDeadlineMs() {
        return softPinDeadlineMs;
    }

    @Override
    public long leaseExpiresAtMs() {
        return leaseExpiresAtMs;
    }

    @Override
    public long putTimeMs() {
        return putTimeMs;
    }

    @Override
    public long lastAccessMs() {
        return lastAccessMs;
    }

    @Override
    public long hitCount() {
        return hits;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public String toString() {
        return meta == null ? "EVICTED" : meta.key + "@" + leaseExpiresAtMs;
    }
}
