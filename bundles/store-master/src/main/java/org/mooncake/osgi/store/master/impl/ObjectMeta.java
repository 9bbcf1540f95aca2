package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Everything the master knows about one key. Guarded by the lock of the shard that holds it;
 * fields the eviction planner reads without that lock are volatile.
 */
final class ObjectMeta {
    final ObjectKey key;
    /** The readable version; null until the first put-end. */
    Version current;
    /** A put in progress (a first put, or an upsert over {@link #current}). */
    Version pending;
    /**
     * The pending put was cancelled (forced remove, lost segment) while its writer may still be
     * copying: its blocks stay reserved until the writer revokes or the release timeout.
     */
    boolean pendingAborted;

    /** Assigned at each put-end: orders versions, breaks lease ties. */
    long sequence;
    volatile long putTimeMs;
    volatile long leaseExpiresAtMs;
    volatile long softPinDeadlineMs;
    volatile long lastAccessMs;
    volatile long hits;
    boolean hardPinned;
    /** The entry that represents this object in the candidate index; null when not evictable. */
    IndexEntry indexEntry;

    ObjectMeta(ObjectKey key) {
        this.key = key;
    }

    boolean readable() {
        return current != null;
    }

    ObjectDataType dataType() {
        return current.config().dataType();
    }

    long sizeBytes() {
        return current.sizeBytes();
    }
}
