package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;

class EvictableBlocksTest {
    private record Block(long offset, long length, long costUs, long softPin, ObjectMeta owner) {
    }

    private static final int F = EvictableBlocks.FIELDS;

    private static ObjectMeta owner(int i) {
        return new ObjectMeta(ObjectKey.of("o" + i));
    }

    /** Every block, in the order reads hand them over. */
    private static List<Block> readAll(EvictableBlocks blocks) {
        List<Block> out = new ArrayList<>();
        EvictableBlocks.ChunkReader copy = (b, owners, from, to) -> {
            for (int j = from; j < to; j++) {
                out.add(new Block(b[F * j + EvictableBlocks.OFFSET], b[F * j + EvictableBlocks.LENGTH],
                        b[F * j + EvictableBlocks.COST_US], b[F * j + EvictableBlocks.SOFT_PIN_DEADLINE_MS], owners[j]));
            }
        };
        for (long from = Long.MIN_VALUE; (from = blocks.read(from, copy)) != Long.MIN_VALUE;) {
            // one chunk a call
        }
        return out;
    }

    private static void assertSameAs(TreeMap<Long, Block> model, EvictableBlocks blocks) {
        List<Block> read = readAll(blocks);
        assertEquals(new ArrayList<>(model.values()), read, "blocks in offset order");
        assertEquals(model.size(), blocks.size());
        EvictableBlocks.Summary s = blocks.summary();
        long lengths = 0;
        long costs = 0;
        for (int c = 0; c < s.count(); c++) {
            assertTrue(s.firsts()[c] < s.ends()[c], "chunk " + c + " starts before it ends");
            assertTrue(c == 0 || s.firsts()[c - 1] < s.firsts()[c], "chunks in offset order");
            long chunkLengths = 0;
            long chunkCosts = 0;
            long nextFirst = c + 1 < s.count() ? s.firsts()[c + 1] : Long.MAX_VALUE;
            for (Block b : model.subMap(s.firsts()[c], true, nextFirst, false).values()) {
                chunkLengths += b.length();
                chunkCosts += b.costUs();
                assertTrue(b.length() <= s.maxLength());
            }
            assertEquals(chunkLengths, s.lengths()[c], "lengths of chunk " + c);
            assertEquals(chunkCosts, s.costsUs()[c], "costs of chunk " + c);
            lengths += s.lengths()[c];
            costs += s.costsUs()[c];
        }
        assertEquals(model.values().stream().mapToLong(Block::length).sum(), lengths);
        assertEquals(model.values().stream().mapToLong(Block::costUs).sum(), costs);
    }

    @RepeatedTest(20)
    void itKeepsWhatASortedMapKeepsThroughAddsRemovesAndSplits() {
        SplittableRandom rnd = new SplittableRandom();
        EvictableBlocks blocks = new EvictableBlocks();
        TreeMap<Long, Block> model = new TreeMap<>();
        long next = 0;
        for (int step = 0; step < 40; step++) {
            int op = rnd.nextInt(5);
            if (op == 0) { // a fresh segment fills in offset order: appends, which keep chunks full
                for (int i = 0; i < 300; i++) {
                    long length = 64L * (1 + rnd.nextInt(32));
                    Block b = new Block(next, length, rnd.nextInt(3) * 1500L, rnd.nextInt(5) == 0 ? 99 : 0, owner(i));
                    blocks.add(b.offset(), b.length(), b.costUs() / 1000.0, b.softPin(), b.owner());
                    model.put(b.offset(), b);
                    next += length + (rnd.nextInt(4) == 0 ? 64 : 0);
                }
            } else if (op == 1) { // puts into freed space: anywhere, and some at a listed offset (a replacement)
                for (int i = 0; i < 200; i++) {
                    long offset = 64L * rnd.nextLong(Math.max(1, next / 64));
                    Block b = new Block(offset, 64, 2000, 0, owner(i));
                    blocks.add(offset, 64, 2.0, 0, b.owner());
                    model.put(offset, b);
                }
            } else if (op == 2 && !model.isEmpty()) { // removes by owner: only the owner's block goes
                List<Block> all = new ArrayList<>(model.values());
                for (int i = 0; i < 100; i++) {
                    Block b = all.get(rnd.nextInt(all.size()));
                    boolean right = rnd.nextBoolean();
                    blocks.remove(b.offset(), right ? b.owner() : owner(-1));
                    if (right) {
                        model.remove(b.offset());
                    }
                }
            } else if (op == 3 && !model.isEmpty()) { // a round's victims, some twice, some not listed at all
                List<Block> all = new ArrayList<>(model.values());
                long[] offsets = new long[150];
                for (int i = 0; i < offsets.length; i++) {
                    offsets[i] = rnd.nextInt(4) == 0 ? 64L * rnd.nextLong(Math.max(1, next / 64)) + 1
                            : all.get(rnd.nextInt(all.size())).offset();
                    model.remove(offsets[i]);
                }
                Arrays.sort(offsets);
                blocks.removeAll(offsets, offsets.length);
            } else if (!model.isEmpty()) { // a room's victims: a run of neighbours, whole chunks among them
                List<Long> all = new ArrayList<>(model.keySet());
                int from = rnd.nextInt(all.size());
                long[] offsets = all.subList(from, Math.min(all.size(), from + 1 + rnd.nextInt(400))).stream()
                        .mapToLong(Long::longValue).filter(o -> rnd.nextInt(8) > 0).toArray();
                for (long o : offsets) {
                    model.remove(o);
                }
                blocks.removeAll(offsets, offsets.length);
            }
            assertSameAs(model, blocks);
        }
    }

    @Test
    void aReplacementTakesTheOffsetAndARemovalByAnotherOwnerLeavesIt() {
        EvictableBlocks blocks = new EvictableBlocks();
        ObjectMeta first = owner(1);
        ObjectMeta second = owner(2);
        blocks.add(128, 64, 1.5, 0, first);
        blocks.add(128, 192, 0.25, 7, second);
        blocks.remove(128, first);
        List<Block> read = readAll(blocks);
        assertEquals(1, read.size());
        assertSame(second, read.getFirst().owner());
        assertEquals(new Block(128, 192, 250, 7, second), read.getFirst());
        assertEquals(192, blocks.summary().lengths()[0]);
        assertEquals(250, blocks.summary().costsUs()[0]);
        blocks.remove(128, second);
        assertEquals(0, blocks.size());
        assertEquals(0, blocks.summary().count(), "an empty chunk is left out of the summary");
    }

    /**
     * While the evictor's side holds the lock (here a reader, parked inside its pass over a
     * chunk), a put's or remove's change does not wait: it is queued, and applied in order
     * before anything else the next time the lock is taken.
     */
    @Test
    void changesWhileTheLockIsHeldAreQueuedNotWaitedForAndAppliedInOrder() throws Exception {
        EvictableBlocks blocks = new EvictableBlocks();
        ObjectMeta a = owner(1);
        ObjectMeta b = owner(2);
        ObjectMeta c = owner(3);
        blocks.add(0, 64, 1.0, 0, a);
        blocks.add(128, 64, 1.0, 0, a);
        CountDownLatch inRead = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Long> reader = pool.submit(() -> blocks.read(Long.MIN_VALUE, (bl, owners, from, to) -> {
                inRead.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            assertTrue(inRead.await(10, TimeUnit.SECONDS), "the reader holds the lock");
            Future<?> writer = pool.submit(() -> {
                blocks.remove(0, a);            // listed: goes
                blocks.add(256, 64, 2.0, 0, b); // a put-end
                blocks.add(512, 64, 2.0, 0, c); // listed, then dropped again
                blocks.remove(512, c);
                blocks.remove(640, c);          // dropped before it is listed: stays
                blocks.add(640, 64, 2.0, 0, c);
            });
            writer.get(10, TimeUnit.SECONDS); // would wait for the reader forever if a change waited for the lock
            assertTrue(!reader.isDone(), "the reader still held the lock while the changes were made");
            release.countDown();
            reader.get(10, TimeUnit.SECONDS);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
        assertEquals(List.of(new Block(128, 64, 1000, 0, a), new Block(256, 64, 2000, 0, b), new Block(640, 64, 2000, 0, c)),
                readAll(blocks));
        assertEquals(3, blocks.size());
        assertEquals(64 * 3, blocks.summary().lengths()[0]);
    }

    @Test
    void aReadGoesOnFromAnyOffsetToTheNextBlock() {
        EvictableBlocks blocks = new EvictableBlocks();
        for (int i = 0; i < 3 * EvictableBlocks.CHUNK; i++) {
            blocks.add(1000L * i, 64, 0, 0, owner(i));
        }
        List<Long> seen = new ArrayList<>();
        long after = blocks.read(1000L * 200 + 1, (b, owners, from, to) -> {
            for (int j = from; j < to; j++) {
                seen.add(b[F * j + EvictableBlocks.OFFSET]);
            }
        });
        assertEquals(1000L * 201, seen.getFirst(), "the first block at or after the offset asked for");
        assertEquals(seen.getLast() + 1, after, "where the next read goes on");
        assertEquals(Long.MIN_VALUE, blocks.read(1000L * 3 * EvictableBlocks.CHUNK, (b, o, f, t) -> { }),
                "nothing at or after the last block");
    }

    /**
     * Writers list and drop blocks (puts, removes, a round's victims) while a reader walks the
     * blocks over and over: every walk sees offsets in order, each block once, and what stays
     * listed throughout is seen by every walk; at the end the blocks are what the writers left.
     */
    @RepeatedTest(10)
    void readersSeeEveryBlockOnceInOrderWhileWritersChangeThem() throws Exception {
        EvictableBlocks blocks = new EvictableBlocks();
        int stable = 2_000;
        for (int i = 0; i < stable; i++) {
            blocks.add(1024L * i, 64, 0, 0, owner(i)); // never touched: every walk must see them all
        }
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<Map<Long, Block>>> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(writer);
                    TreeMap<Long, Block> mine = new TreeMap<>();
                    start.await();
                    for (int i = 0; i < 20_000; i++) {
                        // each writer its own offsets between the stable blocks: 64 + 128 * k (+64 for the second)
                        long offset = 1024L * rnd.nextInt(stable) + 128 + 64 * (2 * rnd.nextInt(7) + writer);
                        if (rnd.nextInt(3) > 0) {
                            ObjectMeta o = owner(i);
                            blocks.add(offset, 64, 0, 0, o);
                            mine.put(offset, new Block(offset, 64, 0, 0, o));
                        } else if (mine.containsKey(offset)) {
                            blocks.removeAll(new long[] {offset}, 1);
                            mine.remove(offset);
                        }
                    }
                    return mine;
                }));
            }
            Future<Integer> reader = pool.submit(() -> {
                int walks = 0;
                start.await();
                while (!done.get() || walks == 0) {
                    List<Block> read = readAll(blocks);
                    int stableSeen = 0;
                    for (int i = 0; i < read.size(); i++) {
                        assertTrue(i == 0 || read.get(i - 1).offset() < read.get(i).offset(), "offsets in order, once each");
                        stableSeen += read.get(i).offset() % 1024 == 0 ? 1 : 0;
                    }
                    assertEquals(stable, stableSeen, "blocks listed throughout are seen by every walk");
                    walks++;
                }
                return walks;
            });
            start.countDown();
            TreeMap<Long, Block> expected = new TreeMap<>();
            for (Future<Map<Long, Block>> w : writers) {
                expected.putAll(w.get(60, TimeUnit.SECONDS));
            }
            done.set(true);
            assertTrue(reader.get(60, TimeUnit.SECONDS) > 0);
            List<Block> left = readAll(blocks).stream().filter(b -> b.offset() % 1024 != 0).toList();
            assertEquals(new ArrayList<>(expected.values()), left, "what the writers left listed");
        } finally {
            pool.shutdownNow();
        }
    }
}
