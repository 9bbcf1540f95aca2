package org.mooncake.osgi.policy.wtinylfu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/** Admission emulated in a plan: the newcomer that loses the frequency duel goes first. */
class VictimWalkTest {
    private final Space space = new Space();
    private long sequence;

    private TestCandidate write(String key, int uses) {
        TestCandidate c = TestCandidate.of(key, ++sequence, 100, sequence);
        space.written(c);
        for (int i = 1; i < uses; i++) {
            space.hit(c);
        }
        return c;
    }

    /** Probation holds p0..p4, each used {@code uses} times; the window is empty. */
    private void probation(int uses) {
        space.resize(10_000); // window: 100 bytes, one object
        for (int i = 0; i < 5; i++) {
            write("p" + i, uses);
        }
        write("filler", 1);
        space.overflowWindow();
        space.forget(space.node(ObjectKey.of("filler")));
        assertEquals(5, space.probation.size);
        assertEquals(0, space.window.size);
    }

    private List<String> plan(long bytes) {
        VictimWalk walk = new VictimWalk(space, 1, c -> true, new SplittableRandom(1)).withAdmission(bytes);
        return walk.victims.stream().map(n -> n.key.key()).toList();
    }

    @Test
    void aNewcomerLessFrequentThanProbationsOldestGoesFirst() {
        probation(3);
        write("new", 1);
        write("newer", 1);
        assertEquals(List.of("new"), plan(100), "refused: the frequency duel lost to p0's 3 uses");
        assertEquals(AccessQueue.Part.PROBATION, space.node(ObjectKey.of("p0")).queue.part);
    }

    @Test
    void aNewcomerMoreFrequentThanProbationsOldestTakesItsPlace() {
        probation(2);
        write("new", 4);
        write("newer", 1);
        assertEquals(List.of("p0"), plan(100), "admitted: 4 uses beat p0's 2");
        assertEquals(AccessQueue.Part.PROBATION, space.node(ObjectKey.of("new")).queue.part);
    }

    @Test
    void aLongerPlanDuelsEveryNewcomerThenTakesTheRestInOrder() {
        probation(2);
        write("hot", 4);
        write("cold", 1);
        write("newest", 1);
        // hot beats p0 (p0 goes), cold loses to p1; then the window's newest duels p1 and loses;
        // with no candidates left, probation gives up p1, p2, ...
        assertEquals(List.of("p0", "cold", "newest", "p1", "p2"), plan(500));
    }

    @Test
    void objectsThePassMayNotTakeArePassedOver() {
        probation(2);
        write("new", 1);
        write("newer", 1);
        VictimWalk walk = new VictimWalk(space, 1, (CandidateView c) -> !c.key().key().equals("new"), new SplittableRandom(1))
                .withAdmission(100);
        assertEquals(List.of("newer"), walk.victims.stream().map(n -> n.key.key()).toList(),
                "a leased newcomer stays (admitted without a duel); the window's next duels p0 and loses");
        assertEquals(AccessQueue.Part.PROBATION, space.node(ObjectKey.of("new")).queue.part);
    }
}
