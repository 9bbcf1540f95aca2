package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Everything the master knows about one key. Guarded by the lock of the shard that holds it.
 * The eviction thread takes an object without any lock and without touching this: it claims the
 * published {@link IndexEntry} itself ({@link IndexEntry#claim}), so a round never holds a lock
 * that a put or get waits for, however long the round thread is descheduled, and reads no more
 * than the entries it ranked. Every path that changes the readable version or its lease first
 * {@link #detach detaches} the entry under the shard lock; from then until it publishes a new one
 * the object is out of the evictor's reach, and if the evictor won the race, detach reports it
 * and the object is gone. The planner reads the entry's snapshot, never these fields.
 */
final class ObjectMeta {
    final ObjectKey key;
    /** The key's hash, kept so that dropping a known object never reads the key again. */
    final int hash;
    /**
     * The readable version; null until the first put-end. Once the evictor has claimed the
     * object this still holds the evicted version until the next {@link #detach} (or the shard's
     * sweep of vacant objects) drops it; use {@link #current()} or {@link #readable()} to ask.
     */
    private Version current;
    /** A put in progress (a first put, or an upsert over {@link #current}). */
    Version pending;
    /**
     * The pending put was cancelled (forced remove, lost segment) while its writer may still be
     * copying: its blocks stay reserved until the writer revokes or the release timeout.
     */
    boolean pendingAborted;
    /** Neighbours in the shard's list of puts in progress ({@link Shard#pendingStarted}), while {@link #pending} is set. */
    ObjectMeta pendingPrev;
    ObjectMeta pendingNext;

    /** Assigned at each put-end: orders versions, breaks lease ties. */
    long sequence;
    long putTimeMs;
    long leaseExpiresAtMs;
    long softPinDeadlineMs;
    long lastAccessMs;
    long hits;
    boolean hardPinned;
    /** The entry the evictor may claim; null when not evictable or detached. */
    private IndexEntry indexEntry;

    ObjectMeta(ObjectKey key) {
        this.key = key;
        this.hash = key.hashCode();
    }

    /**
     * The readable version, or null; an object whose entry the evictor has claimed is not
     * readable, though {@link #current} keeps the version until the next {@link #detach}. To keep
     * or change the version, {@link #detach} first.
     */
    Version current() {
        IndexEntry e = indexEntry;
        return e != null && e.claimed() ? null : current;
    }

    boolean readable() {
        return current() != null;
    }

    /** Nothing readable and no put in progress: the key is gone, though its shard's table may still hold this. */
    boolean vacant() {
        return pending == null && current() == null;
    }

    /** Sets the readable version. Caller holds the shard lock and has detached the old entry. */
    void current(Version v) {
        current = v;
    }

    /**
     * Takes the published entry out of the evictor's reach and returns it (null if there was
     * none). If the evictor claimed the object first, the version is gone: it is cleared here
     * too and {@link IndexEntry#EVICTED} returned. Caller holds the shard lock.
     */
    IndexEntry detach() {
        IndexEntry e = indexEntry;
        indexEntry = null;
        if (e != null && !e.detach()) {
            current = null;
            return IndexEntry.EVICTED;
        }
        return e;
    }

    /** Makes {@code e} (which describes the current version) claimable. Caller holds the shard lock, detached. */
    void publish(IndexEntry e) {
        indexEntry = e;
    }

    /** The published entry; null when there is none (not evictable, detached) or the evictor claimed it. */
    IndexEntry published() {
        IndexEntry e = indexEntry;
        return e != null && e.claimed() ? null : e;
    }
}
