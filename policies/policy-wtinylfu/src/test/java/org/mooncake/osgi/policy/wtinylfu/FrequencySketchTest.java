package org.mooncake.osgi.policy.wtinylfu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FrequencySketchTest {
    @Test
    void countsUsesUpToFifteen() {
        FrequencySketch s = new FrequencySketch();
        for (int i = 0; i < 5; i++) {
            s.increment(42);
        }
        assertEquals(5, s.frequency(42));
        for (int i = 0; i < 30; i++) {
            s.increment(42);
        }
        assertEquals(FrequencySketch.MAX_COUNT, s.frequency(42));
        assertEquals(0, s.frequency(43), "a key never used");
    }

    @Test
    void halvesEveryCountOnceASampleIsIn() {
        FrequencySketch s = new FrequencySketch();
        for (int i = 0; i < 15; i++) {
            s.increment(7);
        }
        int before = s.frequency(7);
        int other = 1_000;
        while (s.resets() == 0) {
            s.increment(other++);
        }
        assertEquals(15, before);
        assertEquals(7, s.frequency(7), "aging halves a count: the hot key of the last sample is warm now");
        assertTrue(other - 1_000 <= s.sampleSize(), "halved after at most a sample of increments, took " + (other - 1_000));
        assertEquals(10 * FrequencySketch.MIN_CAPACITY, s.sampleSize());
    }

    @Test
    void growingForgetsAndWidensTheSample() {
        FrequencySketch s = new FrequencySketch();
        s.increment(9);
        s.ensureCapacity(100);
        assertEquals(1, s.frequency(9), "a size it already has keeps the counts");
        s.ensureCapacity(5_000);
        assertEquals(0, s.frequency(9));
        assertEquals(50_000, s.sampleSize());
    }
}
