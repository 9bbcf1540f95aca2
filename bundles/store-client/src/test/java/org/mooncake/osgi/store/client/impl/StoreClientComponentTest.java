package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.time.InstantSource;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

class StoreClientComponentTest {
    private final StoreMaster master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), new PolicySelector());

    private static StoreClientComponent.Config config(long segment, long buffer) {
        return config(segment, buffer, 1000);
    }

    private static StoreClientComponent.Config config(long segment, long buffer, long heartbeatMs) {
        return config(segment, buffer, heartbeatMs, "(transport.protocol=local)");
    }

    /** A component with its transports bound, as DS binds them after constructing it. */
    private static StoreClientComponent started(StoreClientComponent.Config config,
            org.mooncake.osgi.store.master.MasterService master, Transport... transports) {
        StoreClientComponent c = new StoreClientComponent(config, master);
        for (Transport t : transports) {
            c.bindTransport(t, Map.of(Transport.PROTOCOL_PROPERTY, t.protocol()));
        }
        return c;
    }

    private static StoreClientComponent.Config config(long segment, long buffer, long heartbeatMs, String segmentTransport) {
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
                return segmentTransport;
            }

            @Override
            public long checksum_chunk_bytes() {
                return 64 << 10;
            }

            @Override
            public long device_staging_bytes() {
                return 64 << 10;
            }

            @Override
            public int device_staging_buffers() {
                return 2;
            }
        };
    }

    /** DeviceMemory services come and go while the client runs; device calls follow them. */
    @Test
    void deviceMemoryIsBoundAndUnboundDynamically() {
        StoreClientComponent c = started(config(1 << 20, 0), master, new LocalTransport());
        try (var device = new org.mooncake.osgi.device.testing.HostBackedDeviceMemory()) {
            var b = device.allocate(0, 100_000);
            device.copyFromHost(java.lang.foreign.MemorySegment.ofArray(new byte[100_000]).fill((byte) 7), b);
            var e = assertThrows(org.mooncake.osgi.store.api.StoreException.class,
                    () -> c.putFromDevice("d", b, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT));
            assertTrue(e.getMessage().contains("org.mooncake.osgi.device.cuda"), e.getMessage());
            c.bindDeviceMemory(device);
            c.putFromDevice("d", b, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
            byte[] back = c.get("d");
            assertEquals(100_000, back.length);
            assertEquals(7, back[99_999]);
            assertEquals(2, device.copiesToHost(), "in pieces of device.staging.bytes (64 KiB here)");
            c.unbindDeviceMemory(device);
            assertThrows(org.mooncake.osgi.store.api.StoreException.class, () -> c.getIntoDevice("d", b));
            device.free(b);
        } finally {
            c.deactivate();
        }
    }

    @Test
    void itContributesItsSegmentWhileActiveAndWithdrawsItAfter() {
        StoreClientComponent c = started(config(1 << 20, 1 << 16), master, new LocalTransport());
        assertEquals(1, master.segments().size());
        assertTrue(master.segments().getFirst().name().startsWith("embedded-"));
        c.put("k", new byte[] {1, 2, 3}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
        assertArrayEquals(new byte[] {1, 2, 3}, c.get("k"));
        assertEquals("t1", c.tenant());
        assertTrue(c.isHealthy());
        assertEquals(1, master.stats().clients());
        c.deactivate();
        assertEquals(0, master.segments().size());
        assertEquals(0, master.stats().objects(), "its objects went with its segment");
        assertEquals(0, master.stats().clients(), "it said goodbye: not counted until client_ttl");
    }

    @Test
    void negativeSizesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new StoreClientComponent(config(-1, 0), master));
        assertThrows(IllegalArgumentException.class,
                () -> new StoreClientComponent(config(1 << 20, 0, 1000, "(transport.protocol=local"), master));
        assertEquals(0, master.segments().size());
    }

    /** A changed file must not empty the segment by surprise, and a broken one must not take the client away. */
    @Test
    void aChangeKeepsTheSegmentAndItsObjectsAndABrokenOneIsRefused() {
        StoreClientComponent c = started(config(1 << 20, 1 << 16), master, new LocalTransport());
        String segment = master.segments().getFirst().name();
        c.put("k", new byte[] {4, 5}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);

        c.modified(config(1 << 20, 1 << 16, 250));
        assertEquals(250, c.settings().heartbeatMs(), "the heartbeat interval changes in place");

        c.modified(config(2 << 20, 1 << 16, 250));
        assertEquals(1 << 20, c.settings().segmentBytes(), "a new segment size waits for a restart");

        c.modified(config(1 << 20, 1 << 16, -5));
        assertEquals(250, c.settings().heartbeatMs(), "a broken value is refused");

        c.modified(config(1 << 20, 1 << 16, 250, "(transport.protocol=tcp)"));
        assertEquals("(transport.protocol=local)", c.settings().segmentTransport(), "who allocates waits for a restart");
        c.modified(config(1 << 20, 1 << 16, 100, "(broken"));
        assertEquals(250, c.settings().heartbeatMs(), "a broken filter is refused with the rest of the file");

        assertEquals(segment, master.segments().getFirst().name());
        assertArrayEquals(new byte[] {4, 5}, c.get("k"));
        assertTrue(c.isHealthy());
        c.deactivate();
    }

    /**
     * A storage node's tcp bundle is updated: DS unbinds the transport that allocated the segment
     * and binds the new one. The client, its segment and its objects stay, and the master names the
     * new transport. (With the transport a static reference, DS restarted the client: every object
     * on the node was gone.)
     */
    @Test
    void theSegmentAndItsObjectsOutliveTheTransportThatAllocatedIt() throws Exception {
        LocalTransport local = new LocalTransport();
        StoreClientComponent c;
        try (TcpTransport first = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
            c = started(config(1 << 20, 0, 1000, "(transport.protocol=tcp)"), master, local, first);
            assertEquals("local,tcp", master.segments().getFirst().protocol(), "allocated by tcp, served by both");
            c.put("k", new byte[] {9, 8}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
            c.unbindTransport(first);
        }
        try {
            assertEquals(1, master.segments().size());
            assertEquals("local", master.segments().getFirst().protocol());
            assertArrayEquals(new byte[] {9, 8}, c.get("k"));
            try (TcpTransport second = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
                c.bindTransport(second, Map.of(Transport.PROTOCOL_PROPERTY, "tcp"));
                assertEquals(1, master.segments().size(), "the new tcp serves the segment there is, it allocates none");
                assertEquals("local,tcp", master.segments().getFirst().protocol());
                assertEquals(1, master.stats().objects());
                c.unbindTransport(second);
            }
        } finally {
            c.deactivate();
        }
        assertEquals(0, master.segments().size());
    }

    /**
     * A configured segment that is not there makes the client unhealthy, with the reason in its
     * {@code /health} role: no transport matches the filter yet, then the master refuses it.
     */
    @Test
    void aConfiguredSegmentThatIsNotMountedIsUnhealthyWithTheReason() throws Exception {
        var refuse = new java.util.concurrent.atomic.AtomicBoolean(true);
        org.mooncake.osgi.store.master.MasterService refusing = (org.mooncake.osgi.store.master.MasterService)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {org.mooncake.osgi.store.master.MasterService.class}, (proxy, method, args) -> {
                            if (refuse.get() && method.getName().equals("mountSegment")) {
                                throw new org.mooncake.osgi.store.api.StoreException(
                                        org.mooncake.osgi.store.api.ErrorCode.INVALID_PARAMS, "refused by the test");
                            }
                            try {
                                return method.invoke(master, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
        StoreClientComponent c = started(config(1 << 20, 0, 1000, "(transport.protocol=tcp)"), refusing,
                new LocalTransport());
        try (TcpTransport tcp = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
            assertFalse(c.isHealthy());
            var h = c.health();
            assertEquals("store-client", c.name());
            assertFalse(h.up());
            assertTrue(((String) h.details().get("reason")).contains("no transport matching (transport.protocol=tcp)"),
                    h.details().toString());

            assertThrows(org.mooncake.osgi.store.api.StoreException.class,
                    () -> c.bindTransport(tcp, Map.of(Transport.PROTOCOL_PROPERTY, "tcp")));
            assertFalse(c.isHealthy());
            String why = (String) c.health().details().get("reason");
            assertTrue(why.contains("the tcp transport could not allocate or mount its 1048576-byte segment "
                    + "(INVALID_PARAMS (-600): refused by the test)"), why);

            refuse.set(false);
            c.unbindTransport(tcp);
            c.bindTransport(tcp, Map.of(Transport.PROTOCOL_PROPERTY, "tcp"));
            assertTrue(c.isHealthy(), String.valueOf(c.health().details()));
            assertTrue(c.health().up());
            assertEquals(1, master.segments().size());
        } finally {
            c.deactivate();
        }
    }

    /** Someone else unmounts the segment: the next heartbeat mounts it again, and /health says so meanwhile. */
    @Test
    void aSegmentUnmountedByAnotherCallerIsMountedAgainByTheNextHeartbeat() {
        StoreClientComponent c = started(config(1 << 20, 0), master, new LocalTransport());
        try {
            var seg = master.segments().getFirst();
            master.unmountSegment(seg.clientId(), seg.name());
            c.heartbeatNow();
            assertEquals(java.util.List.of(seg.name()), master.segments().stream().map(s -> s.name()).toList());
            assertTrue(c.health().up(), String.valueOf(c.health().details()));
            assertEquals(java.util.List.of(seg.name()), c.health().details().get("segments"));
            c.put("k", new byte[] {3}, org.mooncake.osgi.store.api.ReplicateConfig.DEFAULT);
            assertArrayEquals(new byte[] {3}, c.get("k"));
        } finally {
            c.deactivate();
        }
    }

    /** Only the transport the filter names allocates the segment; the others wait for it. */
    @Test
    void theSegmentWaitsForTheTransportItsFilterNames() throws Exception {
        StoreClientComponent c = started(config(1 << 20, 0, 1000, "(transport.protocol=tcp)"), master, new LocalTransport());
        try (TcpTransport tcp = new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000))) {
            assertEquals(0, master.segments().size(), "local does not match the filter");
            String waiting = c.segmentWaiting();
            assertTrue(waiting.contains("no transport matching (transport.protocol=tcp) is bound (bound: local)"), waiting);
            c.bindTransport(tcp, Map.of(Transport.PROTOCOL_PROPERTY, "tcp"));
            assertEquals(1, master.segments().size());
            assertEquals("local,tcp", master.segments().getFirst().protocol());
            assertEquals(null, c.segmentWaiting());
        } finally {
            c.deactivate();
        }
    }

    @Test
    void onlyWhatARestartAppliesIsNamedAsWaitingForOne() {
        String local = "(transport.protocol=local)";
        var running = new StoreClientComponent.Settings("", "t1", 1 << 20, 0, 1000, local, 65536);
        assertEquals(java.util.List.of(),
                new StoreClientComponent.Settings("", "t1", 1 << 20, 0, 5, local, 65536).restartOnlyChanges(running));
        assertEquals(java.util.List.of("tenant", "global.segment.size"),
                new StoreClientComponent.Settings("", "t2", 2 << 20, 0, 1000, local, 65536).restartOnlyChanges(running));
        assertEquals(java.util.List.of("segmentTransport.target"), new StoreClientComponent.Settings("", "t1", 1 << 20, 0,
                1000, "(transport.protocol=shm)", 65536).restartOnlyChanges(running));
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

    /** Stopping while the master is down costs one unanswered call, not one more for the goodbye. */
    @Test
    void aClientThatCannotReachItsMasterStopsWithoutSayingGoodbye() {
        var up = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.mooncake.osgi.store.master.MasterService sw = switchable(master, up);
        var counted = (org.mooncake.osgi.store.master.MasterService) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.mooncake.osgi.store.master.MasterService.class},
                (proxy, method, args) -> {
                    calls.add(method.getName());
                    try {
                        return method.invoke(sw, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        StoreClientComponent c = started(config(1 << 20, 0), counted, new LocalTransport());
        up.set(false);
        calls.clear();
        c.deactivate();
        calls.removeIf("heartbeat"::equals); // the heartbeat thread may have run once more before it stopped
        assertEquals(java.util.List.of("unmountSegment"), calls);
    }

    /** A storage node started before its master joins once the master answers. */
    @Test
    void aClientStartedBeforeItsMasterMountsItsSegmentWhenTheMasterAnswers() {
        var up = new java.util.concurrent.atomic.AtomicBoolean(false);
        StoreClientComponent c = started(config(1 << 20, 0), switchable(master, up), new LocalTransport());
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
