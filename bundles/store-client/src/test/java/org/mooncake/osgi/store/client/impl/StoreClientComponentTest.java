package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.time.InstantSource;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.local.LocalTransport;

class StoreClientComponentTest {
    private final StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), new PolicySelector());

    private static StoreClientComponent.Config config(long segment, long buffer) {
        return config(segment, buffer, 1000);
    }

    private static StoreClientComponent.Config config(long segment, long buffer, long heartbeatMs) {
        return new StoreClientComponent.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return StoreClientComponent.Config.class;
            }

            @Override
            public String client_id() {
                return "";
            }

            @Override
            public String tenant() {
                return "t1";
            }

            @Override
            public long global_segment_size() {
                return segment;
            }

            @Override
            public long local_buffer_size() {
                return buffer;
            }

            @Override
            public long heartbeat_interval_ms() {
                return heartbeatMs;
            }

            @Override
            public String segmentTransport_target() {
                return "(transport.protocol=local)";
            }
        };
    }

    @Test
    void itContributesItsSegmentWhileActiveAndWithdrawsItAfter() {
        StoreClientComponent c = new StoreClientComponent(config(1 << 20, 1 << 16), master, new LocalTransport());
        assertEquals(1, master.segments().size());
        assertTrue(master.segments().getFirst().name().startsWith("embedded-"));
        c.put("k", new byte[] {1, 2, 3}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
        assertArrayEquals(new byte[] {1, 2, 3}, c.get("k"));
        assertEquals("t1", c.tenant());
        assertTrue(c.isHealthy());
        c.deactivate();
        assertEquals(0, master.segments().size());
        assertEquals(0, master.stats().objects(), "its objects went with its segment");
    }

    @Test
    void negativeSizesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new StoreClientComponent(config(-1, 0), master, new LocalTransport()));
        assertEquals(0, master.segments().size());
    }

    /** A changed file must not empty the segment by surprise, and a broken one must not take the client away. */
    @Test
    void aChangeKeepsTheSegmentAndItsObjectsAndABrokenOneIsRefused() {
        StoreClientComponent c = new StoreClientComponent(config(1 << 20, 1 << 16), master, new LocalTransport());
        String segment = master.segments().getFirst().name();
        c.put("k", new byte[] {4, 5}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);

        c.modified(config(1 << 20, 1 << 16, 250));
        assertEquals(250, c.settings().heartbeatMs(), "the heartbeat interval changes in place");

        c.modified(config(2 << 20, 1 << 16, 250));
        assertEquals(1 << 20, c.settings().segmentBytes(), "a new segment size waits for a restart");

        c.modified(config(1 << 20, 1 << 16, -5));
        assertEquals(250, c.settings().heartbeatMs(), "a broken value is refused");

        assertEquals(segment, master.segments().getFirst().name());
        assertArrayEquals(new byte[] {4, 5}, c.get("k"));
        assertTrue(c.isHealthy());
        c.deactivate();
    }

    @Test
    void onlyWhatARestartAppliesIsNamedAsWaitingForOne() {
        var running = new StoreClientComponent.Settings("", "t1", 1 << 20, 0, 1000);
        assertEquals(java.util.List.of(), new StoreClientComponent.Settings("", "t1", 1 << 20, 0, 5).restartOnlyChanges(running));
        assertEquals(java.util.List.of("tenant", "global.segment.size"),
                new StoreClientComponent.Settings("", "t2", 2 << 20, 0, 1000).restartOnlyChanges(running));
    }

    /** The master behind a switch: while it is off every call fails as an unreachable remote master does. */
    private static org.mooncake.osgi.store.master.MasterService switchable(StoreMaster real,
            java.util.concurrent.atomic.AtomicBoolean up) {
        return (org.mooncake.osgi.store.master.MasterService) java.lang.reflect.Proxy.newProxyInstance(
                StoreClientComponentTest.class.getClassLoader(),
                new Class<?>[] {org.mooncake.osgi.store.master.MasterService.class}, (proxy, method, args) -> {
                    if (!up.get()) {
                        throw new org.mooncake.osgi.store.api.StoreException(
                                org.mooncake.osgi.store.api.ErrorCode.RPC_FAIL, "cannot reach the master");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A storage node started before its master joins once the master answers. */
    @Test
    void aClientStartedBeforeItsMasterMountsItsSegmentWhenTheMasterAnswers() {
        var up = new java.util.concurrent.atomic.AtomicBoolean(false);
        StoreClientComponent c = new StoreClientComponent(config(1 << 20, 0), switchable(master, up),
                new LocalTransport());
        try {
            assertFalse(c.isHealthy());
            assertEquals(0, master.segments().size());

            up.set(true);
            c.heartbeatNow();
            assertTrue(c.isHealthy());
            assertEquals(1, master.segments().size(), "mounted by the first heartbeat that got through");
            c.put("k", new byte[] {7}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
            assertArrayEquals(new byte[] {7}, c.get("k"));

            c.heartbeatNow(); // the same registration: nothing mounted twice
            assertEquals(1, master.segments().size());
        } finally {
            c.deactivate();
        }
    }
}
