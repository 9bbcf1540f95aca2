package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.InstantSource;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.PutTicket;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.transport.tcp.TcpTransport;

class MasterRpcTest {
    private final Arena arena = Arena.ofShared();
    private StoreMaster master = newMaster();
    private MasterRpcServer server;
    private final RemoteMasterService remote;

    MasterRpcTest() throws IOException {
        server = new MasterRpcServer(config(0), master);
        remote = new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()), 2000, 16 << 20);
    }

    private static StoreMaster newMaster() {
        PolicySelector p = new PolicySelector();
        p.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        return new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), p);
    }

    static MasterRpcServer.Config config(int port) {
        return config(port, 1 << 20);
    }

    static MasterRpcServer.Config config(int port, int maxFrame) {
        return ServerConfig.plain(port, maxFrame);
    }

    @AfterEach
    void close() throws IOException {
        remote.close();
        server.close();
        arena.close();
    }

    private static void assertError(ErrorCode expected, Executable call) {
        StoreException e = assertThrows(StoreException.class, call);
        assertEquals(expected, e.errorCode(), e.getMessage());
    }

    private void mount(String client, String name) {
        remote.mountSegment(new SegmentDescriptor(name, client, 1 << 20, new SegmentEndpoint("tcp", "127.0.0.1:1", name)));
    }

    @Test
    void everyOperationCrossesTheWireWithItsResultOrItsErrorCode() {
        mount("c1", "s1");
        ObjectKey k = ObjectKey.of("a");
        ReplicateConfig cfg = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).recomputeCostMs(175)
                .groupId("session-1").groupOnly(true).build();
        SegmentEndpoint moved = new SegmentEndpoint("tcp", "127.0.0.1:2", "s1");
        remote.updateSegmentEndpoints(new SegmentDescriptor("s1", "c1", 1 << 20, List.of(moved)));
        assertError(ErrorCode.SEGMENT_NOT_FOUND,
                () -> remote.updateSegmentEndpoints(new SegmentDescriptor("s9", "c1", 1 << 20, List.of(moved))));
        PutTicket t = remote.putStart("c1", k, 1000, cfg, false);
        assertEquals("s1", t.replicas().getFirst().segmentName());
        assertEquals(List.of(moved), t.replicas().getFirst().endpoints(), "the endpoint update crossed the wire");
        assertError(ErrorCode.REPLICA_IS_NOT_READY, () -> remote.getReplicaList(k));
        remote.putEnd("c1", k, t.putId(), 77);
        assertEquals(77, remote.getReplicaList(k).checksum());
        assertTrue(remote.exists(k));
        var info = remote.queryKey(k).orElseThrow();
        assertEquals(ObjectDataType.HIDDEN_STATE, info.dataType());
        assertEquals(175, info.recomputeCostMs());
        assertEquals("session-1", info.groupId());
        assertTrue(info.groupOnly(), "the group-only hint crossed the wire both ways");
        assertTrue(remote.queryKey(ObjectKey.of("nope")).isEmpty());
        assertEquals(1, remote.stats().objects());
        assertEquals("lease-lru", remote.stats().activePolicy());
        assertEquals(List.of("s1"), remote.segments().stream().map(s -> s.name()).toList());
        assertEquals(List.of("tcp://127.0.0.1:2"), remote.segments().getFirst().endpoints(), "the address it moved to");
        assertEquals(master.segments(), remote.segments(), "endpoints and addresses cross the wire");
        assertError(ErrorCode.OBJECT_ALREADY_EXISTS, () -> remote.putStart("c1", k, 10, ReplicateConfig.DEFAULT, false));
        assertError(ErrorCode.OBJECT_HAS_LEASE, () -> remote.remove(k, false));
        remote.remove(k, true);
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> remote.getReplicaList(k));
        assertError(ErrorCode.INVALID_PARAMS, () -> remote.putStart("c1", ObjectKey.of("z"), 0, ReplicateConfig.DEFAULT, false));
        PutTicket r = remote.putStart("c1", ObjectKey.of("r"), 10, ReplicateConfig.DEFAULT, false);
        remote.putRevoke("c1", ObjectKey.of("r"), r.putId());
        assertEquals(0, remote.removeByRegex("default", Pattern.compile("x.*"), true));
        assertEquals(0, remote.removeAll("default", true));
        remote.unmountSegment("c1", "s1");
        assertError(ErrorCode.SEGMENT_NOT_FOUND, () -> remote.unmountSegment("c1", "s1"));
        assertEquals(1, remote.stats().clients());
        remote.leave("c1");
        assertEquals(0, remote.stats().clients(), "the goodbye crossed the wire");
    }

    /**
     * A segment's memory kind crosses the wire both ways (mount, segments, stats); a descriptor
     * without one (a client older than store.master 3.0, whose records have no such field) is HOST,
     * and the field a newer peer adds is ignored by an older one's decoder.
     */
    @Test
    void aSegmentsMemoryKindCrossesTheWireAndItsAbsenceMeansHost() throws IOException {
        var cuda = org.mooncake.osgi.store.spi.device.MemoryKind.CUDA_DEVICE;
        remote.mountSegment(new SegmentDescriptor("gpu", "c1", 2 << 20, List.of(new SegmentEndpoint("local", "pid:1@h", "gpu")),
                cuda));
        mount("c1", "host");
        java.util.Map<String, org.mooncake.osgi.store.spi.device.MemoryKind> kinds = new java.util.HashMap<>();
        remote.segments().forEach(s -> kinds.put(s.name(), s.memoryKind()));
        assertEquals(java.util.Map.of("gpu", cuda, "host", org.mooncake.osgi.store.spi.device.MemoryKind.HOST), kinds);
        assertEquals(cuda, master.segments().stream().filter(s -> s.name().equals("gpu")).findFirst().orElseThrow()
                .memoryKind(), "the master itself recorded it");
        var byKind = remote.stats().memoryKinds();
        assertEquals(List.of(new org.mooncake.osgi.store.master.MemoryKindStats(
                org.mooncake.osgi.store.spi.device.MemoryKind.HOST, 1, 1 << 20, 0),
                new org.mooncake.osgi.store.master.MemoryKindStats(cuda, 1, 2 << 20, 0)), byKind);
        // an endpoint update from a client that sends no kind keeps the kind of the mount
        remote.updateSegmentEndpoints(new SegmentDescriptor("gpu", "c1", 2 << 20,
                List.of(new SegmentEndpoint("local", "pid:1@h", "gpu"))));
        assertEquals(cuda, remote.segments().stream().filter(s -> s.name().equals("gpu")).findFirst().orElseThrow()
                .memoryKind());

        // the encoding: with the kind, it round-trips; an older peer's descriptor (no field) reads as HOST
        SegmentDescriptor withKind = new SegmentDescriptor("g", "c", 4096, List.of(new SegmentEndpoint("tcp", "a:1", "g")),
                cuda);
        byte[] wire = Messages.CBOR.writeValueAsBytes(withKind);
        assertEquals(withKind, Messages.CBOR.readValue(wire, SegmentDescriptor.class));
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) Messages.CBOR.readTree(wire);
        assertEquals("CUDA_DEVICE", tree.get("memoryKind").asText());
        tree.remove("memoryKind");
        SegmentDescriptor old = Messages.CBOR.treeToValue(tree, SegmentDescriptor.class);
        assertEquals(org.mooncake.osgi.store.spi.device.MemoryKind.HOST, old.memoryKind());
        assertEquals(withKind.endpoints(), old.endpoints());
        // and an older peer, whose record lacks the component, ignores it
        record OldDescriptor(String name, String clientId, long sizeBytes, List<SegmentEndpoint> endpoints) {
        }
        OldDescriptor seenByOld = Messages.CBOR.readValue(wire, OldDescriptor.class);
        assertEquals(new OldDescriptor("g", "c", 4096, withKind.endpoints()), seenByOld);
        record OldStats(String name, long capacityBytes) {
        }
        byte[] stats = Messages.CBOR.writeValueAsBytes(remote.segments().getFirst());
        assertEquals(remote.segments().getFirst().name(), Messages.CBOR.readValue(stats, OldStats.class).name());
    }

    @Test
    void batchesCrossTheWireWithOneResultPerKey() {
        mount("c1", "s1");
        List<ObjectKey> keys = List.of(ObjectKey.of("a"), ObjectKey.of("b"));
        List<OpResult<PutTicket>> started = remote.putStartBatch("c1", keys, List.of(10L, 0L), ReplicateConfig.DEFAULT, false);
        assertTrue(started.get(0).isOk());
        assertEquals(ErrorCode.INVALID_PARAMS, started.get(1).error());
        List<OpResult<Void>> ended = remote.putEndBatch("c1",
                List.of(new PutCompletion(keys.get(0), started.get(0).value().putId(), 5)));
        assertTrue(ended.getFirst().isOk());
        assertEquals(List.of(true, false), remote.existsBatch(keys).stream().map(OpResult::value).toList());
        var leases = remote.getReplicaListBatch(keys);
        assertEquals(5, leases.get(0).value().checksum());
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, leases.get(1).error());
    }

    @Test
    void aClientOfAnotherVersionIsTurnedAway() throws IOException {
        try (RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 1000, 1 << 20)) {
            Messages.Response r = c.call("HELLO", Messages.CBOR.createArrayNode().add(99), 1000);
            assertEquals(ErrorCode.INVALID_VERSION.code(), r.code());
        }
        // version 1 sent CRC32C checksums; a master of version 2 would record them as XXH3 and fail every get
        try (RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 1000, 1 << 20)) {
            Messages.Response r = c.call("HELLO", Messages.CBOR.createArrayNode().add(1), 1000);
            assertEquals(ErrorCode.INVALID_VERSION.code(), r.code());
            assertTrue(r.message().contains("protocol version 1 is not served"), r.message());
        }
        try (RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 1000, 1 << 20)) {
            assertEquals(ErrorCode.INVALID_PARAMS.code(), c.call("STATS", null, 1000).code(), "HELLO comes first");
        }
    }

    @Test
    void lookUpsAndChunkChecksumsCrossTheWire() {
        mount("c1", "s1");
        ObjectKey big = ObjectKey.of("big");
        PutTicket t = remote.putStart("c1", big, 10_000, ReplicateConfig.DEFAULT, false);
        assertEquals(List.of(ObjectState.WRITING, ObjectState.ABSENT),
                remote.lookupBatch(List.of(big, ObjectKey.of("none"))));
        ChunkChecksums chunks = new ChunkChecksums(4096, new long[] {11, 12, 13});
        remote.putEnd("c1", big, t.putId(), Checksums.combine(chunks), chunks);
        assertEquals(List.of(ObjectState.READABLE), remote.lookupBatch(List.of(big)));
        assertEquals(chunks, remote.getReplicaList(big).chunks());
        PutTicket batch = remote.putStart("c1", ObjectKey.of("big2"), 10_000, ReplicateConfig.DEFAULT, false);
        assertTrue(remote.putEndBatch("c1", List.of(new PutCompletion(ObjectKey.of("big2"), batch.putId(),
                Checksums.combine(chunks), chunks))).getFirst().isOk());
        assertEquals(chunks, remote.getReplicaListBatch(List.of(ObjectKey.of("big2"))).getFirst().value().chunks());
    }

    /**
     * A client of protocol 2 keeps working against this master, except that it is told plainly
     * that it cannot check an object written in chunks, instead of failing its checksum.
     */
    @Test
    void aVersion2ClientIsServedAndRefusedOnlyObjectsWrittenInChunks() throws IOException {
        mount("c1", "s1");
        PutTicket whole = remote.putStart("c1", ObjectKey.of("whole"), 100, ReplicateConfig.DEFAULT, false);
        remote.putEnd("c1", ObjectKey.of("whole"), whole.putId(), 5);
        PutTicket big = remote.putStart("c1", ObjectKey.of("big"), 10_000, ReplicateConfig.DEFAULT, false);
        ChunkChecksums chunks = new ChunkChecksums(4096, new long[] {1, 2, 3});
        remote.putEnd("c1", ObjectKey.of("big"), big.putId(), Checksums.combine(chunks), chunks);
        try (RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 1000, 1 << 20)) {
            assertEquals(0, c.call("HELLO", Messages.CBOR.createArrayNode().add(2), 1000).code());
            var key = Messages.CBOR.valueToTree(ObjectKey.of("whole"));
            Messages.Response ok = c.call("GET_REPLICA_LIST", Messages.CBOR.createArrayNode().add(key), 1000);
            assertEquals(0, ok.code());
            assertEquals(5, ok.result().get("checksum").asLong());
            Messages.Response refused = c.call("GET_REPLICA_LIST",
                    Messages.CBOR.createArrayNode().add(Messages.CBOR.valueToTree(ObjectKey.of("big"))), 1000);
            assertEquals(ErrorCode.INVALID_VERSION.code(), refused.code());
            assertTrue(refused.message().contains("protocol 2"), refused.message());
            Messages.Response batch = c.call("GET_REPLICA_LIST_BATCH", Messages.CBOR.createArrayNode().add(
                    Messages.CBOR.valueToTree(List.of(ObjectKey.of("whole"), ObjectKey.of("big")))), 1000);
            assertEquals(0, batch.code());
            assertEquals("OK", batch.result().get(0).get("error").asText());
            assertEquals("INVALID_VERSION", batch.result().get(1).get("error").asText());
        }
    }

    /** A newer master's error code, unknown to this client, fails the call cleanly, with the number. */
    @Test
    void anErrorCodeThisClientDoesNotKnowIsAnInternalErrorNamingIt() {
        StoreException e = RemoteMasterService.error(new Messages.Response(1, -2999, "a future failure", null));
        assertEquals(ErrorCode.INTERNAL_ERROR, e.errorCode());
        assertTrue(e.getMessage().contains("-2999") && e.getMessage().contains("a future failure"), e.getMessage());
        assertEquals(ErrorCode.OBJECT_BEING_WRITTEN,
                RemoteMasterService.error(new Messages.Response(1, -2004, "busy", null)).errorCode());
    }

    @Test
    void hostileFramesCostOnlyTheirOwnConnection() throws IOException {
        Random rnd = new Random(11);
        long registration = remote.heartbeat("good");
        for (int i = 0; i < 60; i++) {
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                switch (i % 4) {
                    case 0 -> { // random bytes
                        byte[] junk = new byte[1 + rnd.nextInt(100)];
                        rnd.nextBytes(junk);
                        out.write(junk);
                    }
                    case 1 -> { // a frame far over the limit
                        out.writeInt(Frames.MAGIC);
                        out.writeInt(Integer.MAX_VALUE);
                    }
                    case 2 -> { // a valid frame of garbage CBOR
                        byte[] junk = new byte[rnd.nextInt(64)];
                        rnd.nextBytes(junk);
                        Frames.write(out, junk);
                    }
                    default -> { // a truncated frame
                        out.writeInt(Frames.MAGIC);
                        out.writeInt(1000);
                        out.write(new byte[10]);
                    }
                }
                out.flush();
                s.shutdownOutput();
                while (s.getInputStream().read() >= 0) {
                    // until the server hangs up
                }
            } catch (IOException reset) {
                // dropped by the server: expected
            }
            assertEquals(registration, remote.heartbeat("good"), "served after hostile connection " + i);
        }
    }

    @Test
    void unknownOperationsAndMalformedArgumentsAreErrorsNotCrashes() throws IOException {
        try (RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 1000, 1 << 20)) {
            c.call("HELLO", Messages.CBOR.createArrayNode().add(Frames.PROTOCOL_VERSION), 1000);
            assertEquals(ErrorCode.INVALID_PARAMS.code(), c.call("FLY", null, 1000).code());
            assertEquals(ErrorCode.INVALID_PARAMS.code(), c.call("EXISTS", Messages.CBOR.createArrayNode().add(42), 1000).code());
            var badKey = Messages.CBOR.createArrayNode();
            badKey.addObject().put("tenant", "default").put("key", "has space");
            assertEquals(ErrorCode.INVALID_KEY.code(), c.call("EXISTS", badKey, 1000).code());
            assertEquals(ErrorCode.INVALID_PARAMS.code(), c.call("PUT_END", Messages.CBOR.createArrayNode().add("c1"), 1000).code());
        }
    }

    @Test
    void aRestartedMasterIsReachedAgainAndClientsMountTheirSegmentsAgain() throws IOException {
        TcpTransport storageNet = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000));
        TcpTransport clientNet = new TcpTransport(TcpTransport.loopback(2, 1 << 20, 5000));
        try {
            EmbeddedStoreClient storage = EmbeddedStoreClient.create(remote, List.of(storageNet), "storage-1", "default",
                    "tcp", InstantSource.system());
            RemoteMasterService clientsMaster = new RemoteMasterService(
                    new InetSocketAddress("127.0.0.1", server.port()), 2000, 1 << 20);
            EmbeddedStoreClient client = EmbeddedStoreClient.create(clientsMaster, List.of(clientNet), "client-1",
                    "default", "tcp", InstantSource.system());
            storage.mountSegment(arena.allocate(4 << 20, 64));
            byte[] value = new byte[3 << 20];
            new Random(2).nextBytes(value);
            client.put("kv-1", value);
            assertArrayEquals(value, client.get("kv-1"), "bytes crossed from the client to the storage node over tcp");

            int port = server.port();
            server.close();
            assertError(ErrorCode.RPC_FAIL, () -> client.get("kv-1"));
            master = newMaster();
            server = new MasterRpcServer(config(port), master);
            assertFalse(client.exists("kv-1"), "a restarted master has forgotten the objects");
            assertEquals(0, master.segments().size());
            storage.heartbeat();
            assertEquals(1, master.segments().size(), "the storage node mounted its segment again");
            client.put("kv-2", value);
            assertArrayEquals(value, client.get("kv-2"));
            clientsMaster.close();
        } finally {
            clientNet.close();
            storageNet.close();
        }
    }

    @Test
    void aCallPastItsDeadlineFailsWithRpcFail() throws IOException {
        RemoteMasterService impatient = new RemoteMasterService(new InetSocketAddress("127.0.0.1", server.port()), 1, 1 << 20);
        try {
            // 1 ms is shorter than any round trip here, so the call or the handshake gives up
            StoreException e = assertThrows(StoreException.class, () -> {
                for (int i = 0; i < 1000; i++) {
                    impatient.stats();
                }
            });
            assertEquals(ErrorCode.RPC_FAIL, e.errorCode());
            assertNotEquals(0, remote.heartbeat("still-fine"));
        } finally {
            impatient.close();
        }
    }

    /** Without this a broken file would take the RPC away, and every remote client's segments after client.ttl. */
    @Test
    void aBrokenOrChangedConfigurationLeavesTheServerServingAsItWas() {
        MasterRpcServer.Settings before = server.settings();
        server.modified(config(server.port(), 10)); // broken: frames of 10 bytes
        server.modified(config(0, 1 << 22)); // valid: read at the next start
        assertEquals(before, server.settings());
        assertEquals(master.segments(), remote.segments(), "the same master still answers");
    }
}
