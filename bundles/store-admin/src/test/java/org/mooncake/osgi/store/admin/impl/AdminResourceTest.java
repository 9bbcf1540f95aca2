package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.MultivaluedHashMap;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.metrics.Metric;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The JAX-RS resource's answers, by plain calls of its methods (CXF supplies Response's implementation). */
class AdminResourceTest {
    private final MasterService master = Stubs.master();

    private static AdminResource.Config config(String... endpoints) {
        return new AdminResource.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdminResource.Config.class;
            }

            @Override
            public String[] endpoints() {
                return endpoints;
            }

            @Override
            public boolean auth_required() {
                return false;
            }

            @Override
            public String auth_tokens_file() {
                return "";
            }
        };
    }

    private static final AdminResource.Config ALL = config(AdminEndpoints.ALL.toArray(String[]::new));

    private static void set(Object target, String field, Object value) throws Exception {
        var f = target.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(target, value);
    }

    /** A UriInfo that knows its query parameters only, all the resource reads. */
    private static UriInfo query(Map<String, List<String>> params) {
        MultivaluedHashMap<String, String> map = new MultivaluedHashMap<>();
        params.forEach((k, v) -> map.put(k, v));
        return (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getQueryParameters")) {
                        return map;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    private static final UriInfo NO_QUERY = query(Map.of());

    private static JsonNode json(Response r) throws Exception {
        assertEquals(MediaType.APPLICATION_JSON_TYPE, r.getMediaType());
        return new ObjectMapper().readTree((String) r.getEntity());
    }

    @Test
    void healthAndMetricsAnswerLikeTheJdkServer() throws Exception {
        AdminResource resource = new AdminResource(ALL);
        assertEquals(503, resource.health(NO_QUERY, null).getStatus(), "nothing in this process yet");
        set(resource, "master", master);
        Response health = resource.health(NO_QUERY, null);
        assertEquals(200, health.getStatus());
        assertEquals("UP", json(health).get("status").asText());
        set(resource, "metricSources", List.of(Stubs.metrics(Metric.counter("mooncake_proxy_requests_total", "Requests", 4))));
        Response metrics = resource.metrics(NO_QUERY, null);
        assertEquals(200, metrics.getStatus());
        assertTrue(metrics.getMediaType().toString().startsWith("text/plain"), metrics.getMediaType().toString());
        assertEquals("0.0.4", metrics.getMediaType().getParameters().get("version"));
        String text = (String) metrics.getEntity();
        assertTrue(text.contains("mooncake_objects 0\n") && text.contains("mooncake_proxy_requests_total 4\n"), text);
    }

    /** The EPD proxy: no store, its role and its figures only. */
    @Test
    void aProcessWithoutStoreAnswersFromItsSources() throws Exception {
        AdminResource resource = new AdminResource(ALL);
        set(resource, "healthSources", List.of(Stubs.up("proxy", Map.of("instances", 2))));
        set(resource, "metricSources", List.of(Stubs.metrics(Metric.gauge("mooncake_proxy_instances", "Instances", 2))));
        JsonNode health = json(resource.health(NO_QUERY, null));
        assertEquals("UP", health.get("status").asText());
        assertEquals(2, health.at("/roles/proxy/instances").asInt());
        String text = (String) resource.metrics(NO_QUERY, null).getEntity();
        assertTrue(text.contains("mooncake_proxy_instances 2\n") && !text.contains("mooncake_objects"), text);
        Response stats = resource.stats(NO_QUERY, null);
        assertEquals(503, stats.getStatus());
        assertEquals("UNAVAILABLE_IN_CURRENT_STATUS", json(stats).get("error").asText());
    }

    @Test
    void queryKeyAndSegmentsReadTheMasterAndErrorsKeepTheirShape() throws Exception {
        master.mountSegment(new SegmentDescriptor("s1", "c1", 1 << 20, new SegmentEndpoint("local", "x", "s1")));
        long put = master.putStart("c1", ObjectKey.of("k"), 100, ReplicateConfig.DEFAULT, false).putId();
        master.putEnd("c1", ObjectKey.of("k"), put, 1);
        AdminResource resource = new AdminResource(ALL);
        set(resource, "master", master);
        assertEquals(200, resource.queryKey(query(Map.of("key", List.of("k"))), null).getStatus());
        Response missing = resource.queryKey(query(Map.of("key", List.of("nope"))), null);
        assertEquals(404, missing.getStatus());
        assertEquals(-704, json(missing).get("code").asInt());
        Response twice = resource.queryKey(query(Map.of("key", List.of("k", "j"))), null);
        assertEquals(400, twice.getStatus());
        assertTrue(json(twice).get("message").asText().contains("given twice"));
        assertEquals(400, resource.queryKey(NO_QUERY, null).getStatus());
        JsonNode segments = json(resource.segments(NO_QUERY, null));
        assertEquals("s1", segments.get(0).get("name").asText(), segments.toString());
    }

    @Test
    void endpointsNotConfiguredAnswer404AndCommaSeparatedNamesAreRead() throws Exception {
        AdminResource resource = new AdminResource(config("health, metrics"));
        set(resource, "master", master);
        assertEquals(200, resource.health(NO_QUERY, null).getStatus());
        assertEquals(200, resource.metrics(NO_QUERY, null).getStatus());
        Response stats = resource.stats(NO_QUERY, null);
        assertEquals(404, stats.getStatus());
        assertTrue(json(stats).get("message").asText().contains(AdminResource.PID), stats.getEntity().toString());
    }

    @Test
    void anUnknownEndpointIsRefusedByNameAndAChangeThatNamesOneKeepsTheLastGoodSet() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new AdminResource(config("health", "helth")));
        assertTrue(e.getMessage().contains("helth") && e.getMessage().contains("get_all_segments"), e.getMessage());
        AdminResource resource = new AdminResource(config("health"));
        set(resource, "master", master);
        resource.modified(config("metrics", "bogus"));
        assertEquals(200, resource.health(NO_QUERY, null).getStatus(), "the last good configuration stays");
        assertEquals(404, resource.metrics(NO_QUERY, null).getStatus());
        resource.modified(config("metrics"));
        assertEquals(200, resource.metrics(NO_QUERY, null).getStatus());
        assertEquals(404, resource.health(NO_QUERY, null).getStatus());
    }
}
