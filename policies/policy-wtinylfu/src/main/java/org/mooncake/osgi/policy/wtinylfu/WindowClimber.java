package org.mooncake.osgi.policy.wtinylfu;

/**
 * Sizes the admission window by hill climbing, as Caffeine's climber did up to 3.2 (3.3 steers
 * caches of more than 4,096 units by hit density instead; this is the classic rule): over each
 * sample of requests it compares the hit rate with the previous sample's; if it did not fall, the
 * window moves again the way it moved last, else the other way. Steps start at 6.25% of the
 * maximum and shrink by 2% each sample, and start over at full size when the hit rate jumps by 5
 * points or more (the workload changed). The first step shrinks the window.
 */
final class WindowClimber {
    static final double STEP_PERCENT = 0.0625;
    static final double STEP_DECAY_RATE = 0.98;
    static final double RESTART_THRESHOLD = 0.05;
    static final double MIN_STEP = 2;

    private long hits;
    private long misses;
    private double previousHitRate;
    private double step;
    /** Bytes the window should still grow by (shrink by, when negative). */
    private long adjustment;
    private boolean sized;

    /** Sets the first step for a cache of {@code maximum} bytes; later calls keep the climb going. */
    void sizeFor(long maximum) {
        if (!sized) {
            step = -restartMagnitude(maximum);
            sized = true;
        }
    }

    void recordHit() {
        hits++;
    }

    void recordMiss() {
        misses++;
    }

    long sampled() {
        return hits + misses;
    }

    /** The hit rate of the last closed sample. */
    double previousHitRate() {
        return previousHitRate;
    }

    /**
     * Once {@code samplePeriod} requests are in, closes the sample and sets the next adjustment;
     * otherwise leaves it as it is. With {@code full} false (the cache is under half full) a full
     * sample is dropped instead: a filling cache hits rarely whatever the window.
     */
    void determineAdjustment(long maximum, long samplePeriod, boolean full) {
        if (!sized || hits + misses < samplePeriod) {
            return;
        }
        if (!full) {
            close(previousHitRate);
            return;
        }
        double hitRate = (double) hits / (hits + misses);
        double change = hitRate - previousHitRate;
        double amount = change >= 0 ? step : -step;
        step = Math.abs(change) >= RESTART_THRESHOLD ? Math.copySign(restartMagnitude(maximum), amount)
                : STEP_DECAY_RATE * amount;
        adjustment = (long) amount;
        close(hitRate);
    }

    long adjustment() {
        return adjustment;
    }

    /** What could not be moved yet stays to be moved later. */
    void carryOver(long remaining) {
        adjustment = remaining;
    }

    private void close(double hitRate) {
        previousHitRate = hitRate;
        hits = 0;
        misses = 0;
    }

    private static double restartMagnitude(long maximum) {
        return Math.max(STEP_PERCENT * maximum, MIN_STEP);
    }
}
