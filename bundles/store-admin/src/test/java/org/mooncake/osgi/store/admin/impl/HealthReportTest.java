package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.health.HealthSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** One /health for a whole process: the store's parts and every role, UP only when all are. */
class HealthReportTest {
    private final HealthReport report = new HealthReport();
    private final MasterService master = Stubs.master();

    private JsonNode body(Answer a) throws Exception {
        assertEquals("application/json", a.contentType());
        return new ObjectMapper().readTree(a.body());
    }

    private Answer answer(MasterService m, StoreClient c, HealthSource... sources) {
        return report.answer(Stubs.parts(m, c, List.of(), List.of(sources)));
    }

    @Test
    void aMasterAloneIsUpAndAProcessWithNothingIsDown() throws Exception {
        Answer up = answer(master, null);
        assertEquals(200, up.status());
        JsonNode b = body(up);
        assertEquals("UP", b.get("status").asText());
        assertTrue(b.get("master").asBoolean());
        assertEquals("absent", b.get("client").asText());
        assertEquals(0, b.get("roles").size());
        Answer nothing = answer(null, null);
        assertEquals(503, nothing.status());
        assertEquals("DOWN", body(nothing).get("status").asText());
    }

    @Test
    void aClientNeedsAMasterAndMustBeHealthy() throws Exception {
        assertEquals(200, answer(master, Stubs.client(true)).status());
        Answer unhealthy = answer(master, Stubs.client(false));
        assertEquals(503, unhealthy.status());
        assertEquals("unhealthy", body(unhealthy).get("client").asText());
        assertEquals(503, answer(null, Stubs.client(true)).status(), "a client without a master serves nothing");
    }

    /** The EPD proxy runs no store: its roles alone decide. */
    @Test
    void aProcessWithoutStoreIsJudgedByItsRoles() throws Exception {
        Answer up = answer(null, null, Stubs.up("proxy", Map.of("instances", 3)));
        assertEquals(200, up.status());
        JsonNode b = body(up);
        assertEquals("UP", b.get("status").asText());
        assertFalse(b.get("master").asBoolean());
        assertTrue(b.at("/roles/proxy/up").asBoolean());
        assertEquals(3, b.at("/roles/proxy/instances").asInt());
        Answer down = answer(null, null, Stubs.up("proxy", Map.of()),
                Stubs.health("encoder", () -> Health.down(Map.of("reason", "no model loaded"))));
        assertEquals(503, down.status());
        assertEquals("no model loaded", body(down).at("/roles/encoder/reason").asText());
        assertTrue(body(down).at("/roles/proxy/up").asBoolean());
    }

    @Test
    void aRoleDownTakesTheProcessDownBesideAHealthyStore() throws Exception {
        Answer a = answer(master, Stubs.client(true), Stubs.health("prefill", () -> Health.down(Map.of())));
        assertEquals(503, a.status());
        JsonNode b = body(a);
        assertEquals("DOWN", b.get("status").asText());
        assertEquals("healthy", b.get("client").asText());
        assertFalse(b.at("/roles/prefill/up").asBoolean());
    }

    @Test
    void aSourceThatThrowsOrAnswersNothingIsDownWithTheReason() throws Exception {
        Answer a = answer(master, null, Stubs.health("encoder", () -> {
            throw new IllegalStateException("GPU lost");
        }), Stubs.health("decoder", () -> null));
        assertEquals(503, a.status());
        JsonNode b = body(a);
        assertTrue(b.at("/roles/encoder/error").asText().contains("GPU lost"), b.toString());
        assertFalse(b.at("/roles/decoder/up").asBoolean(), b.toString());
    }

    @Test
    void twoSourcesOfOneNameAreBothShownAndDetailsCannotOverrideUp() throws Exception {
        Answer a = answer(null, null, Stubs.up("encoder", Map.of("gpu", 0)),
                Stubs.health("encoder", () -> Health.down(Map.of("gpu", 1, "up", true))));
        assertEquals(503, a.status());
        JsonNode b = body(a);
        assertEquals(0, b.at("/roles/encoder/gpu").asInt());
        assertEquals(1, b.at("/roles/encoder#2/gpu").asInt());
        assertFalse(b.at("/roles/encoder#2/up").asBoolean(), "a detail named up does not hide that the part is down");
    }
}
