package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Everything the master knows about one key. Guarded by the lock of the shard that holds it;
 * the eviction planner reads the {@link IndexEntry} snapshot instead, never these fields.
 */
final class ObjectMeta {
    final ObjectKey key;
    /** The key's hash, kept so that dropping a known object never reads the key again. */
    final int hash;
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
    long putTimeMs;
    long leaseExpiresAtMs;
    long softPinDeadlineMs;
    long lastAccessMs;
    long hits;
    boolean hardPinned;
    /** The entry that represents this object in the candidate index; null when not evictable. */
    IndexEntry indexEntry;

    ObjectMeta(ObjectKey key) {
        this.key = key;
        this.hash = key.hashCode();
    }

    boolean readable() {
        return current != null;
    }

    /** Nothing readable and no put in progress: the key is gone, though its shard's table may still hold this. */
    boolean vacant() {
        return current == null && pending == null;
    }

    ObjectDataType dataType() {
        return current.config().dataType();
    }

    long sizeBytes() {
        return current.sizeBytes();
    }
}
