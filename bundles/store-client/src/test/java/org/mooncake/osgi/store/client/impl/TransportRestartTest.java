package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A transport that serves a segment restarts (its bundle is updated) under the client that owns
 * the segment: the objects stay, the master names the new transport's address, and a process
 * that reaches the segment only that way reads them again. Before, the master kept naming the old
 * address for good.
 */
class TransportRestartTest {
    private static final byte[] VALUE = "bytes that must survive".getBytes();

    private static StoreMaster master() {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        return new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
    }

    private static TcpTransport tcp() {
        try {
            return new TcpTransport(TcpTransport.loopback(2, 64 << 10, 5000));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> protocols(MasterService m) {
        return m.getReplicaList(ObjectKey.of("k")).replicas().getFirst().endpoints().stream()
                .map(SegmentEndpoint::protocol).toList();
    }

    private static SegmentEndpoint tcpEndpoint(MasterService m) {
        return m.getReplicaList(ObjectKey.of("k")).replicas().getFirst().endpoints().stream()
                .filter(e -> e.protocol().equals("tcp")).findFirst().orElseThrow();
    }

    /** A client whose segment the local transport allocates, holding VALUE under "k". */
    private static EmbeddedStoreClient ownerHoldingK(MasterService m, Transports table, Arena arena) {
        EmbeddedStoreClient owner = new EmbeddedStoreClient(m, table, "owner", "default", "local", InstantSource.system());
        owner.mountNewSegment(16 << 20, arena);
        owner.put("k", VALUE, ReplicateConfig.DEFAULT);
        return owner;
    }

    @Test
    void aRestartedTransportServesTheSegmentAgainUnderItsNewAddress() {
        StoreMaster master = master();
        Transports table = new Transports();
        LocalTransport local = new LocalTransport();
        TcpTransport before = tcp();
        table.add(local);
        table.add(before);
        try (Arena arena = Arena.ofShared(); TcpTransport readerNet = tcp()) {
            EmbeddedStoreClient owner = ownerHoldingK(master, table, arena);
            String segment = owner.ownSegments().iterator().next();
            // another process: it reaches the segment over tcp only
            EmbeddedStoreClient remote = EmbeddedStoreClient.create(master, List.of(readerNet), "remote", "default",
                    "tcp", InstantSource.system());
            assertArrayEquals(VALUE, remote.get("k"));
            SegmentEndpoint oldAddress = tcpEndpoint(master);

            // the tcp bundle stops: DS unbinds it from the client, then the transport closes
            owner.transportUnbound(before);
            table.remove(before);
            before.close();
            assertEquals(List.of("local"), protocols(master), "the master names only what still serves it");
            assertEquals(ErrorCode.TRANSFER_FAIL, assertThrows(StoreException.class, () -> remote.get("k")).errorCode());
            assertArrayEquals(VALUE, owner.get("k"), "the object stays, read in-process");

            // the updated bundle starts a new transport, on a new port
            try (TcpTransport after = tcp()) {
                table.add(after);
                owner.transportBound(after);
                assertEquals(List.of("local", "tcp"), protocols(master));
                assertNotEquals(oldAddress, tcpEndpoint(master));
                assertEquals(owner.describe(segment).endpoints(), master.getReplicaList(ObjectKey.of("k")).replicas()
                        .getFirst().endpoints());
                assertArrayEquals(VALUE, remote.get("k"), "read again over the new transport");
                owner.transportBound(after); // bound twice (a rebind): served once
                assertEquals(2, owner.describe(segment).endpoints().size());
            }
        }
    }

    /** Two versions of a transport bundle side by side: the newer carries transfers, the older takes over when it goes. */
    @Test
    void twoTransportsOfAProtocolHandOverWhenTheNewerGoes() {
        Transports table = new Transports();
        LocalTransport older = new LocalTransport();
        LocalTransport newer = new LocalTransport();
        table.add(older);
        table.add(newer);
        assertSame(newer, table.get("local"));
        assertEquals(List.of(older, newer), table.all(), "both serve segments");
        table.remove(newer);
        assertSame(older, table.get("local"), "before, the protocol had no transport left here");
        table.remove(older);
        assertEquals(ErrorCode.TRANSFER_FAIL, assertThrows(StoreException.class, () -> table.get("local")).errorCode());
    }

    /** A master that cannot be reached when a transport changes hears of it with the next heartbeat. */
    @Test
    void aChangeTheMasterMissedIsToldWithTheNextHeartbeat() {
        StoreMaster real = master();
        AtomicBoolean reachable = new AtomicBoolean(true);
        MasterService flaky = (MasterService) Proxy.newProxyInstance(MasterService.class.getClassLoader(),
                new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                    if (!reachable.get() && !method.getName().equals("getReplicaList")) {
                        throw new StoreException(ErrorCode.RPC_FAIL, "cannot reach the master");
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Transports table = new Transports();
        LocalTransport local = new LocalTransport();
        table.add(local);
        try (Arena arena = Arena.ofShared(); TcpTransport tcp = tcp()) {
            EmbeddedStoreClient owner = ownerHoldingK(flaky, table, arena);
            reachable.set(false);
            table.add(tcp);
            owner.transportBound(tcp);
            assertEquals(List.of("local"), protocols(real), "the master has not heard yet");
            owner.heartbeat();
            assertEquals(List.of("local"), protocols(real));
            reachable.set(true);
            owner.heartbeat();
            assertEquals(List.of("local", "tcp"), protocols(real), "told with the first heartbeat that got through");
            assertTrue(owner.isHealthy());
        }
    }

    /**
     * The master restarts (forgetting everything) while the segment's transport is swapped: the
     * first heartbeat that reaches the new master mounts the segment with the endpoints it has now.
     */
    @Test
    void aRestartedMasterGetsTheSegmentWithTheEndpointsOfNow() {
        java.util.concurrent.atomic.AtomicReference<StoreMaster> current = new java.util.concurrent.atomic.AtomicReference<>(master());
        AtomicBoolean reachable = new AtomicBoolean(true);
        MasterService restarting = (MasterService) Proxy.newProxyInstance(MasterService.class.getClassLoader(),
                new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                    if (!reachable.get()) {
                        throw new StoreException(ErrorCode.RPC_FAIL, "cannot reach the master");
                    }
                    try {
                        return method.invoke(current.get(), args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Transports table = new Transports();
        table.add(new LocalTransport());
        TcpTransport before = tcp();
        table.add(before);
        try (Arena arena = Arena.ofShared(); TcpTransport after = tcp()) {
            EmbeddedStoreClient owner = ownerHoldingK(restarting, table, arena);
            String segment = owner.ownSegments().iterator().next();
            SegmentEndpoint oldTcp = tcpEndpoint(current.get());
            reachable.set(false); // the master goes down ...
            owner.transportUnbound(before);
            table.remove(before);
            before.close();
            table.add(after);
            owner.transportBound(after);
            current.set(master()); // ... and comes back empty
            reachable.set(true);
            owner.heartbeat();
            StoreMaster restarted = current.get();
            assertEquals(List.of(segment), restarted.segments().stream().map(s -> s.name()).toList());
            assertEquals("local,tcp", restarted.segments().getFirst().protocol());
            owner.put("k2", VALUE, ReplicateConfig.DEFAULT);
            List<SegmentEndpoint> now = restarted.getReplicaList(ObjectKey.of("k2")).replicas().getFirst().endpoints();
            assertEquals(owner.describe(segment).endpoints(), now);
            assertTrue(!now.contains(oldTcp), "the new transport's address, not the old one's: " + now);
        }
    }

    /** The last transport that serves a segment goes: the master keeps what it had, and hears again once one serves it. */
    @Test
    void aSegmentServedByNothingComesBackWhenATransportServesItAgain() {
        StoreMaster master = master();
        Transports table = new Transports();
        LocalTransport first = new LocalTransport();
        table.add(first);
        try (Arena arena = Arena.ofShared()) {
            EmbeddedStoreClient owner = ownerHoldingK(master, table, arena);
            owner.transportUnbound(first);
            table.remove(first);
            assertEquals(List.of("local"), protocols(master), "a segment needs an endpoint: the last one stays named");
            assertEquals(ErrorCode.TRANSFER_FAIL, assertThrows(StoreException.class, () -> owner.get("k")).errorCode());
            owner.heartbeat();
            String why = owner.unhealthyReason();
            assertTrue(why != null && why.contains("served by no transport here"), "it contributes nothing: " + why);
            LocalTransport second = new LocalTransport();
            table.add(second);
            owner.transportBound(second);
            assertArrayEquals(VALUE, owner.get("k"));
            owner.heartbeat();
            assertTrue(owner.isHealthy(), owner.unhealthyReason());
        }
    }
}
