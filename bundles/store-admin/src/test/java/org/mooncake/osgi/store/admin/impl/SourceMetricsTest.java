package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Sample;
import org.mooncake.osgi.store.spi.metrics.Metric.Type;
import org.mooncake.osgi.store.spi.metrics.MetricSource;

/** How metric sources reach /metrics: valid Prometheus text, whatever several sources publish together. */
class SourceMetricsTest {
    private final SourceMetrics renderer = new SourceMetrics();

    private String render(Set<String> taken, MetricSource... sources) {
        StringBuilder b = new StringBuilder();
        renderer.render(b, taken, List.of(sources));
        return b.toString();
    }

    private static long count(String text, String line) {
        return text.lines().filter(line::equals).count();
    }

    @Test
    void labelsAreSortedAndEscapedAndHelpTextKeepsToOneLine() {
        String text = render(Set.of(), Stubs.metrics(new Metric("mooncake_proxy_requests_total", "Requests\nby \\route",
                Type.COUNTER, List.of(Sample.of(Map.of("route", "/v1/chat", "model", "a\"b\\c\nd"), 3)))));
        assertEquals("""
                # HELP mooncake_proxy_requests_total Requests\\nby \\\\route
                # TYPE mooncake_proxy_requests_total counter
                mooncake_proxy_requests_total{model="a\\"b\\\\c\\nd",route="/v1/chat"} 3
                """, text);
    }

    @Test
    void aFamilyTwoSourcesPublishHasOneHeaderAndTheSamplesOfBoth() {
        MetricSource encoder = Stubs.metrics(new Metric("mooncake_epd_requests_total", "Requests", Type.COUNTER,
                List.of(Sample.of(Map.of("role", "encoder"), 5))));
        MetricSource decoder = Stubs.metrics(new Metric("mooncake_epd_requests_total", "Other help", Type.COUNTER,
                List.of(Sample.of(Map.of("role", "decoder"), 7))));
        String text = render(Set.of(), encoder, decoder);
        assertEquals(1, count(text, "# TYPE mooncake_epd_requests_total counter"), text);
        assertEquals(1, count(text, "# HELP mooncake_epd_requests_total Requests"), text);
        assertTrue(text.contains("mooncake_epd_requests_total{role=\"encoder\"} 5\n"), text);
        assertTrue(text.contains("mooncake_epd_requests_total{role=\"decoder\"} 7\n"), text);
    }

    /** Prometheus refuses a whole scrape over one clash: what would clash is left out, the rest stays. */
    @Test
    void whatWouldClashIsLeftOutAndTheRestStays() {
        MetricSource first = Stubs.metrics(
                Metric.gauge("mooncake_objects", "the store's own name", 1),
                new Metric("mooncake_queue", "Queued", Type.GAUGE, List.of(Sample.of(Map.of("q", "a"), 1))));
        MetricSource second = Stubs.metrics(
                Metric.counter("mooncake_queue", "Queued, as a counter", 2),
                new Metric("mooncake_other", "Fine", Type.GAUGE, List.of(Sample.of(Map.of("q", "a"), 1))));
        MetricSource third = Stubs.metrics(new Metric("mooncake_queue", "Queued", Type.GAUGE,
                List.of(Sample.of(Map.of("q", "a"), 9), Sample.of(Map.of("q", "b"), 4))));
        String text = render(Set.of("mooncake_objects"), first, second, third);
        assertFalse(text.contains("mooncake_objects"), "a name the store's own figures use: " + text);
        assertEquals(1, count(text, "# TYPE mooncake_queue gauge"), text);
        assertFalse(text.contains("counter"), "the family of another type: " + text);
        assertTrue(text.contains("mooncake_queue{q=\"a\"} 1\n") && !text.contains("mooncake_queue{q=\"a\"} 9"),
                "the first sample of a series is kept: " + text);
        assertTrue(text.contains("mooncake_queue{q=\"b\"} 4\n"), text);
        assertTrue(text.contains("mooncake_other{q=\"a\"} 1\n"), text);
    }

    @Test
    void aSourceThatThrowsOrAnswersNullIsLeftOutWholeAndTheOthersStay() {
        MetricSource throwing = () -> {
            throw new IllegalStateException("broken");
        };
        MetricSource nothing = () -> null;
        MetricSource fine = Stubs.metrics(Metric.gauge("mooncake_fine", "Fine", 1));
        String text = render(Set.of(), throwing, nothing, fine);
        assertEquals("# HELP mooncake_fine Fine\n# TYPE mooncake_fine gauge\nmooncake_fine 1\n", text);
        assertEquals(text, render(Set.of(), throwing, nothing, fine), "and at the next scrape again");
    }

    @Test
    void summariesCarryTheirSuffixesAndValuesTheirPrometheusNames() {
        String text = render(Set.of(), Stubs.metrics(new Metric("mooncake_encode_seconds", "Encode time", Type.SUMMARY,
                List.of(new Sample("", Map.of("quantile", "0.99"), 0.25), new Sample("_sum", Map.of(), Double.POSITIVE_INFINITY),
                        new Sample("_count", Map.of(), 12), new Sample("_max", Map.of(), Double.NaN)))));
        assertTrue(text.contains("# TYPE mooncake_encode_seconds summary\n"), text);
        assertTrue(text.contains("mooncake_encode_seconds{quantile=\"0.99\"} 0.25\n"), text);
        assertTrue(text.contains("mooncake_encode_seconds_sum +Inf\n"), text);
        assertTrue(text.contains("mooncake_encode_seconds_count 12\n"), text);
        assertTrue(text.contains("mooncake_encode_seconds_max NaN\n"), text);
    }

    @Test
    void theFamiliesOfAnExpositionAreReadFromItsTypeLines() {
        assertEquals(Set.of("a_total", "b"), SourceMetrics.familiesIn("# HELP a_total x\n# TYPE a_total counter\na_total 1\n"
                + "# TYPE b gauge\nb{x=\"# TYPE c gauge\"} 2\n"));
    }
}
