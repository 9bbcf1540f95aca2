package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.transport.local.LocalTransport;

/**
 * Someone else unmounts a storage client's segment at the master (a raw UNMOUNT_SEGMENT naming
 * the client): the client used to go on reporting healthy while contributing nothing, for good.
 * Now its next heartbeat sees that the master no longer holds the segment and mounts it again,
 * or, when the master refuses, the client is unhealthy with the reason until a later heartbeat
 * succeeds.
 */
class SegmentUnmountedByAnotherCallerTest {
    private ClientFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private List<String> mounted() {
        return f.master.segments().stream().map(SegmentStats::name).toList();
    }

    @Test
    void theNextHeartbeatMountsItAgainAndLaterPutsLandOnIt() {
        f = new ClientFixture(1 << 20);
        String segment = f.client.ownSegments().iterator().next();
        f.client.put("before", bytes("gone with the segment"));

        f.master.unmountSegment(f.client.clientId(), segment); // another caller, naming this client
        assertEquals(List.of(), mounted());
        assertFalse(f.client.exists("before"));

        f.client.heartbeat();
        assertEquals(List.of(segment), mounted(), "mounted again by the next heartbeat");
        assertTrue(f.client.isHealthy(), f.client.unhealthyReason());
        f.client.put("after", bytes("lands on it"));
        assertEquals(segment, f.master.getReplicaList(new ObjectKey("default", "after")).replicas().getFirst()
                .segmentName());
        assertArrayEquals(bytes("lands on it"), f.client.get("after"));
    }

    @Test
    void aRefusedRemountMakesTheClientUnhealthyWithTheReasonUntilOneSucceeds() {
        AtomicBoolean refuse = new AtomicBoolean(false);
        f = new ClientFixture(); // its client c1 has no segment: c2's is the only one
        EmbeddedStoreClient client = EmbeddedStoreClient.create(refusingMounts(f.master, refuse, new CopyOnWriteArrayList<>()),
                List.of(new LocalTransport()), "c2", "default", "local", f.clock);
        String segment = client.mountNewSegment(1 << 20, f.arena);
        client.heartbeat();
        assertNull(client.unhealthyReason());

        refuse.set(true);
        f.master.unmountSegment("c2", segment);
        client.heartbeat();
        String why = client.unhealthyReason();
        assertFalse(client.isHealthy());
        assertTrue(why.startsWith("segment " + segment + " contributes nothing: the master did not mount it again "
                + "(INVALID_PARAMS (-600): mounting refused by the test); tried again at each heartbeat"), why);
        client.heartbeat();
        assertEquals(why, client.unhealthyReason(), "still, with the same reason");

        refuse.set(false);
        client.heartbeat();
        assertTrue(client.isHealthy(), client.unhealthyReason());
        assertEquals(List.of(segment), mounted());
    }

    /**
     * What the check costs: a client with segments asks the master once per heartbeat which of
     * its segments it holds; a pure client asks nothing more than before.
     */
    @Test
    void aHeartbeatCostsOneCallMoreForAClientWithSegmentsAndNoneForAPureClient() {
        f = new ClientFixture();
        List<String> calls = new CopyOnWriteArrayList<>();
        MasterService counted = refusingMounts(f.master, new AtomicBoolean(false), calls);
        EmbeddedStoreClient pure = EmbeddedStoreClient.create(counted, List.of(new LocalTransport()), "pure", "default",
                "local", f.clock);
        pure.heartbeat();
        pure.heartbeat();
        assertEquals(List.of("heartbeat", "heartbeat"), calls);

        EmbeddedStoreClient storage = EmbeddedStoreClient.create(counted, List.of(new LocalTransport()), "storage",
                "default", "local", f.clock);
        storage.mountNewSegment(1 << 20, f.arena);
        calls.clear();
        storage.heartbeat();
        assertEquals(List.of("heartbeat", "segments"), calls);
    }

    /** The real master, refusing mounts while {@code refuse} is set; every call's name goes to {@code calls}. */
    private static MasterService refusingMounts(MasterService real, AtomicBoolean refuse, List<String> calls) {
        return (MasterService) Proxy.newProxyInstance(MasterService.class.getClassLoader(),
                new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    if (refuse.get() && method.getName().equals("mountSegment")) {
                        throw new StoreException(ErrorCode.INVALID_PARAMS, "mounting refused by the test");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
