package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Sample values as written into /metrics: exact, in a form Prometheus parses. */
class PrometheusFormatNumberTest {

    /** Nine significant digits wrote 1796292450.123 as 1.79629245e+09: the start time was off by seconds. */
    @Test
    void aStartTimeInEpochSecondsKeepsItsMilliseconds() {
        assertEquals("1.796292450123E9", PrometheusFormat.number(1_796_292_450.123));
    }

    @Test
    void everyValueReadsBackAsTheSameDouble() {
        double[] values = {0.1, 1.0 / 3, 0.037870126, 123_456.789, 1e15, 9.007199254740993e15, 1e300, -2.5, 4.9e-324};
        for (double v : values) {
            assertEquals(v, Double.parseDouble(PrometheusFormat.number(v)), PrometheusFormat.number(v));
        }
    }

    @Test
    void wholeNumbersHaveNoFractionAndTheSpecialValuesTheirNames() {
        assertEquals("1048576", PrometheusFormat.number(1 << 20));
        assertEquals("-1", PrometheusFormat.number(-1));
        assertEquals("0", PrometheusFormat.number(-0.0));
        assertEquals("NaN", PrometheusFormat.number(Double.NaN));
        assertEquals("+Inf", PrometheusFormat.number(Double.POSITIVE_INFINITY));
        assertEquals("-Inf", PrometheusFormat.number(Double.NEGATIVE_INFINITY));
    }
}
