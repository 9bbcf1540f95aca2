package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.metrics.Metric;

/** The {@code proxy} health source and the metric source. */
class HealthAndMetricsTest {

    static double sample(List<Metric> metrics, String name, String suffix, Map<String, String> labels) {
        for (Metric m : metrics) {
            if (m.name().equals(name)) {
                for (Metric.Sample s : m.samples()) {
                    if (s.suffix().equals(suffix) && s.labels().equals(labels)) {
                        return s.value();
                    }
                }
            }
        }
        throw new AssertionError("no sample " + name + suffix + labels + " in " + metrics);
    }

    @Test
    void upOnlyWithAHealthyPrefillAndDecode() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p).threshold(1).start()) {
            Health h = f.proxy.health();
            assertFalse(h.up());
            assertEquals("no healthy decode instance", h.details().get("reason"));
            f.post("/instances", RegistryTest.instance("decode", d.url()));
            h = f.proxy.health();
            assertTrue(h.up());
            @SuppressWarnings("unchecked")
            Map<String, List<Map<String, Object>>> byRole = (Map<String, List<Map<String, Object>>>) h.details()
                    .get("instances");
            assertEquals(d.url().toString(), byRole.get("decode").get(0).get("url"));
            assertEquals(true, byRole.get("prefill").get(0).get("healthy"));
            assertTrue(byRole.get("encode").isEmpty());

            d.health.set(503);
            f.proxy.probeOnce();
            assertFalse(f.proxy.health().up());
        }
    }

    @Test
    void metricsCountRequestsStagesRetriesAndInstances() throws Exception {
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker p = new FakeWorker(Role.PREFILL, "p1");
                FakeWorker bad = new FakeWorker(Role.DECODE, "d-bad"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(e, p, bad, d).threshold(5).start()) {
            bad.chat = (r, ex) -> FakeWorker.json(ex, 500, "{}");
            bad.health.set(500);
            assertEquals(200, f.post("/v1/chat/completions", EpdFlowTest.twoMedia(false)).statusCode());
            assertEquals(400, f.post("/v1/chat/completions", "{").statusCode());
            f.proxy.probeOnce();

            List<Metric> m = f.proxy.metrics();
            assertEquals(1, sample(m, "mooncake_epd_proxy_requests_total", "", Map.of("outcome", "ok")));
            assertEquals(1, sample(m, "mooncake_epd_proxy_requests_total", "", Map.of("outcome", "bad_request")));
            assertEquals(0, sample(m, "mooncake_epd_proxy_requests_total", "", Map.of("outcome", "timeout")));
            for (String stage : List.of("encode", "prefill", "decode")) {
                assertEquals(1, sample(m, "mooncake_epd_proxy_stage_seconds", "_count", Map.of("stage", stage)), stage);
                assertTrue(sample(m, "mooncake_epd_proxy_stage_seconds", "_sum", Map.of("stage", stage)) > 0, stage);
            }
            assertEquals(1, sample(m, "mooncake_epd_proxy_retries_total", "", Map.of("stage", "decode")));
            assertEquals(0, sample(m, "mooncake_epd_proxy_retries_total", "", Map.of("stage", "encode")));
            Map<String, String> decodeHealthy = new HashMap<>(Map.of("role", "decode", "healthy", "true"));
            assertEquals(2, sample(m, "mooncake_epd_proxy_instances", "", decodeHealthy), "threshold 5 not reached");
            assertEquals(1, sample(m, "mooncake_epd_proxy_instances", "", Map.of("role", "encode", "healthy", "true")));
            assertEquals(0, sample(m, "mooncake_epd_proxy_instances", "", Map.of("role", "encode", "healthy", "false")));
            for (Metric metric : m) {
                assertTrue(metric.name().startsWith("mooncake_epd_proxy_"), metric.name());
            }
        }
    }
}
