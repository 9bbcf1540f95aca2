package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** The instance registry over REST, and liveness probing driven one round at a time. */
class RegistryTest {

    static String instance(String role, Object url) {
        return "{\"role\":\"" + role + "\",\"url\":\"" + url + "\"}";
    }

    static JsonNode find(ProxyFixture f, String id) throws Exception {
        for (JsonNode i : ProxyFixture.json(f.get("/instances")).path("instances")) {
            if (i.path("id").asText().equals(id)) {
                return i;
            }
        }
        return null;
    }

    @Test
    void registerListAndRemove() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); ProxyFixture f = ProxyFixture.settings().start()) {
            HttpResponse<String> created = f.post("/instances", instance("prefill", p.url() + "/"));
            assertEquals(201, created.statusCode(), created.body());
            JsonNode i = ProxyFixture.json(created);
            String id = i.path("id").asText();
            assertFalse(id.isBlank());
            assertEquals("prefill", i.path("role").asText());
            assertEquals(p.url().toString(), i.path("url").asText(), "trailing slash dropped");
            assertTrue(i.path("healthy").asBoolean());
            assertEquals("api", i.path("source").asText());

            HttpResponse<String> again = f.post("/instances", instance("prefill", p.url()));
            assertEquals(200, again.statusCode(), "the same role and URL again is the same instance");
            assertEquals(id, ProxyFixture.json(again).path("id").asText());

            JsonNode listed = find(f, id);
            assertEquals(0, listed.path("consecutive_failures").asInt());
            assertTrue(listed.has("last_probe") && listed.path("last_probe").isNull());
            assertTrue(listed.has("last_error"));

            assertEquals(204, f.delete("/instances/" + id).statusCode());
            assertEquals(null, find(f, id));
            HttpResponse<String> gone = f.delete("/instances/" + id);
            assertEquals(404, gone.statusCode());
            assertEquals("instance_not_found", ProxyFixture.json(gone).path("error").path("code").asText());
        }
    }

    @Test
    void malformedRegistrationsAre400() throws Exception {
        try (ProxyFixture f = ProxyFixture.settings().start()) {
            for (String body : new String[] { instance("router", "http://h:1"), instance("decode", "ftp://h:1"),
                    instance("decode", "not a url"), "{\"role\":\"decode\"}", "{", "[]" }) {
                HttpResponse<String> r = f.post("/instances", body);
                assertEquals(400, r.statusCode(), body);
                assertEquals("invalid_request_error", ProxyFixture.json(r).path("error").path("type").asText(), body);
            }
            assertTrue(ProxyFixture.json(f.get("/instances")).path("instances").isEmpty());
        }
    }

    @Test
    void probingMarksUnhealthyAfterTheThresholdAndHealthyAgainAfterOneSuccess() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings().threshold(3).start()) {
            String pid = ProxyFixture.json(f.post("/instances", instance("prefill", p.url()))).path("id").asText();
            f.post("/instances", instance("decode", d.url()));
            f.proxy.probeOnce();
            assertEquals(null, find(f, pid).path("last_error").textValue());
            assertFalse(find(f, pid).path("last_probe").isNull());

            p.health.set(503);
            for (int round = 1; round <= 3; round++) {
                f.proxy.probeOnce();
                JsonNode i = find(f, pid);
                assertEquals(round, i.path("consecutive_failures").asInt());
                assertEquals(round < 3, i.path("healthy").asBoolean(), "after " + round + " failed probes");
                assertTrue(i.path("last_error").asText().contains("503"), i.toString());
            }
            assertFalse(f.proxy.health().up());
            HttpResponse<String> refused = f.post("/v1/chat/completions", ProxyFixture.textOnly(false));
            assertEquals(503, refused.statusCode());
            assertEquals("no_healthy_instance", ProxyFixture.json(refused).path("error").path("code").asText());
            assertTrue(p.chats.isEmpty(), "an unhealthy instance got a request");

            p.health.set(200);
            f.proxy.probeOnce();
            JsonNode healed = find(f, pid);
            assertTrue(healed.path("healthy").asBoolean());
            assertEquals(0, healed.path("consecutive_failures").asInt());
            assertTrue(healed.path("last_error").isNull());
            assertTrue(f.proxy.health().up());
            assertEquals(200, f.post("/v1/chat/completions", ProxyFixture.textOnly(false)).statusCode());
        }
    }

    @Test
    void unreachableInstanceFailsItsProbes() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (ProxyFixture f = ProxyFixture.settings().threshold(1).start()) {
            String id = ProxyFixture.json(f.post("/instances", instance("encode", "http://127.0.0.1:" + closedPort)))
                    .path("id").asText();
            f.proxy.probeOnce();
            JsonNode i = find(f, id);
            assertFalse(i.path("healthy").asBoolean());
            assertTrue(i.path("last_error").asText().contains("Connect"), i.toString());
        }
    }

    @Test
    void routingSkipsUnhealthyInstances() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker sick = new FakeWorker(Role.DECODE, "sick");
                FakeWorker well = new FakeWorker(Role.DECODE, "well");
                ProxyFixture f = ProxyFixture.settings(p, sick, well).threshold(1).start()) {
            sick.health.set(500);
            f.proxy.probeOnce();
            for (int n = 0; n < 4; n++) {
                assertEquals(200, f.post("/v1/chat/completions", ProxyFixture.textOnly(false)).statusCode());
            }
            assertEquals(4, well.chats.size());
            assertTrue(sick.chats.isEmpty());
        }
    }

    @Test
    void roundRobinSpreadsRequests() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d1 = new FakeWorker(Role.DECODE, "d1");
                FakeWorker d2 = new FakeWorker(Role.DECODE, "d2");
                ProxyFixture f = ProxyFixture.settings(p, d1, d2).start()) {
            for (int n = 0; n < 4; n++) {
                assertEquals(200, f.post("/v1/chat/completions", ProxyFixture.textOnly(false)).statusCode());
            }
            assertEquals(2, d1.chats.size());
            assertEquals(2, d2.chats.size());
        }
    }
}
