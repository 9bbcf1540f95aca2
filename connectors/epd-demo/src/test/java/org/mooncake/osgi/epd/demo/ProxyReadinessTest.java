package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

class ProxyReadinessTest {
    private static JsonNode instance(String json) throws Exception {
        return FakeAnswers.JSON.readTree(json);
    }

    @Test
    void theProxyCountsAWorkerOnlyOnceItsOwnProbeSucceededAfterTheWorkerWasUp() throws Exception {
        Instant up = Instant.parse("2026-12-03T05:25:10Z");
        assertTrue(ProxyReadiness.probedHealthySince(instance(
                "{\"healthy\":true,\"consecutive_failures\":0,\"last_probe\":\"2026-12-03T05:25:11.5Z\"}"), up));
        assertFalse(ProxyReadiness.probedHealthySince(instance(
                "{\"healthy\":true,\"consecutive_failures\":0,\"last_probe\":null}"), up),
                "a new instance is taken for healthy before any probe");
        assertFalse(ProxyReadiness.probedHealthySince(instance(
                "{\"healthy\":true,\"consecutive_failures\":2,\"last_probe\":\"2026-12-03T05:25:11Z\"}"), up),
                "failures still counting towards the threshold");
        assertFalse(ProxyReadiness.probedHealthySince(instance(
                "{\"healthy\":true,\"consecutive_failures\":0,\"last_probe\":\"2026-12-03T05:25:09Z\"}"), up),
                "probed before the worker was up");
        assertFalse(ProxyReadiness.probedHealthySince(instance(
                "{\"healthy\":false,\"consecutive_failures\":0,\"last_probe\":\"2026-12-03T05:25:11Z\"}"), up));
    }
}
