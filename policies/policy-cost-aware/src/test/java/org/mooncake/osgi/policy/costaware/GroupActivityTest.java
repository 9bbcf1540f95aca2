package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class GroupActivityTest {
    private final GroupActivity groups = new GroupActivity();

    @Test
    void classesFollowWritesHitsAndHowLongAGroupHasWritten() {
        assertEquals(GroupActivity.NONE, groups.classOf(null));
        assertEquals(GroupActivity.UNREAD_SHORT, groups.classOf("never-seen"));
        groups.written("fresh", 1_000);
        groups.written("medium", 1_000);
        groups.written("medium", 5_000);
        groups.written("long", 1_000);
        groups.written("long", 12_000);
        for (int i = 0; i < 4; i++) {
            groups.written("read", 1_000);
        }
        groups.hit("read", 1_500);
        assertEquals(GroupActivity.UNREAD_SHORT, groups.classOf("fresh"));
        assertEquals(GroupActivity.UNREAD_MEDIUM, groups.classOf("medium"));
        assertEquals(GroupActivity.UNREAD_LONG, groups.classOf("long"));
        assertEquals(GroupActivity.SOME_REUSE, groups.classOf("read"));
        assertEquals(GroupActivity.SOME_REUSE, groups.classOfThenHit("read", 1_600), "the class before the hit");
        assertEquals(GroupActivity.MUCH_REUSE, groups.classOf("read"));
    }

    /**
     * Writes and hits arrive on request threads at once; the class turns at exactly half the
     * writes, so one lost count shows: 2,000 writes and 999 hits are some reuse, one more is much.
     */
    @RepeatedTest(5)
    void countsFromManyThreadsAreNotLost() throws Exception {
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers.add(Thread.ofPlatform().start(() -> {
                await(start);
                for (int i = 0; i < 500; i++) {
                    groups.written("g", 1_000);
                    if (id * 500 + i < 999) {
                        groups.hit("g", 1_000);
                    }
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(GroupActivity.SOME_REUSE, groups.classOf("g"));
        groups.hit("g", 1_000);
        assertEquals(GroupActivity.MUCH_REUSE, groups.classOf("g"));
    }

    @Test
    void pruningDropsTheLeastRecentlyActiveGroups() {
        for (int i = 0; i < 100; i++) {
            groups.written("s" + i, i);
        }
        groups.hit("s0", 1_000);
        groups.prune(80);
        assertEquals(60, groups.size(), "the 20 over capacity and a quarter of capacity more");
        assertEquals(GroupActivity.MUCH_REUSE, groups.classOf("s0"), "active lately: kept");
        assertEquals(GroupActivity.UNREAD_SHORT, groups.classOf("s1"), "forgotten: seen as new");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
