package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void itLearnsHowLongALiveGroupStaysQuietFromTheGapsAfterWhichGroupsWroteAgain() {
        assertEquals(Long.MAX_VALUE, groups.endAfterMs(0.99), "nothing seen: no group has ended");
        for (int g = 0; g < 100; g++) {
            groups.written("g" + g, 0);
            groups.written("g" + g, GroupActivity.BURST_MS - 1); // the same request: not a return
            groups.hit("g" + g, 30_000); // a read of its object, maybe by another group: not a return
        }
        assertEquals(Long.MAX_VALUE, groups.endAfterMs(0.99), "neither bursts nor hits are returns");
        for (int g = 0; g < 99; g++) {
            groups.written("g" + g, 1_000); // back after about 1 s
        }
        groups.written("g99", 60_000); // one back after a minute
        long end = groups.endAfterMs(0.99);
        assertTrue(end >= 1_000 && end < 1_500, "99% came back within about a second: " + end);
        long longest = groups.endAfterMs(0.999);
        assertTrue(longest >= 59_000 && longest < 90_000, "one in a hundred took a minute: " + longest);
    }

    /** A group-only object of a group quiet past the end is a class of its own; nothing else is. */
    @Test
    void aGroupOnlyObjectOfAGroupQuietPastTheEndIsClassedEnded() {
        long end = 1_448;
        groups.written("g", 0);
        groups.written("g", 60_000);
        groups.hit("g", 65_000); // a read, maybe by another group: the group is still quiet since its write
        int before = groups.classOf("g");
        GroupActivity.RunMemo memo = groups.new RunMemo();
        assertEquals(before, memo.classOf("g", true, 60_000 + end, end), "quiet for exactly the end: still live");
        assertEquals(GroupActivity.ENDED, memo.classOf("g", true, 60_001 + end, end), "from its last write, not the later hit");
        assertEquals(before, memo.classOf("g", false, 70_000, end), "an object without the hint keeps its group's class");
        assertEquals(GroupActivity.UNREAD_SHORT, memo.classOf("never-seen", true, 70_000, end), "an unknown group never ends");
        assertEquals(GroupActivity.NONE, memo.classOf(null, true, 70_000, end));
        assertEquals(before, memo.classOf("g", true, 70_000, Long.MAX_VALUE), "no end learned yet: no group has ended");
        assertEquals(GroupActivity.ENDED, groups.classOfThenHit("g", true, 70_000, end), "the class before a hit, too");
        assertEquals(before, groups.classOfThenHit("g", false, 70_000, end));
    }

    /** Past {@link GroupActivity#FADE_GAPS} the old gaps count half, so that a change of pace shows. */
    @Test
    void oldReturnGapsFadeSoThatNewOnesWeighMore() {
        long old = GroupActivity.FADE_GAPS + 10_000;
        for (long g = 0; g < old; g++) {
            groups.written("old" + g, 0);
            groups.written("old" + g, 1_000);
        }
        groups.fadeReturnGaps();
        for (long g = 0; g < 100_000; g++) { // fewer than the old gaps, more than half of them
            groups.written("new" + g, 0);
            groups.written("new" + g, 10_000);
        }
        assertTrue(groups.endAfterMs(0.5) >= 10_000, "the median should be a new gap: " + groups.endAfterMs(0.5));
    }

    @Test
    void fewReturnsAreNotTrusted() {
        for (int g = 0; g < GroupActivity.MIN_GAPS - 1; g++) {
            groups.written("g" + g, 0);
            groups.written("g" + g, 1_000);
        }
        assertEquals(Long.MAX_VALUE, groups.endAfterMs(0.99));
        groups.written("last", 0);
        groups.written("last", 1_000);
        assertTrue(groups.endAfterMs(0.99) < 1_500);
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
