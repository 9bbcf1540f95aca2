package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;

/**
 * Evictable objects by (tenant, data type), each group sorted by lease. Writers change an
 * object's entry while holding its shard lock; the eviction thread iterates and takes victims
 * without any lock (the skip lists are weakly consistent; see {@link ObjectMeta#claim}), so a
 * round never stalls puts and gets and reads only the prefix it needs instead of scanning every
 * object.
 */
final class CandidateIndex {
    private record GroupKey(String tenant, ObjectDataType type) {
    }

    static final class Group implements CandidateGroup {
        private final GroupKey key;
        private final ConcurrentSkipListSet<CandidateView> entries = new ConcurrentSkipListSet<>(Candidates.LEASE_ORDER);
        private final AtomicLong count = new AtomicLong();
        private final AtomicLong bytes = new AtomicLong();

        Group(GroupKey key) {
            this.key = key;
        }

        @Override
        public String tenant() {
            return key.tenant;
        }

        @Override
        public ObjectDataType dataType() {
            return key.type;
        }

        @Override
        public long objectCount() {
            return count.get();
        }

        @Override
        public long bytes() {
            return bytes.get();
        }

        @Override
        public Iterator<CandidateView> inLeaseOrder() {
            return entries.iterator();
        }

        /** Counts back from the newest lease: leased objects are few, so this is O(leased), not O(n). */
        @Override
        public long evictableCount(long nowMs) {
            long leased = 0;
            for (Iterator<CandidateView> it = entries.descendingIterator(); it.hasNext() && it.next().leasedAt(nowMs);) {
                leased++;
            }
            return Math.max(0, count.get() - leased);
        }
    }

    private final ConcurrentMap<GroupKey, Group> groups = new ConcurrentHashMap<>();

    /**
     * Detaches {@code meta}'s entry and indexes its current version with its current lease;
     * returns what {@link ObjectMeta#detach} returned (EVICTED: the object is gone and nothing
     * was indexed). Caller holds the shard lock.
     */
    IndexEntry update(ObjectMeta meta) {
        IndexEntry old = withdraw(meta);
        if (old != IndexEntry.EVICTED) {
            publish(meta);
        }
        return old;
    }

    /** Indexes the current version of a detached {@code meta} unless it is hard pinned. Caller holds the shard lock. */
    void publish(ObjectMeta meta) {
        if (meta.readable() && !meta.hardPinned) {
            Group g = groups.computeIfAbsent(new GroupKey(meta.key.tenant(), meta.current().config().dataType()),
                    Group::new);
            IndexEntry e = new IndexEntry(meta, g);
            g.entries.add(e);
            g.count.incrementAndGet();
            g.bytes.addAndGet(e.sizeBytes());
            meta.publish(e);
        }
    }

    /** Detaches {@code meta}'s entry and takes it out of the index; returns what detach returned. Caller holds the shard lock. */
    IndexEntry withdraw(ObjectMeta meta) {
        IndexEntry old = meta.detach();
        if (old != null && old != IndexEntry.EVICTED) {
            forget(old);
        }
        return old;
    }

    /** Takes an entry out of its group: by its detacher, or by the evictor that claimed it. */
    void forget(IndexEntry e) {
        Group g = e.group;
        if (g.entries.remove(e)) {
            g.count.decrementAndGet();
            g.bytes.addAndGet(-e.sizeBytes());
        }
    }

    List<CandidateGroup> groups() {
        return new ArrayList<>(groups.values());
    }
}
