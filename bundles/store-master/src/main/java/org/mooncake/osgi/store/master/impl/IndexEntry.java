package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * An object's place in the candidate index. The lease is copied in, because it is the sort
 * key; a new lease means a new entry. Everything else is read through to the live metadata.
 */
final class IndexEntry implements CandidateView {
    final ObjectMeta meta;
    final CandidateIndex.Group group;
    private final long leaseExpiresAtMs;
    private final long sequence;
    private final ObjectDataType dataType;
    private final long sizeBytes;
    private final double recomputeCostMs;
    private final String groupId;

    IndexEntry(ObjectMeta meta, CandidateIndex.Group group) {
        this.meta = meta;
        this.group = group;
        this.leaseExpiresAtMs = meta.leaseExpiresAtMs;
        this.sequence = meta.sequence;
        this.dataType = meta.dataType();
        this.sizeBytes = meta.sizeBytes();
        this.recomputeCostMs = meta.current.config().recomputeCostMs();
        this.groupId = meta.current.config().groupId();
    }

    @Override
    public ObjectKey key() {
        return meta.key;
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
        return meta.softPinDeadlineMs;
    }

    @Override
    public long leaseExpiresAtMs() {
        return leaseExpiresAtMs;
    }

    @Override
    public long putTimeMs() {
        return meta.putTimeMs;
    }

    @Override
    public long lastAccessMs() {
        return meta.lastAccessMs;
    }

    @Override
    public long hitCount() {
        return meta.hits;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public String toString() {
        return meta.key + "@" + leaseExpiresAtMs;
    }
}
