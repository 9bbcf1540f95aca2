package org.mooncake.osgi.policy.wtinylfu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WindowClimberTest {
    private static final long MAX = 1_000_000;
    private static final long PERIOD = 100;

    /** Closes a sample of {@link #PERIOD} requests with the given hits. */
    private static long sample(WindowClimber c, int hits) {
        for (int i = 0; i < PERIOD; i++) {
            if (i < hits) {
                c.recordHit();
            } else {
                c.recordMiss();
            }
        }
        c.determineAdjustment(MAX, PERIOD, true);
        return c.adjustment();
    }

    @Test
    void theFirstStepShrinksTheWindowBySixPercentOfTheMaximum() {
        WindowClimber c = new WindowClimber();
        c.sizeFor(MAX);
        assertEquals(-62_500, sample(c, 50));
    }

    @Test
    void aHitRateThatDidNotFallKeepsTheDirectionWithASmallerStep() {
        WindowClimber c = new WindowClimber();
        c.sizeFor(MAX);
        sample(c, 50);
        assertEquals(-62_500, sample(c, 52), "up 2 points: on the same way");
        assertEquals(-61_250, sample(c, 53), "and again, 2% shorter");
    }

    @Test
    void aHitRateThatFellTurnsBack() {
        WindowClimber c = new WindowClimber();
        c.sizeFor(MAX);
        sample(c, 50);
        sample(c, 52);
        assertEquals(61_250, sample(c, 50), "down 2 points: the other way");
        assertEquals(-60_025, sample(c, 48), "down again: back again");
    }

    @Test
    void aJumpOfFivePointsRestartsAtTheFullStep() {
        WindowClimber c = new WindowClimber();
        c.sizeFor(MAX);
        sample(c, 50);
        sample(c, 52);
        sample(c, 53);
        assertEquals(-60_025, sample(c, 60), "up 7 points: same way, with the decayed step");
        assertEquals(-62_500, sample(c, 61), "then the full step again");
    }

    @Test
    void nothingMovesBeforeASampleIsFullOrWhileTheCacheFills() {
        WindowClimber c = new WindowClimber();
        c.sizeFor(MAX);
        c.recordHit();
        c.determineAdjustment(MAX, PERIOD, true);
        assertEquals(0, c.adjustment());
        for (int i = 0; i < PERIOD; i++) {
            c.recordHit();
        }
        c.determineAdjustment(MAX, PERIOD, false);
        assertEquals(0, c.adjustment(), "a cache under half full drops its sample");
        assertEquals(0, c.sampled());
    }
}
