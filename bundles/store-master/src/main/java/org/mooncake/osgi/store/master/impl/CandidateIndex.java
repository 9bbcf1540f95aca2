package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * Evictable objects by (tenant, data type), each group sorted by lease. Writers change an
 * object's entry while holding its shard lock; the eviction thread iterates and takes victims
 * without any lock (the lease orders are weakly consistent, see {@link LeaseIndex}; claims see
 * {@link IndexEntry#claim}), so a round never stalls puts and gets and reads only the prefix it
 * needs instead of scanning every object.
 */
final class CandidateIndex {
    private record GroupKey(String tenant, ObjectDataType type) {
    }

    static final class Group implements CandidateGroup {
        private final GroupKey key;
        final LeaseIndex entries = new LeaseIndex();
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
            return entries.ascending();
        }

        /** Counts back from the newest lease: leased objects are few, so this is O(leased), not O(n). */
        @Override
        public long evictableCount(long nowMs) {
            long leased = 0;
            for (Iterator<CandidateView> it = entries.descending(); it.hasNext() && it.next().leasedAt(nowMs);) {
                leased++;
            }
            return Math.max(0, count.get() - leased);
        }
    }

    private final ConcurrentMap<GroupKey, Group> groups = new ConcurrentHashMap<>();

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

    /** Takes a detached entry out of its group. Caller holds the shard lock and detached it. */
    void forget(IndexEntry e) {
        uncount(e);
        unlink(e);
    }

    /** Takes an entry out of its group's counts: its detacher (here) or its evictor (by tally), whichever won it, once. */
    void uncount(IndexEntry e) {
        uncount(e.group, 1, e.sizeBytes());
    }

    /** Takes {@code objects} entries of {@code bytes} in all out of {@code g}'s counts. */
    void uncount(Group g, long objects, long bytes) {
        g.count.addAndGet(-objects);
        g.bytes.addAndGet(-bytes);
    }

    /** Takes a detached entry out of its group's lease order. Caller holds the shard lock. */
    void unlink(IndexEntry e) {
        e.group.entries.remove(e);
    }

    /**
     * Drops a pass's claimed victims ({@code victims}, sorted by lease) from their groups' lease
     * orders, one copy per chunk that held any (see {@link LeaseIndex#purge}). Any thread: an
     * {@link Unlinker} does it beside the pass.
     */
    void purge(List<IndexEntry> victims) {
        Map<Group, List<IndexEntry>> byGroup = new IdentityHashMap<>();
        for (IndexEntry e : victims) {
            byGroup.computeIfAbsent(e.group, g -> new ArrayList<>()).add(e);
        }
        byGroup.forEach((g, sorted) -> g.entries.purge(sorted));
    }

    List<CandidateGroup> groups() {
        return new ArrayList<>(groups.values());
    }
}
