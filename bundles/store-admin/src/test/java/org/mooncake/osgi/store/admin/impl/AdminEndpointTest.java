package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class AdminEndpointTest {
    private final StoreMaster master;
    private final AdminHttpServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    AdminEndpointTest() throws Exception {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        master.mountSegment(new SegmentDescriptor("s1", "c1", 1 << 20, new SegmentEndpoint("local", "x", "s1")));
        long put1 = master.putStart("c1", ObjectKey.of("hs"), 1000,
                ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build(), false).putId();
        master.putEnd("c1", ObjectKey.of("hs"), put1, 1);
        master.getReplicaList(ObjectKey.of("hs"));
        server = new AdminHttpServer(config(0, "127.0.0.1"));
    }

    static AdminHttpServer.Config config(int port, String bind) {
        return new AdminHttpServer.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdminHttpServer.Config.class;
            }

            @Override
            public int port() {
                return port;
            }

            @Override
            public String bind_address() {
                return bind;
            }

            @Override
            public String tls_keystore() {
                return "";
            }

            @Override
            public String tls_truststore() {
                return "";
            }

            @Override
            public String tls_password() {
                return "";
            }

            @Override
            public String auth_tokens_file() {
                return "";
            }
        };
    }

    private static boolean answers(String host, int port) {
        try (java.net.Socket s = new java.net.Socket(host, port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void aPortInUseOrOutOfRangeIsRefusedAndTheEndpointStays() throws Exception {
        int was = server.port();
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            server.modified(config(taken.getLocalPort(), "127.0.0.1"));
            assertEquals(was, server.port());
        }
        server.modified(config(70_000, "127.0.0.1"));
        assertEquals(was, server.port());
        assertTrue(answers("127.0.0.1", was));
    }

    @Test
    void anotherAddressOnTheSamePortMovesTheEndpoint() throws Exception {
        int port = server.port();
        server.modified(config(port, "localhost"));
        assertEquals(port, server.port());
        assertTrue(answers("localhost", port));
        server.modified(config(0, "127.0.0.1"));
        assertTrue(server.port() != port);
        assertFalse(answers("127.0.0.1", port), "the old port is let go");
        assertEquals(503, get("/health").statusCode(), "served, and down: no master here");
    }

    /** Port -1: no JDK server, for a process that serves these endpoints on the http feature's port. */
    @Test
    void portMinusOneTurnsTheServerOffAndAnotherPortBackOn() throws Exception {
        int was = server.port();
        server.modified(config(-1, "127.0.0.1"));
        assertEquals(-1, server.port());
        assertFalse(answers("127.0.0.1", was), "the port is let go");
        server.modified(config(-2, "127.0.0.1"));
        assertEquals(-1, server.port(), "refused; still off");
        server.modified(config(0, "127.0.0.1"));
        assertTrue(server.port() > 0);
        assertEquals(503, get("/health").statusCode(), "served again");
        AdminHttpServer off = new AdminHttpServer(config(-1, "127.0.0.1"));
        assertEquals(-1, off.port());
        off.stop();
    }

    /** The JDK server reports what the process's metric and health sources say, as the whiteboard resource does. */
    @Test
    void metricsAndHealthCarryTheSources() throws Exception {
        attachMaster();
        var metrics = AdminHttpServer.class.getDeclaredField("metricSources");
        metrics.setAccessible(true);
        metrics.set(server, List.of(Stubs.metrics(org.mooncake.osgi.store.spi.metrics.Metric.gauge(
                "mooncake_encoder_queue", "Queued images", 3))));
        var health = AdminHttpServer.class.getDeclaredField("healthSources");
        health.setAccessible(true);
        health.set(server, List.of(Stubs.up("encoder", Map.of("gpu", 0))));
        String body = get("/metrics").body();
        assertTrue(body.contains("# TYPE mooncake_encoder_queue gauge\nmooncake_encoder_queue 3\n"), body);
        assertTrue(body.contains("mooncake_objects 1\n"), body);
        HttpResponse<String> h = get("/health");
        assertEquals(200, h.statusCode());
        JsonNode report = new ObjectMapper().readTree(h.body());
        assertTrue(report.at("/roles/encoder/up").asBoolean(), h.body());
        health.set(server, List.of(Stubs.health("encoder", () -> org.mooncake.osgi.store.spi.health.Health.down(Map.of()))));
        assertEquals(503, get("/health").statusCode());
        assertEquals(503, http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
                .HEAD().build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "HEAD says DOWN too");
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private void attachMaster() throws Exception {
        var f = AdminHttpServer.class.getDeclaredField("master");
        f.setAccessible(true);
        f.set(server, master);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Where a store client runs in the process, what it has moved by protocol, in /metrics and /stats; none without one. */
    @Test
    void metricsAndStatsCountTheClientsTransfersByProtocol() throws Exception {
        attachMaster();
        assertFalse(get("/metrics").body().contains("mooncake_client_"));
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            var client = org.mooncake.osgi.store.client.impl.EmbeddedStoreClient.create(master,
                    List.of(new org.mooncake.osgi.transport.local.LocalTransport()), "c2", "default", "local",
                    InstantSource.system());
            client.mountSegment(arena.allocate(1 << 20, 64));
            var f = AdminHttpServer.class.getDeclaredField("client");
            f.setAccessible(true);
            f.set(server, client);
            client.put("k", new byte[300], ReplicateConfig.builder().preferredSegments(List.of("c2/segment-1")).build());
            client.get("k");
            String body = get("/metrics").body();
            assertTrue(body.contains("# TYPE mooncake_client_transfers_total counter\n"), body);
            assertTrue(body.contains("mooncake_client_transfers_total{protocol=\"local\",op=\"write\",outcome=\"ok\"} 1\n"), body);
            assertTrue(body.contains("mooncake_client_transfers_total{protocol=\"local\",op=\"read\",outcome=\"failed\"} 0\n"), body);
            assertTrue(body.contains("mooncake_client_transfer_bytes_total{protocol=\"local\",op=\"read\"} 300\n"), body);
            assertTrue(body.contains("mooncake_client_checksum_mismatches_total{protocol=\"local\"} 0\n"), body);
            JsonNode transfers = new ObjectMapper().readTree(get("/stats").body()).get("transfers");
            assertEquals(1, transfers.size(), transfers.toString());
            assertEquals(300, transfers.get(0).get("bytesWritten").asLong());
            client.unmountAll();
        }
    }

    @Test
    void metricsArePrometheusTextWithPerTypeCountersAndThePolicy() throws Exception {
        attachMaster();
        HttpResponse<String> r = get("/metrics");
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        String body = r.body();
        assertTrue(body.contains("mooncake_type_objects{type=\"HIDDEN_STATE\"} 1\n"), body);
        assertTrue(body.contains("mooncake_type_hits_total{type=\"HIDDEN_STATE\"} 1\n"), body);
        assertTrue(body.contains("mooncake_eviction_policy_active{policy=\"lease-lru\"} 1\n"), body);
        assertTrue(body.contains("# TYPE mooncake_eviction_rounds_total counter\n"), body);
    }

    /** What each registered policy has learned, as gauges and in /stats; non-finite figures and policies that fail are left out. */
    @Test
    void metricsCarryWhatThePoliciesHaveLearned() throws Exception {
        attachMaster();
        EvictionPolicy learning = policy("learning", () -> {
            Map<String, Double> m = new java.util.LinkedHashMap<>();
            m.put("group_end_ms", 2896.0);
            m.put("not_known", Double.NaN);
            return m;
        });
        EvictionPolicy failing = policy("failing", () -> {
            throw new IllegalStateException("broken");
        });
        var f = AdminHttpServer.class.getDeclaredField("policies");
        f.setAccessible(true);
        f.set(server, List.of(learning, failing, new LeaseOrderPolicy()));
        HttpResponse<String> r = get("/metrics");
        assertEquals(200, r.statusCode());
        String body = r.body();
        assertTrue(body.contains("# TYPE mooncake_eviction_policy_learned gauge\n"), body);
        assertTrue(body.contains("mooncake_eviction_policy_learned{policy=\"learning\",figure=\"group_end_ms\"} 2896"), body);
        assertTrue(!body.contains("not_known") && !body.contains("policy=\"failing\""), body);
        JsonNode stats = new ObjectMapper().readTree(get("/stats").body());
        assertEquals(2896.0, stats.at("/learned/learning/group_end_ms").asDouble(), stats.toString());
        assertTrue(stats.at("/learned/learning/not_known").isMissingNode(), stats.toString());
        assertTrue(stats.at("/learned/failing").isMissingNode(), stats.toString());
    }

    /** Each segment says the memory it lives in, and capacity and use are reported per kind too. */
    @Test
    void statsAndMetricsSayWhichMemoryTheSegmentsLiveIn() throws Exception {
        attachMaster();
        master.mountSegment(new SegmentDescriptor("g1", "c1", 2 << 20, java.util.List.of(new SegmentEndpoint("local", "x", "g1")),
                org.mooncake.osgi.store.spi.device.MemoryKind.CUDA_DEVICE));
        JsonNode stats = new ObjectMapper().readTree(get("/stats").body());
        JsonNode segments = stats.get("segments");
        java.util.Map<String, String> kinds = new java.util.HashMap<>();
        segments.forEach(s -> kinds.put(s.get("name").asText(), s.get("memoryKind").asText()));
        assertEquals(java.util.Map.of("s1", "HOST", "g1", "CUDA_DEVICE"), kinds, stats.toString());
        JsonNode byKind = stats.at("/master/memoryKinds");
        assertEquals(2, byKind.size(), byKind.toString());
        assertEquals("HOST", byKind.get(0).get("kind").asText());
        assertEquals(1 << 20, byKind.get(0).get("capacityBytes").asLong());
        assertEquals("CUDA_DEVICE", byKind.get(1).get("kind").asText());
        assertEquals(2 << 20, byKind.get(1).get("capacityBytes").asLong());
        assertEquals(0, byKind.get(1).get("usedBytes").asLong());
        String body = get("/metrics").body();
        assertTrue(body.contains("mooncake_memory_capacity_bytes{memory_kind=\"CUDA_DEVICE\"} " + (2 << 20) + "\n"), body);
        assertTrue(body.contains("mooncake_memory_used_bytes{memory_kind=\"HOST\"} "), body);
    }

    /** Operators see whether this process copies and checksums in one pass, and if not, why. */
    @Test
    void metricsAndStatsSayHowCopiesAreChecksummed() throws Exception {
        attachMaster();
        String gauge = "mooncake_checksummed_copy_one_pass " + (Checksums.copiesInOnePass() ? 1 : 0) + "\n";
        assertTrue(get("/metrics").body().contains(gauge), gauge);
        JsonNode stats = new ObjectMapper().readTree(get("/stats").body());
        assertEquals(Checksums.copiesInOnePass(), stats.at("/checksummedCopy/onePass").asBoolean(), stats.toString());
        assertEquals(Checksums.copyPath(), stats.at("/checksummedCopy/how").asText());
        assertFalse(Checksums.copyPath().isBlank());
    }

    private static EvictionPolicy policy(String name, java.util.function.Supplier<Map<String, Double>> learned) {
        return new EvictionPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Map<String, Double> learned() {
                return learned.get();
            }

            @Override
            public java.util.Iterator<org.mooncake.osgi.store.spi.eviction.CandidateView> plan(
                    org.mooncake.osgi.store.spi.eviction.EvictionRequest request) {
                return java.util.Collections.emptyIterator();
            }
        };
    }

    @Test
    void statsAndQueryKeyAreJsonAndBadQueriesGetCodes() throws Exception {
        attachMaster();
        JsonNode stats = new ObjectMapper().readTree(get("/stats").body());
        assertEquals("lease-lru", stats.at("/master/activePolicy").asText());
        assertEquals(1, stats.at("/master/objects").asLong());
        JsonNode info = new ObjectMapper().readTree(get("/query_key?key=hs").body());
        assertEquals("HIDDEN_STATE", info.get("dataType").asText());
        HttpResponse<String> missing = get("/query_key?key=nope");
        assertEquals(404, missing.statusCode());
        assertEquals(-704, new ObjectMapper().readTree(missing.body()).get("code").asInt());
        HttpResponse<String> noKey = get("/query_key");
        assertEquals(400, noKey.statusCode());
        assertEquals(-600, new ObjectMapper().readTree(noKey.body()).get("code").asInt());
        assertEquals(400, get("/query_key?key=").statusCode(), "empty key is INVALID_KEY");
    }

    @Test
    void healthIsDownWithoutAMaster() throws Exception {
        assertEquals(503, get("/health").statusCode());
        assertEquals(503, get("/metrics").statusCode());
        attachMaster();
        assertEquals(200, get("/health").statusCode());
    }

    @Test
    void healthAnswersGetOnlyAndAKeyGivenTwiceIsRefused() throws Exception {
        attachMaster();
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
                .DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
                .HEAD().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, head.statusCode(), "a master and no client: UP"); // load balancers probe with HEAD
        assertEquals("", head.body());
        HttpResponse<String> twice = get("/query_key?key=hs&key=other");
        assertEquals(400, twice.statusCode());
        assertTrue(twice.body().contains("given twice"), twice.body());
        assertEquals(200, get("/query_key?key=hs").statusCode());
    }
}
