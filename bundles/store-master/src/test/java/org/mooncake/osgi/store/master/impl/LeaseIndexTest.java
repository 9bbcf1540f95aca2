package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;

class LeaseIndexTest {
    private static final Comparator<IndexEntry> ORDER = Candidates.LEASE_ORDER::compare;

    static IndexEntry entry(long lease, long sequence) {
        ObjectMeta m = new ObjectMeta(ObjectKey.of("k" + sequence));
        m.current(new Version(sequence, "writer", 1, ReplicateConfig.DEFAULT, List.of(), 0, 0));
        m.sequence = sequence;
        m.leaseExpiresAtMs = lease;
        return new IndexEntry(m, null);
    }

    private static List<CandidateView> list(Iterator<CandidateView> it) {
        List<CandidateView> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    /** Leases drawn from a small range, so that many share one and the sequence decides. */
    private static List<IndexEntry> shuffled(int n, Random r) {
        List<IndexEntry> es = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            es.add(entry(r.nextInt(n / 8 + 1), i));
        }
        Collections.shuffle(es, r);
        return es;
    }

    /**
     * What a writer does under its shard locks: adds {@code ops} entries of its own with leases
     * below {@code leases}, removing a random one of them whenever it holds more than
     * {@code keep}; returns those it kept.
     */
    private static List<IndexEntry> write(LeaseIndex index, int id, int ops, int keep, int leases) {
        Random r = new Random(id);
        List<IndexEntry> mine = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            IndexEntry e = entry(r.nextInt(leases), (long) (id + 1) * 10_000_000 + i);
            index.add(e);
            mine.add(e);
            if (mine.size() > keep) {
                index.remove(mine.remove(r.nextInt(mine.size())));
            }
        }
        return mine;
    }

    private static List<IndexEntry> sorted(List<IndexEntry> es) {
        List<IndexEntry> sorted = new ArrayList<>(es);
        sorted.sort(ORDER);
        return sorted;
    }

    @Test
    void entriesAddedInAnyOrderComeOutInLeaseOrderBothWays() {
        LeaseIndex index = new LeaseIndex();
        List<IndexEntry> es = shuffled(5_000, new Random(1));
        es.forEach(index::add);
        List<IndexEntry> sorted = sorted(es);
        assertEquals(sorted, list(index.ascending()));
        assertEquals(sorted.reversed(), list(index.descending()));
        assertTrue(index.chunkCount() >= 5_000 / LeaseIndex.MAX, "split into chunks: " + index.chunkCount());
    }

    @Test
    void appendsLeaveTheChunksBehindTheFrontFull() {
        LeaseIndex index = new LeaseIndex();
        for (int i = 0; i < 64 * LeaseIndex.MAX; i++) {
            index.add(entry(i, i));
        }
        // 64 full chunks and the first (empty) one: appends do not leave half-empty chunks behind
        assertTrue(index.chunkCount() <= 66, "chunks: " + index.chunkCount());
    }

    @Test
    void putsArrivingBeforeTheLeasedOnesAlsoLeaveFullChunksBehind() {
        LeaseIndex index = new LeaseIndex();
        for (int i = 0; i < LeaseIndex.MAX / 2; i++) {
            index.add(entry(1_000_000 + i, i)); // leased: their lease ends after every put's
        }
        int puts = 64 * LeaseIndex.MAX;
        for (int i = 0; i < puts; i++) {
            index.add(entry(i, 1_000 + i)); // a put's lease is its put time: just before the leased
        }
        assertTrue(index.chunkCount() <= 67, "chunks: " + index.chunkCount());
        assertEquals(puts + LeaseIndex.MAX / 2, list(index.ascending()).size());
    }

    @Test
    void removedEntriesAreGoneAndEmptiedChunksLeaveTheMap() {
        LeaseIndex index = new LeaseIndex();
        Random r = new Random(2);
        List<IndexEntry> es = shuffled(4_000, r);
        es.forEach(index::add);
        List<IndexEntry> kept = new ArrayList<>();
        for (IndexEntry e : es) {
            if (r.nextBoolean()) {
                index.remove(e);
            } else {
                kept.add(e);
            }
        }
        kept.sort(ORDER);
        assertEquals(kept, list(index.ascending()));
        assertEquals(kept, index.held());
        kept.forEach(index::remove);
        index.remove(es.getFirst()); // already gone: nothing happens
        assertEquals(List.of(), list(index.ascending()));
        assertEquals(1, index.chunkCount(), "only the lowest chunk, which holds every key when alone");
        es.forEach(index::add); // and it still takes every key
        assertEquals(es.size(), list(index.ascending()).size());
    }

    @Test
    void readersSkipClaimedAndDetachedEntriesAndAPurgeDropsThem() {
        LeaseIndex index = new LeaseIndex();
        List<IndexEntry> es = shuffled(3_000, new Random(3));
        es.forEach(index::add);
        List<IndexEntry> sorted = sorted(es);
        List<IndexEntry> claimed = new ArrayList<>();
        List<IndexEntry> live = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            IndexEntry e = sorted.get(i);
            if (i % 3 == 0) {
                assertTrue(e.claim());
                claimed.add(e);
            } else if (i % 7 == 0) {
                assertTrue(e.detach()); // its writer has not taken it out yet
            } else {
                live.add(e);
            }
        }
        assertEquals(live, list(index.ascending()));
        assertEquals(live.reversed(), list(index.descending()));
        assertEquals(sorted, index.held(), "held until purged");
        index.purge(claimed);
        assertEquals(live, index.held(), "the chunks that held victims are purged of every dead entry");
    }

    @Test
    void aPurgeLeavesChunksWithoutVictimsAsTheyAre() {
        LeaseIndex index = new LeaseIndex();
        List<IndexEntry> es = new ArrayList<>();
        for (int i = 0; i < 10 * LeaseIndex.MAX; i++) {
            es.add(entry(i, i));
            index.add(es.getLast());
        }
        IndexEntry victim = es.get(3);
        IndexEntry farDetached = es.get(es.size() - 3);
        assertTrue(victim.claim());
        assertTrue(farDetached.detach());
        index.purge(List.of(victim));
        List<IndexEntry> held = index.held();
        assertFalse(held.contains(victim));
        assertTrue(held.contains(farDetached), "another chunk: its writer takes it out");
        index.remove(farDetached);
        assertFalse(index.held().contains(farDetached));
    }

    /**
     * A chunk splits after a scan has found it and before the scan reads it (the window a
     * writer on another thread can hit): going either way, the scan still yields every entry
     * that was there before, once, in order.
     */
    @Test
    void aScanThatRacesASplitLosesNothingEitherWay() {
        for (boolean up : new boolean[] {true, false}) {
            LeaseIndex[] holder = new LeaseIndex[1];
            AtomicBoolean armed = new AtomicBoolean();
            LeaseIndex index = new LeaseIndex(() -> {
                if (armed.getAndSet(false)) { // one insert into the chunk just found makes it split
                    holder[0].add(entry(100, 5_000_000)); // into the middle chunk, the second one either way reads
                }
            });
            holder[0] = index;
            List<IndexEntry> before = new ArrayList<>();
            for (int i = 0; i < 2 * LeaseIndex.MAX + 10; i++) { // appends: two full chunks and a short one
                before.add(entry(i, i));
                index.add(before.getLast());
            }
            int chunks = index.chunkCount();
            Iterator<CandidateView> scan = up ? index.ascending() : index.descending();
            armed.set(true);
            List<CandidateView> seen = list(scan);
            assertTrue(index.chunkCount() > chunks, "the insert split a chunk");
            seen.removeIf(v -> v.sequence() == 5_000_000); // seen or not: it came during the scan
            assertEquals(up ? before : before.reversed(), seen, up ? "ascending" : "descending");
        }
    }

    /**
     * An evictor claims and purges entries while writers add and remove theirs around them
     * (splitting the very chunks being purged): every claimed entry is gone in the end, and
     * nothing else is.
     */
    @RepeatedTest(5)
    void purgesRacingWritersDropEveryVictimAndNothingElse() throws Exception {
        LeaseIndex index = new LeaseIndex();
        List<IndexEntry> stable = new ArrayList<>();
        for (int i = 0; i < 6_000; i++) {
            stable.add(entry(i * 3L, 1_000_000 + i));
            index.add(stable.getLast());
        }
        int writers = 2;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        List<IndexEntry> writersKept = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int id = w;
                fs.add(pool.submit(() -> writersKept.addAll(write(index, id, 30_000, 300, 18_000))));
            }
            fs.add(pool.submit(() -> {
                for (int from = 0; from < stable.size(); from += 500) { // every other entry of each slice
                    List<IndexEntry> batch = new ArrayList<>();
                    for (int i = from; i < from + 500; i += 2) {
                        assertTrue(stable.get(i).claim());
                        batch.add(stable.get(i));
                    }
                    index.purge(batch);
                }
                return null;
            }));
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<IndexEntry> expected = new ArrayList<>(writersKept);
        for (int i = 1; i < stable.size(); i += 2) {
            expected.add(stable.get(i));
        }
        expected.sort(ORDER);
        assertEquals(expected, index.held());
    }

    /**
     * Writers add and remove their own entries (as shard locks make them do) while a reader
     * scans, up and down in turn: each scan must be strictly in order and include every entry
     * that stayed in the index for the whole scan.
     */
    @RepeatedTest(5)
    void concurrentWritersAndReadersKeepTheOrderAndLoseNothing() throws Exception {
        LeaseIndex index = new LeaseIndex();
        int writers = 3;
        int perWriter = 20_000;
        List<IndexEntry> stable = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) { // never removed: every scan must see them all
            stable.add(entry(i * 10L, 1_000_000 + i));
            index.add(stable.getLast());
        }
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(writers);
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int id = w;
                fs.add(pool.submit(() -> {
                    started.countDown();
                    return write(index, id, perWriter, 500, 20_000);
                }));
            }
            started.await();
            Future<Integer> reader = pool.submit(() -> {
                int scans = 0;
                Set<IndexEntry> mustSee = new HashSet<>(stable);
                while (!stop.get() || scans < 6) {
                    boolean up = scans % 2 == 0; // both ways: they meet a split differently
                    IndexEntry last = null;
                    int seen = 0;
                    for (Iterator<CandidateView> it = up ? index.ascending() : index.descending(); it.hasNext();) {
                        IndexEntry e = (IndexEntry) it.next();
                        if (last != null && ORDER.compare(last, e) * (up ? 1 : -1) >= 0) {
                            throw new AssertionError("out of order: " + last + " then " + e);
                        }
                        if (mustSee.contains(e)) {
                            seen++;
                        }
                        last = e;
                    }
                    if (seen != mustSee.size()) {
                        throw new AssertionError("a scan missed " + (mustSee.size() - seen) + " entries present throughout");
                    }
                    scans++;
                }
                return scans;
            });
            for (Future<?> f : fs) {
                f.get();
            }
            stop.set(true);
            assertTrue(reader.get() >= 6);
        } finally {
            pool.shutdownNow();
        }
        List<IndexEntry> held = index.held();
        for (int i = 1; i < held.size(); i++) {
            assertTrue(ORDER.compare(held.get(i - 1), held.get(i)) < 0, "held in order at " + i);
        }
        assertEquals(stable.size() + writers * 500, held.size());
    }
}
