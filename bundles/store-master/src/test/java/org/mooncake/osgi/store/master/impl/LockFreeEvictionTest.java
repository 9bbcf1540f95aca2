package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ObjectInfo;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;

/**
 * The evictor takes victims without shard locks ({@link IndexEntry#claim}); these tests pin
 * down who wins each race with a reader or writer, and that nothing is lost or freed twice.
 */
class LockFreeEvictionTest {
    private static final int BLOCK = 1024;
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    LockFreeEvictionTest() {
        f.mount("owner", "s1", 100 * BLOCK);
    }

    private void fill(int n) {
        for (int i = 0; i < n; i++) {
            f.put("o" + i, BLOCK);
            f.clock.advance(1);
        }
    }

    private IndexEntry entryOf(String key) {
        ObjectMeta meta = m.shardOf(k(key)).objects.get(k(key));
        assertNotNull(meta, key);
        return meta.published();
    }

    /** With the old design (a shard lock per victim) this round would fail on its first victim. */
    @Test
    void aRoundTakesNoShardLockSoItFinishesWhileTheCallerHoldsThemAll() {
        fill(95);
        Set<Shard> held = new LinkedHashSet<>();
        for (int i = 0; i < 95; i++) {
            held.add(m.shardOf(k("o" + i)));
        }
        held.forEach(Shard::lock); // not reentrant: taking one of these again would throw
        try {
            m.runEvictionRound();
        } finally {
            held.forEach(Shard::unlock);
        }
        assertEquals(85L * BLOCK, m.stats().usedBytes());
        assertEquals(85, m.stats().objects());
        for (int i = 0; i < 10; i++) {
            assertFalse(m.exists(k("o" + i)), "o" + i);
        }
    }

    /** Victims are purged from the lease order on a second thread (see {@link Unlinker}), which may finish after the round. */
    @Test
    void aRoundLeavesNoVictimInTheLeaseOrder() {
        MasterFixture g = new MasterFixture();
        g.mount("owner", "s1", 50_000L * BLOCK);
        for (int i = 0; i < 45_600; i++) { // 91% full: the round takes 3,000 victims, more than a batch
            g.put("o" + i, BLOCK);
        }
        g.clock.advance(20_000);
        g.master.runEvictionRound();
        assertTrue(g.master.stats().objects() < 43_000, "the round took victims: " + g.master.stats().objects());
        assertIndexHoldsOnlyLiveEntries(g.master);
    }

    /**
     * Every entry the lease orders hold, published or not, is its object's published entry (no
     * claimed victim and no stale entry is left behind), and the counts agree.
     */
    static void assertIndexHoldsOnlyLiveEntries(StoreMaster master) {
        master.evictor().awaitPurged(); // a round returns before its victims' purge from the lease order ends
        long held = 0;
        long counted = 0;
        for (var group : master.index.groups()) {
            for (IndexEntry e : ((CandidateIndex.Group) group).entries.held()) {
                assertSame(e, e.meta.published(), "a stale or claimed entry is still held: " + e);
                held++;
            }
            long listed = 0;
            for (var it = group.inLeaseOrder(); it.hasNext(); it.next()) {
                listed++;
            }
            assertEquals(group.objectCount(), listed, "entries listed against the group's count");
            counted += group.objectCount();
        }
        assertEquals(counted, held, "entries held against the groups' counts");
    }

    @Test
    void aReadThatLeasesTheObjectAfterPlanningWins() {
        fill(1);
        f.clock.advance(20_000);
        IndexEntry planned = entryOf("o0");
        m.getReplicaList(k("o0"));
        assertFalse(m.evict(planned, f.clock.millis(), true), "the planner's entry is stale: the claim fails");
        assertTrue(m.exists(k("o0")));
        assertEquals(1, m.stats().objects());
    }

    @Test
    void aReadThatKeepsTheLeaseLeavesTheEntryClaimable() {
        fill(1);
        m.getReplicaList(k("o0"));
        IndexEntry leased = entryOf("o0");
        m.getReplicaList(k("o0")); // same millisecond: the lease stays, the entry is updated in place
        assertSame(leased, entryOf("o0"));
        assertEquals(2, leased.hitCount());
        assertFalse(m.evict(leased, f.clock.millis(), true), "leased");
        f.clock.advance(20_000);
        assertTrue(m.evict(leased, f.clock.millis(), true), "the lease has ended");
    }

    @Test
    void anObjectTheEvictorClaimedIsGoneToEveryCallAndCanBePutAgain() {
        fill(2);
        f.clock.advance(20_000);
        assertTrue(claimAndCount(entryOf("o0")));
        StoreException miss = assertThrows(StoreException.class, () -> m.getReplicaList(k("o0")));
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, miss.errorCode());
        assertFalse(m.exists(k("o0")));
        assertEquals(Optional.empty(), m.queryKey(k("o0")));
        assertEquals(ErrorCode.OBJECT_NOT_FOUND,
                assertThrows(StoreException.class, () -> m.remove(k("o0"), true)).errorCode());
        assertEquals(1, m.stats().objects());
        f.put("o0", BLOCK); // not "already exists"
        assertEquals("COMPLETE", m.queryKey(k("o0")).orElseThrow().state());
        assertEquals(2, m.stats().objects());
    }

    @Test
    void anUpsertOverAClaimedVersionDoesNotFreeItsBlocksAgain() {
        fill(1);
        f.clock.advance(20_000);
        ObjectKey key = k("o0");
        PutTicket upsert = m.putStart("writer", key, BLOCK, ReplicateConfig.DEFAULT, true);
        IndexEntry old = entryOf("o0");
        assertTrue(claimAndCount(old), "the old version is still evictable while the upsert is written");
        old.version.freeAll(); // what the round's unlinker does with it
        m.putEnd("writer", key, upsert.putId(), 7); // would throw on a double free of the old blocks
        f.clock.advance(3_600_000);
        f.master.heartbeat("owner");
        m.runHousekeeping();
        assertEquals(OffsetAllocator.blockSize(BLOCK), m.stats().usedBytes(), "only the upsert's block is used");
        assertEquals(7, m.queryKey(key).orElseThrow().checksum());
    }

    @Test
    void aSegmentLostAfterAClaimCountsTheObjectOnce() {
        fill(3);
        f.clock.advance(20_000);
        assertTrue(claimAndCount(entryOf("o0")));
        m.unmountSegment("owner", "s1");
        assertEquals(0, m.stats().objects());
        assertEquals(0, m.stats().types().stream().mapToLong(t -> t.bytes()).sum());
    }

    private static final Set<ErrorCode> EXPECTED = EnumSet.of(ErrorCode.OBJECT_NOT_FOUND,
            ErrorCode.OBJECT_ALREADY_EXISTS, ErrorCode.OBJECT_BEING_WRITTEN, ErrorCode.NO_AVAILABLE_HANDLE,
            ErrorCode.OBJECT_HAS_LEASE, ErrorCode.REPLICA_IS_NOT_READY, ErrorCode.INVALID_WRITE);

    /**
     * Readers and writers race eviction rounds on a clock the round thread moves. Two kinds of
     * keys: "stable" ones are only put, read and removed without force, so once a read holds a
     * lease nothing may take the object before it ends; the others are also upserted and
     * force-removed. At the end every block must be accounted for exactly once.
     */
    @RepeatedTest(10)
    void readersWritersAndRoundsNeverLoseALeaseOrABlock() throws Exception {
        // until a round has run: on a loaded machine 200,000 operations may end before the store fills
        race(f, new Sizes(3 * BLOCK, 0), master -> master.stats().evictionRounds() > 0);
    }

    /**
     * The same race where one put in four is of a large object that often finds no contiguous
     * room, so rounds also make room for it ({@link RoomMaker}) while readers lease and writers
     * write around the range it chose.
     */
    @RepeatedTest(10)
    void roundsThatMakeRoomForLargePutsNeverLoseALeaseOrABlock() throws Exception {
        MasterSettings d = MasterSettings.DEFAULTS;
        // Short leases, so that ranges come free; abandoned puts released after 2 s rather than
        // 10 min, or their blocks, scattered by force-removes, would leave no range for a room.
        MasterFixture g = new MasterFixture(new MasterSettings(10, d.defaultSoftPinTtlMs(), d.maxSoftPinTtlMs(),
                d.allowEvictSoftPinned(), d.evictionRatio(), d.highWatermark(), d.clientTtlMs(), 1_000, 2_000,
                d.allocationStrategy(), d.shards(), d.preferredPolicy()));
        g.mount("owner", "s1", 512 * BLOCK);
        race(g, new Sizes(BLOCK, 64 * BLOCK), master -> master.evictor().roomsMade() >= 3);
        assertTrue(g.master.evictor().roomsMade() >= 3, "too few rounds made room: the race hardly reached that path");
    }

    /** Puts of 1 to {@code small} bytes, and when {@code large} is not 0 one in sixteen of {@code large}. */
    private record Sizes(int small, int large) {
        int next(SplittableRandom rnd) {
            return large > 0 && rnd.nextInt(16) == 0 ? large : 1 + rnd.nextInt(small);
        }
    }

    /** Runs until the workers have done enough and {@code enough} holds of the master (within a bound). */
    private static void race(MasterFixture g, Sizes sizes, java.util.function.Predicate<StoreMaster> enough)
            throws Exception {
        StoreMaster master = g.master;
        int workers = 3;
        int keys = 300;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong operations = new AtomicLong();
        List<Future<?>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(workers)) {
            for (int w = 0; w < workers; w++) {
                String client = "w" + w;
                SplittableRandom rnd = new SplittableRandom(w * 31L + System.nanoTime());
                results.add(pool.submit(() -> work(g, client, rnd, keys, sizes, stop, operations)));
            }
            SplittableRandom rnd = new SplittableRandom();
            try {
                // rounds until the workers have done enough, or one of them failed
                for (int round = 1; (operations.get() < 200_000 || !enough.test(master)) && operations.get() < 5_000_000
                        && results.stream().noneMatch(Future::isDone); round++) {
                    g.clock.advance(rnd.nextInt(20));
                    master.runEvictionRound();
                    if (round % 256 == 0) { // the clients live on; abandoned puts' blocks come back
                        for (int w = 0; w < workers; w++) {
                            master.heartbeat("w" + w);
                        }
                        master.heartbeat("owner");
                        master.runHousekeeping();
                    }
                }
            } finally {
                stop.set(true);
            }
            for (Future<?> r : results) {
                r.get(); // rethrows what a worker hit
            }
        }
        assertTrue(master.stats().evictionRounds() > 0, "the store filled up and rounds ran");
        g.clock.advance(3_600_000); // every lease, deferred free and abandoned put is due
        master.heartbeat("owner");
        master.runHousekeeping();
        long live = 0;
        long bytes = 0;
        for (int i = 0; i < keys; i++) {
            Optional<ObjectInfo> info = master.queryKey(k("k" + i));
            if (info.isPresent() && info.get().state().equals("COMPLETE")) {
                live++;
                bytes += OffsetAllocator.blockSize(info.get().sizeBytes()) * info.get().replicas().size();
            }
        }
        assertEquals(0, master.stats().processingPuts());
        assertEquals(live, master.stats().objects());
        assertIndexHoldsOnlyLiveEntries(master);
        assertEquals(bytes, master.stats().usedBytes(), "every block is either an object's or free, once");
    }

    private static void work(MasterFixture g, String client, SplittableRandom rnd, int keys, Sizes sizes,
            AtomicBoolean stop, AtomicLong ops) {
        while (!stop.get()) {
            int i = rnd.nextInt(keys);
            boolean stable = i % 2 == 0;
            ObjectKey key = k("k" + i);
            try {
                switch (rnd.nextInt(6)) {
                    case 0, 1 -> put(g.master, client, key, !stable && rnd.nextBoolean(), sizes.next(rnd));
                    case 2, 3 -> read(g, key, stable);
                    case 4 -> g.master.exists(key);
                    default -> g.master.remove(key, !stable && rnd.nextBoolean());
                }
            } catch (StoreException e) {
                if (!EXPECTED.contains(e.errorCode())) {
                    throw e;
                }
            }
            ops.incrementAndGet();
        }
    }

    private static void put(StoreMaster master, String client, ObjectKey key, boolean upsert, int size) {
        PutTicket t = master.putStart(client, key, size, ReplicateConfig.DEFAULT, upsert);
        try {
            master.putEnd(client, key, t.putId(), 1);
        } catch (StoreException e) {
            try {
                master.putRevoke(client, key, t.putId()); // force-removed, or taken over as a zombie
            } catch (StoreException gone) {
                // taken over: its blocks wait for the release timeout
            }
            throw e;
        }
    }

    private static void read(MasterFixture g, ObjectKey key, boolean stable) {
        ReadLease lease = g.master.getReplicaList(key);
        Optional<ObjectInfo> after = g.master.queryKey(key);
        if (stable && g.clock.millis() < lease.leaseExpiresAtMs()) {
            assertTrue(after.isPresent() && after.get().state().equals("COMPLETE"),
                    key + " went while a read held its lease");
            assertEquals(lease.replicas(), after.get().replicas());
        }
    }

    /** What a round does with one victim besides freeing its blocks: claims it and counts it. */
    private boolean claimAndCount(IndexEntry victim) {
        if (!m.evict(victim, f.clock.millis(), true)) {
            return false;
        }
        EvictionTally tally = new EvictionTally();
        tally.add(victim);
        m.countEvictions(tally);
        return true;
    }
}
