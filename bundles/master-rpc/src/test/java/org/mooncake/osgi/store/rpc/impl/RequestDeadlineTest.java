package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The server's judgement of a request's time: a relative budget on its monotonic clock, else an older client's deadline. */
class RequestDeadlineTest {
    private static final long READ_AT = 5_000_000_000L;
    private static final long WALL_NOW = 1_767_225_600_000L;

    private static long after(long ms) {
        return READ_AT + TimeUnit.MILLISECONDS.toNanos(ms);
    }

    @Test
    void aTimeoutCountsFromWhenTheFrameWasReadOnTheServersClock() {
        RequestDeadline d = new RequestDeadline(READ_AT, 100, 0);
        assertFalse(d.passed(after(100), WALL_NOW), "within the budget");
        assertTrue(d.passed(after(101), WALL_NOW), "past the budget");
    }

    /** A client whose clock runs behind sends a deadline already past by the master's clock: a timeout wins. */
    @Test
    void aTimeoutIsPreferredToTheWallClockDeadlineOfTheSameRequest() {
        assertFalse(new RequestDeadline(READ_AT, 5_000, WALL_NOW - 60_000).passed(after(10), WALL_NOW));
        assertTrue(new RequestDeadline(READ_AT, 5_000, WALL_NOW + 60_000).passed(after(5_001), WALL_NOW));
    }

    @Test
    void anOlderClientsDeadlineIsJudgedByTheMastersWallClock() {
        assertTrue(new RequestDeadline(READ_AT, 0, WALL_NOW - 1).passed(READ_AT, WALL_NOW));
        assertFalse(new RequestDeadline(READ_AT, 0, WALL_NOW).passed(after(1_000_000), WALL_NOW));
    }

    @Test
    void neitherMeansNoLimit() {
        assertFalse(new RequestDeadline(READ_AT, 0, 0).passed(Long.MAX_VALUE, Long.MAX_VALUE));
        assertFalse(new RequestDeadline(READ_AT, -5, 0).passed(after(1_000_000), WALL_NOW), "a negative timeout is none");
    }
}
