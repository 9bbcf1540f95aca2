package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class PercentilesTest {
    @Test
    void interpolatesBetweenTheNearestRanks() {
        List<Double> v = List.of(40.0, 10.0, 30.0, 20.0, 50.0);
        assertEquals(30, Percentiles.of(v, 50), 1e-9);
        assertEquals(10, Percentiles.of(v, 0), 1e-9);
        assertEquals(50, Percentiles.of(v, 100), 1e-9);
        assertEquals(48, Percentiles.of(v, 95), 1e-9, "rank 3.8: 40 + 0.8 * 10");
        assertEquals(15, Percentiles.of(List.of(10.0, 20.0), 50), 1e-9);
    }

    @Test
    void anEmptySampleHasNoPercentileAndOneValueIsEveryPercentile() {
        assertTrue(Double.isNaN(Percentiles.of(List.of(), 50)));
        assertEquals(7, Percentiles.of(List.of(7.0), 95), 1e-9);
    }

    @Test
    void aPercentileOutsideZeroToHundredIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Percentiles.of(List.of(1.0), 101));
        assertThrows(IllegalArgumentException.class, () -> Percentiles.of(List.of(1.0), -1));
    }
}
