package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * A client whose wall clock runs a minute ahead of the master's, or a minute behind, works as one
 * whose clock agrees: its calls are not refused as past their deadline (the request carries a
 * relative timeout) and its reads are not failed as past their lease (the lease's end arrives in
 * the client's clock). Before, the client ahead failed every read with LEASE_EXPIRED and the one
 * behind every call with RPC_FAIL.
 */
@Timeout(60)
class ClientClockSkewTest {
    private static final long LEASE_TTL_MS = MasterSettings.DEFAULTS.defaultLeaseTtlMs();

    private final Arena arena = Arena.ofShared();
    private final StoreMaster master;
    private final MasterRpcServer server;

    ClientClockSkewTest() throws IOException {
        PolicySelector p = new PolicySelector();
        p.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), p);
        server = new MasterRpcServer(ServerConfig.plain(0, 16 << 20), master);
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        arena.close();
    }

    private RemoteMasterService remote(InstantSource clock) {
        return new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()), 2_000, 16 << 20, null, clock);
    }

    private static InstantSource skewed(long skewSeconds) {
        return Clock.offset(Clock.systemUTC(), Duration.ofSeconds(skewSeconds));
    }

    @ParameterizedTest(name = "client clock {0} s off the master's")
    @ValueSource(longs = {60, -60})
    void putsAndReadsSucceedWhateverTheClientsClockSays(long skewSeconds) throws IOException {
        InstantSource clock = skewed(skewSeconds);
        TcpTransport storageNet = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000));
        TcpTransport clientNet = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000));
        try (RemoteMasterService storagesMaster = remote(clock); RemoteMasterService clientsMaster = remote(clock)) {
            EmbeddedStoreClient storage = EmbeddedStoreClient.create(storagesMaster, List.of(storageNet), "storage-1",
                    "default", "tcp", clock);
            EmbeddedStoreClient client = EmbeddedStoreClient.create(clientsMaster, List.of(clientNet), "client-1",
                    "default", "tcp", clock);
            storage.mountSegment(arena.allocate(4 << 20, 64));
            byte[] value = new byte[1 << 20];
            new Random(skewSeconds).nextBytes(value);
            client.put("kv-1", value);
            assertArrayEquals(value, client.get("kv-1"), "a single read within its lease");
            client.putBatch(Map.of("kv-2", value, "kv-3", value), ReplicateConfig.DEFAULT)
                    .forEach(r -> assertTrue(r.isOk(), r.toString()));
            client.getBatch(List.of("kv-2", "kv-3")).forEach(r -> assertArrayEquals(value, r.orThrow(), r.key()));
        } finally {
            clientNet.close();
            storageNet.close();
        }
    }

    @ParameterizedTest(name = "client clock {0} s off the master's")
    @ValueSource(longs = {60, -60})
    void aLeaseEndsInTheClientsClockNoLaterThanTheMasterSaid(long skewSeconds) {
        InstantSource clock = skewed(skewSeconds);
        try (RemoteMasterService remote = remote(clock)) {
            writeOne(remote, ObjectKey.of("k1"));
            long before = clock.millis();
            ReadLease lease = remote.getReplicaList(ObjectKey.of("k1"));
            long after = clock.millis();
            long left = lease.leaseExpiresAtMs() - before;
            assertTrue(left > 0 && left <= LEASE_TTL_MS,
                    "the lease ends " + left + " ms after the request in the client's clock (TTL " + LEASE_TTL_MS + ")");
            assertTrue(lease.leaseExpiresAtMs() <= after + LEASE_TTL_MS, "never later than the master's lease");
            ReadLease inBatch = remote.getReplicaListBatch(List.of(ObjectKey.of("k1"))).getFirst().orThrow();
            long leftInBatch = inBatch.leaseExpiresAtMs() - clock.millis();
            assertTrue(leftInBatch > 0 && leftInBatch <= LEASE_TTL_MS, "batch lease: " + leftInBatch + " ms left");
        }
    }

    /** The relative timeout still bounds a call: a master slower than it is given up on with RPC_FAIL. */
    @ParameterizedTest(name = "client clock {0} s off the master's")
    @ValueSource(longs = {60, -60})
    void aMasterSlowerThanTheTimeoutIsStillAnRpcFail(long skewSeconds) throws Exception {
        SlowMaster slow = new SlowMaster();
        try (MasterRpcServer slowServer = new MasterRpcServer(ServerConfig.plain(0, 1 << 20), slow.master());
                RemoteMasterService remote = new RemoteMasterService(
                        new InetSocketAddress("127.0.0.1", slowServer.port()), 300, 1 << 20, null, skewed(skewSeconds))) {
            assertTrue(remote.exists(ObjectKey.of("fast")), "a call within its timeout is answered");
            StoreException e = assertThrows(StoreException.class, () -> remote.exists(ObjectKey.of(SlowMaster.SLOW)));
            assertEquals(ErrorCode.RPC_FAIL, e.errorCode(), e.getMessage());
            slow.release();
            assertTrue(remote.exists(ObjectKey.of("fast")), "the connection serves on");
        }
    }

    private static void writeOne(RemoteMasterService remote, ObjectKey key) {
        remote.mountSegment(new SegmentDescriptor("seg-" + key.key(), "writer", 1 << 20,
                new SegmentEndpoint("tcp", "127.0.0.1:1", "seg-" + key.key())));
        PutTicket ticket = remote.putStart("writer", key, 4096, ReplicateConfig.DEFAULT, false);
        remote.putEnd("writer", key, ticket.putId(), 0);
    }
}
