package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The configuration: defaults, checking, and how the component applies or refuses a change. */
class SettingsTest {

    /** A {@link EpdProxyComponent.Config} as DS would build it: the defaults, overridden by {@code values} (by method name). */
    static EpdProxyComponent.Config config(Map<String, Object> values) {
        return (EpdProxyComponent.Config) Proxy.newProxyInstance(SettingsTest.class.getClassLoader(),
                new Class<?>[] { EpdProxyComponent.Config.class }, (proxy, method, args) -> switch (method.getName()) {
                    case "annotationType" -> EpdProxyComponent.Config.class;
                    case "hashCode" -> 0;
                    case "equals" -> proxy == args[0];
                    case "toString" -> "Config" + values;
                    default -> values.containsKey(method.getName()) ? values.get(method.getName())
                            : method.getDefaultValue();
                });
    }

    @Test
    void defaults() {
        ProxySettings s = EpdProxyComponent.settings(config(Map.of()));
        assertEquals(Duration.ofSeconds(5), s.probeInterval());
        assertEquals(Duration.ofSeconds(2), s.probeTimeout());
        assertEquals(3, s.failThreshold());
        assertEquals(64L << 20, s.maxBodyBytes());
        assertTrue(s.models().isEmpty());
        assertTrue(s.workers().values().stream().allMatch(List::isEmpty));
        assertEquals(ProxySettings.defaults(), s);
    }

    @Test
    void urlListsAcceptCommaSeparatedEntriesAndDropDuplicates() {
        ProxySettings s = EpdProxyComponent.settings(config(Map.of("encode_urls",
                new String[] { "http://a:1/, http://b:2", "", "http://a:1" }, "models", new String[] { "m1,m2" })));
        assertEquals(List.of(URI.create("http://a:1"), URI.create("http://b:2")), s.workers().get(Role.ENCODE));
        assertEquals(List.of("m1", "m2"), s.models());
    }

    @Test
    void brokenValuesAreRefusedNamingTheProperty() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EpdProxyComponent.settings(config(Map.of(
                "decode_urls", new String[] { "tcp://x:1" })))).getMessage().startsWith("decode.urls"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EpdProxyComponent.settings(config(Map.of(
                "fail_threshold", 0)))).getMessage().startsWith("fail.threshold"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EpdProxyComponent.settings(config(Map.of(
                "prefill_timeout_ms", -1L)))).getMessage().startsWith("prefill.timeout.ms"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EpdProxyComponent.settings(config(Map.of(
                "max_body_bytes", 10L)))).getMessage().startsWith("max.body.bytes"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EpdProxyComponent.settings(config(Map.of(
                "prefill_urls", new String[] { "http://h:1/?q=1" })))).getMessage().startsWith("prefill.urls"));
    }

    @Test
    void brokenConfigurationAtActivationKeepsTheComponentDown() {
        assertThrows(IllegalArgumentException.class,
                () -> new EpdProxyComponent(config(Map.of("probe_interval_ms", 0L))));
    }

    @Test
    void brokenUpdateKeepsThePreviousSettingsAndAGoodOneIsApplied() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1")) {
            EpdProxyComponent c = new EpdProxyComponent(config(Map.of("prefill_urls",
                    new String[] { p.url().toString() })));
            try {
                assertEquals("proxy", c.name());
                ProxySettings before = c.proxy().settings();
                c.modified(config(Map.of("fail_threshold", -2)));
                assertSame(before, c.proxy().settings());
                assertEquals(1, c.proxy().registry().snapshot().all().size());

                c.modified(config(Map.of("decode_urls", new String[] { d.url().toString() }, "fail_threshold", 7)));
                assertEquals(7, c.proxy().settings().failThreshold());
                List<Instance> all = c.proxy().registry().snapshot().all();
                assertEquals(1, all.size(), "the prefill left the configuration");
                assertEquals(Role.DECODE, all.get(0).role());
                assertEquals(Instance.FROM_CONFIG, all.get(0).source());
            } finally {
                c.deactivate();
            }
        }
    }

    @Test
    void configurationChangesLeaveApiRegistrationsAlone() {
        InstanceRegistry r = new InstanceRegistry();
        URI a = URI.create("http://a:1");
        URI b = URI.create("http://b:1");
        r.syncConfigured(Map.of(Role.DECODE, List.of(a)));
        String configuredId = r.snapshot().all().get(0).id();
        r.add(Role.DECODE, b, Instance.FROM_API);
        r.syncConfigured(Map.of(Role.DECODE, List.of(a)));
        assertEquals(configuredId, r.snapshot().all().get(0).id(), "a kept instance keeps its id");
        r.syncConfigured(Map.of());
        assertEquals(List.of(b), r.snapshot().all().stream().map(Instance::url).toList());
    }
}
