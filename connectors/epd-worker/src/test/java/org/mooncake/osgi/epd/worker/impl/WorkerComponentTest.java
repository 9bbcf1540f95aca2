package org.mooncake.osgi.epd.worker.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.lang.reflect.Field;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.hidden.impl.HiddenStateConnector;
import org.mooncake.osgi.epd.testing.InProcessStore;
import org.mooncake.osgi.store.api.StoreClient;

/** The DS component: configuration checks, health by role and connectors, the store probe. */
class WorkerComponentTest {

    private static WorkerComponent component(String role) {
        return new WorkerComponent(Configs.of(WorkerComponent.Config.class, Map.of("role", role,
                "models", new String[] {"vl@r1=tiny:1"}, "warmup", false)));
    }

    /** What DS does for a dynamic reference: writes the volatile field. */
    private static void bind(WorkerComponent c, String field, Object service) throws ReflectiveOperationException {
        Field f = WorkerComponent.class.getDeclaredField(field);
        f.setAccessible(true);
        f.set(c, service);
    }

    @Test
    void brokenConfigurationIsRefusedWithItsReason() {
        var e = assertThrows(IllegalArgumentException.class, () -> component("encode-ish"));
        assertTrue(e.getMessage().contains("encoder, prefill, decode or aggregated"));
        var m = assertThrows(IllegalArgumentException.class, () -> new WorkerComponent(Configs.of(
                WorkerComponent.Config.class, Map.of("role", "decode", "models", new String[] {"vl=tiny:1"}))));
        assertTrue(m.getMessage().contains("name@revision=size:seed"), m.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new WorkerComponent(Configs.of(WorkerComponent.Config.class,
                Map.of("role", "decode", "models", new String[] {"vl@r1=huge:1"}))));
    }

    @Test
    void aWorkerIsUpOnlyWithTheConnectorsItsRoleNeeds() throws Exception {
        WorkerComponent encoder = component("encoder");
        try (InProcessStore store = new InProcessStore(8 << 20)) {
            assertFalse(encoder.health().up());
            assertEquals("a encoder needs the hidden-state connector", encoder.health().details().get("reason"));
            StoreClient client = store.client("e", "default");
            bind(encoder, "hiddenStates", new HiddenStateConnector(Configs.of(HiddenStateConnector.Config.class,
                    Map.of("role", "producer")), client));
            assertTrue(encoder.health().up(), encoder.health().toString());
            assertEquals("producer", encoder.health().details().get("hidden_state_connector"));

            // the plain store baseline the demo compares connectors with
            bind(encoder, "client", client);
            Worker.Json probe = encoder.probe(new ByteArrayInputStream("{\"bytes\":300000,\"count\":3}".getBytes()));
            assertEquals(200, probe.status(), probe.body().toString());
            assertEquals(900_000, probe.body().at("/get/bytes").asLong());
            assertTrue(probe.body().at("/put/mib_per_s").asDouble() > 0);
            assertEquals(0, store.master.stats().objects(), "the probe's objects are removed");
            assertEquals(400, encoder.probe(new ByteArrayInputStream("{\"bytes\":0}".getBytes())).status());
        } finally {
            encoder.deactivate();
        }
        WorkerComponent aggregated = component("aggregated");
        assertTrue(aggregated.health().up());
        assertEquals(503, aggregated.probe(new ByteArrayInputStream("{\"bytes\":10}".getBytes())).status());
        aggregated.deactivate();
        assertEquals(EncoderCacheConnector.class, WorkerComponent.class.getDeclaredField("hiddenStates").getType());
    }

    @Test
    void anOversizeBodyIs413() {
        WorkerComponent w = new WorkerComponent(Configs.of(WorkerComponent.Config.class, Map.of("role", "aggregated",
                "models", new String[] {"vl@r1=tiny:1"}, "warmup", false, "max_body_bytes", 1024L)));
        try {
            ApiError e = assertThrows(ApiError.class, () -> w.readBody(new ByteArrayInputStream(new byte[2048])));
            assertEquals(413, e.status);
        } finally {
            try {
                w.deactivate();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
