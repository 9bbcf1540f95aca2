package org.mooncake.osgi.policy.wtinylfu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;

/** How objects move between window, probation and protected. */
class SpaceTest {
    private final Space space = new Space();
    private long sequence;

    private TestCandidate write(String key, long size) {
        TestCandidate c = TestCandidate.of(key, ++sequence, size, sequence);
        space.written(c);
        return c;
    }

    private AccessQueue.Part where(String key) {
        return space.node(ObjectKey.of(key)).queue.part;
    }

    private static List<String> keys(AccessQueue q) {
        List<String> out = new ArrayList<>();
        for (Node n = q.head; n != null; n = n.next) {
            out.add(n.key.key());
        }
        return out;
    }

    @Test
    void aNewObjectEntersTheWindowAndAHitThereKeepsItThere() {
        space.resize(100_000);
        TestCandidate a = write("a", 100);
        write("b", 100);
        space.hit(a.readAt(10, 1));
        assertEquals(List.of("b", "a"), keys(space.window), "a hit moves it to the window's back");
        assertEquals(200, space.window.weight);
    }

    @Test
    void theWindowOverflowsIntoProbationLeastRecentFirst() {
        space.resize(100_000); // window: 1,000 bytes
        for (String k : new String[] {"a", "b", "c", "d", "e"}) {
            write(k, 400);
        }
        Node first = space.overflowWindow();
        assertEquals("a", first.key.key());
        assertEquals(List.of("a", "b", "c"), keys(space.probation));
        assertEquals(List.of("d", "e"), keys(space.window));
        assertEquals(800, space.window.weight);
    }

    @Test
    void aHitInProbationPromotesAndProtectedOverItsBudgetDemotesItsOldest() {
        space.resize(1_000); // window 10 bytes, protected 792
        List<TestCandidate> objects = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            objects.add(write("o" + i, 100));
        }
        space.overflowWindow();
        assertEquals(9, space.probation.size);
        for (TestCandidate c : objects) {
            space.hit(c.readAt(100, 1));
        }
        assertEquals(AccessQueue.Part.PROTECTED, where("o8"));
        assertEquals(900, space.protectedQueue.weight, "over budget until maintenance");
        space.maintain();
        assertEquals(List.of("o0", "o1"), keys(space.probation), "the least recently used go back to probation");
        assertEquals(700, space.protectedQueue.weight);
    }

    @Test
    void anObjectLargerThanProtectedStaysInProbationWhenHit() {
        space.resize(1_000);
        TestCandidate big = write("big", 900);
        space.overflowWindow();
        space.hit(big.readAt(5, 1));
        assertEquals(AccessQueue.Part.PROBATION, where("big"));
    }

    @Test
    void anEvictionOfAnOlderVersionLeavesTheNewOne() {
        space.resize(100_000);
        TestCandidate old = write("k", 100);
        TestCandidate replaced = TestCandidate.of("k", ++sequence, 300, sequence);
        space.written(replaced);
        assertEquals(300, space.window.weight, "a new version weighs what it weighs now");
        space.evicted(old);
        assertEquals(1, space.size());
        space.evicted(replaced);
        assertEquals(0, space.size());
        assertNull(space.node(ObjectKey.of("k")));
        assertEquals(0, space.weight());
    }

    /** A sample of the sketch's sample size with the given share of hits, then maintenance. */
    private void sample(double hitShare) {
        for (int i = 0; i < space.sketch.sampleSize(); i++) {
            if (i < hitShare * space.sketch.sampleSize()) {
                space.climber.recordHit();
            } else {
                space.climber.recordMiss();
            }
        }
        space.maintain();
    }

    @Test
    void theClimberShrinksTheWindowFirstAndGrowsItWhenTheHitRateFell() {
        space.resize(100_000); // window 1,000 bytes; a step is 6,250
        for (int i = 0; i < 600; i++) {
            write("o" + i, 100);
        }
        space.overflowWindow();
        assertEquals(10, space.window.size);
        sample(0.5);
        assertEquals(0.001, space.windowShare(), 1e-9, "shrunk by the objects it could give up: 9 of 10");
        assertEquals(1, space.window.size);
        assertEquals(List.of("o599"), keys(space.window), "the newest stays");
        sample(0);
        assertEquals(0.063, space.windowShare(), 1e-9, "grown by a step's worth of whole objects: 62");
        assertEquals(63, space.window.size);
        assertEquals("o0", space.window.head.next.key.key(), "from probation's least recently used end");
    }
}
