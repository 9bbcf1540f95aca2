package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class MetricsTest {
    private static final String TEXT = """
            # HELP mooncake_epd_hidden_state_lookups_total Look-ups by outcome
            # TYPE mooncake_epd_hidden_state_lookups_total counter
            mooncake_epd_hidden_state_lookups_total{outcome="hit"} 3
            mooncake_epd_hidden_state_lookups_total{outcome="miss"} 1.0
            mooncake_epd_hidden_state_transfers_total{op="put",outcome="ok"} 2 1700000000000
            mooncake_epd_worker_encoder_passes_total{model="mooncake-vl@r1"} 4
            mooncake_epd_worker_encoder_passes_total{model="mooncake-vl@r2"} 1
            weird{path="a \\"quoted\\" \\\\ back\\nslash", le="+Inf"} +Inf
            nan_metric NaN
            plain_gauge 7
            """;

    @Test
    void parsesNamesLabelsValuesAndSkipsCommentsAndTimestamps() {
        Metrics m = Metrics.parse(TEXT);
        assertEquals(3, m.sum("mooncake_epd_hidden_state_lookups_total", "outcome", "hit"));
        assertEquals(4, m.sum("mooncake_epd_hidden_state_lookups_total"), "all label sets summed");
        assertEquals(2, m.sum("mooncake_epd_hidden_state_transfers_total", "op", "put", "outcome", "ok"),
                "the timestamp is not the value");
        assertEquals(5, m.sum("mooncake_epd_worker_encoder_passes_total"));
        assertEquals(7, m.sum("plain_gauge"));
        assertEquals(Double.POSITIVE_INFINITY, m.sum("weird", "path", "a \"quoted\" \\ back\nslash"));
        assertTrue(Double.isNaN(m.sum("nan_metric")));
        assertEquals(0, m.sum("absent_total"), "a counter not yet seen counts as 0");
        assertEquals(0, m.sum("mooncake_epd_hidden_state_lookups_total", "outcome", "pending"));
    }

    @Test
    void aDeltaSubtractsTheEarlierScrapeAndCountsAbsentSeriesAsZero() {
        Metrics before = Metrics.parse("a_total{k=\"x\"} 2\ngone_total 5\n");
        Metrics after = Metrics.parse("a_total{k=\"x\"} 5\nnew_total{k=\"y\"} 1\n");
        Metrics d = after.minus(before);
        assertEquals(3, d.sum("a_total", "k", "x"));
        assertEquals(1, d.sum("new_total"), "a counter that appeared with its first event");
        assertEquals(-5, d.sum("gone_total"), "a vanished series shows as going back, not as nothing");
        assertEquals(Map.of("k", "y"), d.samples().keySet().stream().filter(s -> s.name().equals("new_total"))
                .findFirst().orElseThrow().labels());
    }

    @Test
    void labelOrderDoesNotSplitASeries() {
        Metrics before = Metrics.parse("t_total{op=\"put\",outcome=\"ok\"} 1\n");
        Metrics after = Metrics.parse("t_total{outcome=\"ok\",op=\"put\"} 4\n");
        assertEquals(3, after.minus(before).sum("t_total", "op", "put"));
        assertEquals(1, after.minus(before).samples().size());
    }

    @Test
    void aLineThatIsNoSampleIsRefusedWithItsNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Metrics.parse("ok_total 1\nbroken{outcome=\"hit\" 3\n"));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Metrics.parse("no_value_total\n"));
        assertThrows(IllegalArgumentException.class, () -> Metrics.parse("x_total abc\n"));
    }

    @Test
    void seriesPrintAsPrometheusWrotThem() {
        assertEquals("t_total{op=\"put\",outcome=\"ok\"}",
                new Metrics.Series("t_total", Map.of("outcome", "ok", "op", "put")).toString());
        assertEquals("t_total", new Metrics.Series("t_total", Map.of()).toString());
    }
}
