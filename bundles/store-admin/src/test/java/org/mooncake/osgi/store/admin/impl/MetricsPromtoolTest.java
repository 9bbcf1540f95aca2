package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.InstantSource;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.Metric.Sample;
import org.mooncake.osgi.store.spi.metrics.Metric.Type;
import org.mooncake.osgi.store.spi.metrics.MetricSource;

/**
 * {@code /metrics} of a busy process, from both servers (the JDK admin server and the JAX-RS
 * resource), through Prometheus' own parser and linter: a master that has stored, read, missed
 * and evicted objects of several data types on host and device segments, policies that have
 * learned figures, a client's transfers by protocol, the kinds of sources the connectors and
 * transports register (counters, gauges, summaries with and without quantiles) and the JVM and
 * process figures, with label values that need escaping. Promtool must accept it with no lint
 * problem at all: each of its lints (counter suffix, help text, base units, reserved suffixes and
 * labels, snake case) is a convention dashboards and recording rules rely on.
 */
class MetricsPromtoolTest {
    /** A label value with every character the text format escapes, and some it does not. */
    private static final String AWKWARD = "we\"ird\\na\nme {x=\"1\"} # é";

    private final Promtool promtool = Promtool.onPath();
    private final StoreMaster master = busyMaster();
    private AdminHttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static StoreMaster busyMaster() {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        StoreMaster m = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        m.mountSegment(new SegmentDescriptor("host-1", "c1", 1 << 20, new SegmentEndpoint("tcp", "127.0.0.1:7000", "host-1")));
        m.mountSegment(new SegmentDescriptor("gpu-0", "c1", 1 << 20, List.of(new SegmentEndpoint("local", "x", "gpu-0")),
                MemoryKind.CUDA_DEVICE));
        ObjectDataType[] types = {ObjectDataType.HIDDEN_STATE, ObjectDataType.KVCACHE, ObjectDataType.TENSOR};
        for (int i = 0; i < 60; i++) { // about 1.9 MiB of 2: above the high watermark
            ObjectKey key = ObjectKey.of("k" + i);
            long put = m.putStart("c1", key, 32 << 10,
                    ReplicateConfig.builder().dataType(types[i % types.length]).build(), false).putId();
            m.putEnd("c1", key, put, i);
        }
        m.getReplicaList(ObjectKey.of("k1"));
        try {
            m.getReplicaList(ObjectKey.of("absent"));
        } catch (RuntimeException expected) {
            // a miss, counted under UNKNOWN
        }
        m.runEvictionRound();
        return m;
    }

    private static EvictionPolicy learning(String name, Map<String, Double> learned) {
        return new EvictionPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Map<String, Double> learned() {
                return learned;
            }

            @Override
            public Iterator<CandidateView> plan(EvictionRequest request) {
                return Collections.emptyIterator();
            }
        };
    }

    private static StoreClient client(List<TransferStats> transfers) {
        return (StoreClient) Proxy.newProxyInstance(StoreClient.class.getClassLoader(), new Class<?>[] {StoreClient.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "transferStats" -> transfers;
                    case "isHealthy" -> true;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "client";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** What the EPD proxy registers: counters by outcome, summaries of stage times, gauges by role and health. */
    private static MetricSource proxyLike() {
        return () -> List.of(
                new Metric("mooncake_epd_proxy_requests_total", "Chat completion requests by how they ended", Type.COUNTER,
                        List.of(Sample.of(Map.of("outcome", "ok"), 12), Sample.of(Map.of("outcome", AWKWARD), 1))),
                new Metric("mooncake_epd_proxy_stage_seconds", "Time of each successful stage", Type.SUMMARY,
                        List.of(new Sample("_sum", Map.of("stage", "encode"), 0.75), new Sample("_count", Map.of("stage", "encode"), 3),
                                new Sample("_sum", Map.of("stage", "decode"), 2.5), new Sample("_count", Map.of("stage", "decode"), 3))),
                new Metric("mooncake_epd_proxy_instances", "Registered worker instances by role and health", Type.GAUGE,
                        List.of(Sample.of(Map.of("role", "encode", "health", "healthy"), 2))));
    }

    /** A connector's transfer meter: a summary with quantiles, byte counters, events by name. */
    private static MetricSource connectorLike() {
        return () -> List.of(
                new Metric("mooncake_epd_hidden_transfers_total", "Transfers by operation and outcome", Type.COUNTER,
                        List.of(Sample.of(Map.of("op", "save", "outcome", "ok"), 40), Sample.of(Map.of("op", "load", "outcome", "failed"), 2))),
                new Metric("mooncake_epd_hidden_bytes_total", "Bytes moved by completed transfers", Type.COUNTER,
                        List.of(Sample.of(Map.of("op", "save"), 1 << 30))),
                new Metric("mooncake_epd_hidden_transfer_seconds", "Time of completed transfers", Type.SUMMARY,
                        List.of(new Sample("", Map.of("op", "save", "quantile", "0.5"), 0.002),
                                new Sample("", Map.of("op", "save", "quantile", "0.99"), 0.0125),
                                new Sample("_sum", Map.of("op", "save"), 0.09), new Sample("_count", Map.of("op", "save"), 40))));
    }

    /** What the ucx transport registers. */
    private static MetricSource transportLike() {
        return () -> List.of(
                new Metric("mooncake_ucx_read_bytes_total", "Bytes read from remote segments through UCX", Type.COUNTER,
                        List.of(Sample.of(Map.of("peer", AWKWARD), 4096))),
                Metric.gauge("mooncake_ucx_endpoints", "UCX endpoints open to peers", 3),
                Metric.counter("mooncake_ucx_timeouts_total", "UCX transfer requests that timed out", 0));
    }

    private Parts parts() {
        StoreClient client = client(List.of(new TransferStats("tcp", 10, 1 << 20, 1, 20, 2 << 20, 0, 0),
                new TransferStats("shm", 5, 4096, 0, 7, 8192, 1, 1), new TransferStats(AWKWARD, 1, 1, 1, 1, 1, 1, 1)));
        List<EvictionPolicy> policies = List.of(new LeaseOrderPolicy(),
                learning("cost-aware", Map.of("group_end_ms", 2896.0, "ghosts_held", 12.0)),
                learning(AWKWARD, Map.of(AWKWARD, 0.5)));
        List<MetricSource> sources = List.of(proxyLike(), connectorLike(), transportLike(), new JvmMetrics(),
                new ProcessMetrics());
        return new Parts(master, client, policies, sources, List.of());
    }

    private static void set(Object target, String field, Object value) throws ReflectiveOperationException {
        var f = target.getClass().getDeclaredField(field);
        f.setAccessible(true);
        f.set(target, value);
    }

    private static void attach(Object component, Parts p) throws ReflectiveOperationException {
        set(component, "master", p.master());
        set(component, "client", p.client());
        set(component, "policies", p.policies());
        set(component, "metricSources", p.metricSources());
        set(component, "healthSources", p.healthSources());
    }

    private String fromJdkServer() throws Exception {
        server = new AdminHttpServer(new AdminHttpServer.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdminHttpServer.Config.class;
            }

            @Override
            public int port() {
                return 0;
            }

            @Override
            public String bind_address() {
                return "127.0.0.1";
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
        });
        attach(server, parts());
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    private String fromWhiteboardResource() throws Exception {
        AdminResource resource = new AdminResource(new AdminResource.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdminResource.Config.class;
            }

            @Override
            public String[] endpoints() {
                return new String[] {AdminEndpoints.METRICS};
            }

            @Override
            public boolean auth_required() {
                return false;
            }

            @Override
            public String auth_tokens_file() {
                return "";
            }
        });
        attach(resource, parts());
        var r = resource.metrics(null, null);
        assertEquals(200, r.getStatus());
        return (String) r.getEntity();
    }

    private void assertAccepted(String exposition) throws Exception {
        Promtool.Verdict v = promtool.check(exposition);
        assertEquals(0, v.status(), "promtool: " + v.output() + "\n--- exposition ---\n" + exposition);
        assertEquals("", v.output().strip(), "promtool lints:\n" + v.output() + "\n--- exposition ---\n" + exposition);
    }

    @Test
    void theJdkServersMetricsPassPromtool() throws Exception {
        String body = fromJdkServer();
        assertTrue(body.contains("mooncake_type_evictions_total{type=\"KVCACHE\"}"), body);
        assertTrue(body.contains("jvm_memory_bytes_used{area=\"heap\"}") && body.contains("process_cpu_seconds_total"), body);
        assertAccepted(body);
    }

    @Test
    void theWhiteboardResourcesMetricsPassPromtool() throws Exception {
        String body = fromWhiteboardResource();
        assertTrue(body.contains("mooncake_client_transfers_total{protocol=\"shm\""), body);
        assertTrue(body.contains("jvm_gc_collection_seconds_count{gc="), body);
        assertAccepted(body);
    }

    /** The check can fail: promtool refuses what Prometheus would, and lints what the conventions forbid. */
    @Test
    void promtoolRefusesABrokenExpositionAndLintsABadOne() throws Exception {
        Promtool.Verdict broken = promtool.check("# TYPE a counter\na{x=\"unterminated} 1\n");
        assertNotEquals(0, broken.status(), broken.output());
        Promtool.Verdict lint = promtool.check("# TYPE requests counter\nrequests 1\n");
        assertNotEquals(0, lint.status(), lint.output());
        assertTrue(lint.output().contains("_total"), lint.output());
    }
}
