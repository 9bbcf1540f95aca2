package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.RangeCopy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;

class EmbeddedStoreClientTest {
    private ClientFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertError(ErrorCode expected, Executable call) {
        StoreException e = assertThrows(StoreException.class, call);
        assertEquals(expected, e.errorCode(), e.getMessage());
    }

    /**
     * A large put asks the transport for its checksum only where the transport computes it in the
     * same pass as its copy; elsewhere the client checksums on another thread. The object reads
     * back verified either way.
     */
    @Test
    void aLargePutLeavesTheChecksumToATransportThatNeedsNoSecondPass() {
        for (boolean onePass : new boolean[] {true, false}) {
            List<Boolean> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
            HookedTransport t = new HookedTransport() {
                @Override
                public boolean checksumsInOnePass() {
                    return onePass;
                }

                @Override
                public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                    if (batch.getFirst().op() == TransferOp.WRITE) {
                        asked.add(batch.getFirst().checksum());
                    }
                    return inner.submit(batch);
                }
            };
            f = new ClientFixture(t, 16 << 20);
            int size = (int) org.mooncake.osgi.store.memory.Checksums.ASIDE_FROM + 4096;
            MemorySegment src = f.arena.allocate(size);
            src.fill((byte) 7);
            f.client.registerBuffer(src);
            f.client.putFrom("big", src, ReplicateConfig.DEFAULT);
            assertEquals(List.of(onePass), asked, "one pass: " + onePass);
            MemorySegment back = f.arena.allocate(size);
            assertEquals(size, f.client.getInto("big", back));
            assertEquals(-1, back.mismatch(src));
            f.close();
            f = null;
        }
    }

    @Test
    void bytesRoundTripThroughCopyAndZeroCopyCalls() {
        f = new ClientFixture(1 << 20);
        var c = f.client;
        c.put("a", bytes("hello"));
        assertArrayEquals(bytes("hello"), c.get("a"));
        assertEquals(5, c.getSize("a"));
        assertTrue(c.exists("a"));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(4096);
            for (int i = 0; i < 4096; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            c.registerBuffer(src);
            c.putFrom("z", src, ReplicateConfig.DEFAULT);
            MemorySegment dst = arena.allocate(8192);
            assertEquals(4096, c.getInto("z", dst));
            assertEquals(-1, src.mismatch(dst.asSlice(0, 4096)));
            MemorySegment small = arena.allocate(4095);
            assertError(ErrorCode.BUFFER_TOO_SMALL, () -> c.getInto("z", small));
            MemorySegment ranged = arena.allocate(16);
            assertEquals(8, c.getIntoRanges("z", List.of(new RangeCopy(10, 0, 4), new RangeCopy(100, 8, 4)), ranged));
            assertEquals((byte) 10, ranged.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals((byte) 100, ranged.get(ValueLayout.JAVA_BYTE, 8));
            assertError(ErrorCode.INVALID_PARAMS, () -> c.getIntoRanges("z", List.of(new RangeCopy(4090, 0, 8)), ranged));
        }
        c.upsert("a", bytes("world!"), ReplicateConfig.DEFAULT);
        assertArrayEquals(bytes("world!"), c.get("a"));
        f.clock.ms.addAndGet(20_000);
        c.remove("a", false);
        assertFalse(c.exists("a"));
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> c.get("a"));
    }

    @Test
    void aCorruptReplicaIsAnErrorNeverDataAndAnIntactReplicaIsUsedInstead() {
        HookedTransport t = new HookedTransport() {
            @Override
            public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                for (TransferRequest r : batch) {
                    if (r.op() == TransferOp.READ && r.remote().segmentName().endsWith("-1")) {
                        // the replica's first byte rots in its segment
                        MemorySegment first = MemorySegment.ofArray(new byte[1]);
                        inner.submit(List.of(new TransferRequest(TransferOp.READ, first, r.remote(), r.remoteOffset())));
                        first.set(ValueLayout.JAVA_BYTE, 0, (byte) ~first.get(ValueLayout.JAVA_BYTE, 0));
                        inner.submit(List.of(new TransferRequest(TransferOp.WRITE, first, r.remote(), r.remoteOffset())));
                    }
                }
                return inner.submit(batch);
            }
        };
        f = new ClientFixture(t, 1 << 20, 1 << 20);
        f.client.put("one", bytes("payload"), ReplicateConfig.builder().preferredSegments(List.of("c1/segment-1")).build());
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("one"));
        // the transport delivered the bytes: a completed read, and a mismatch
        assertEquals(List.of(new TransferStats("local", 1, 7, 0, 1, 7, 0, 1)), f.client.transferStats());
        f.client.put("two", bytes("payload"), ReplicateConfig.builder().replicaCount(2).build());
        assertArrayEquals(bytes("payload"), f.client.get("two"));
    }

    /** A transport that reports {@code lie} as the checksum of every request that asks for one. */
    private static final class MisreportingTransport extends HookedTransport {
        final List<TransferRequest> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile TransferOp lieOn;

        @Override
        public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
            seen.addAll(batch);
            return inner.submit(batch).thenApply(statuses -> {
                List<TransferStatus> out = new java.util.ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    TransferStatus s = statuses.get(i);
                    boolean lie = batch.get(i).op() == lieOn;
                    if (lie && s.chunkChecksums() != null) {
                        long[] sums = s.chunkChecksums().clone();
                        sums[sums.length - 1]++;
                        out.add(TransferStatus.doneChunked(s.bytes(), sums));
                    } else {
                        out.add(lie && s.checksum().isPresent() ? TransferStatus.done(s.bytes(), s.checksum().getAsLong() + 1) : s);
                    }
                }
                return out;
            });
        }
    }

    @Test
    void theChecksumATransportComputesBesideItsCopyIsTheOneRecordedAndVerified() {
        MisreportingTransport t = new MisreportingTransport();
        f = new ClientFixture(t, 1 << 20, 1 << 20);
        byte[] v = new byte[60_000]; // one checksum chunk: ChunkedChecksumTest has larger objects
        new java.util.Random(3).nextBytes(v);
        f.client.put("honest", v, ReplicateConfig.builder().replicaCount(2).build());
        assertArrayEquals(v, f.client.get("honest"));
        assertEquals(org.mooncake.osgi.store.memory.Checksums.of(java.lang.foreign.MemorySegment.ofArray(v)),
                f.master.queryKey(ObjectKey.of("honest")).orElseThrow().checksum());
        // one checksum per put (the first replica's write) and one per get
        assertEquals(List.of(true, false, true), t.seen.stream().map(TransferRequest::checksum).toList());

        t.lieOn = TransferOp.WRITE;
        f.client.put("recorded", v);
        t.lieOn = null;
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("recorded"));

        t.lieOn = TransferOp.READ;
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("honest"));
    }

    @Test
    void chunkChecksumsATransportComputesBesideItsCopyAreTheOnesRecordedAndVerified() {
        MisreportingTransport t = new MisreportingTransport();
        f = new ClientFixture(t, 1 << 20);
        f.client.checksumChunkBytes(16 << 10);
        byte[] v = new byte[100_000];
        new java.util.Random(4).nextBytes(v);
        f.client.put("honest", v);
        assertArrayEquals(v, f.client.get("honest"));
        var chunks = f.master.getReplicaList(ObjectKey.of("honest")).chunks();
        assertArrayEquals(org.mooncake.osgi.store.memory.Checksums.ofChunks(java.lang.foreign.MemorySegment.ofArray(v),
                16 << 10), chunks.sums());
        assertEquals(List.of(16L << 10, 16L << 10), t.seen.stream().map(TransferRequest::checksumChunkBytes).toList());

        t.lieOn = TransferOp.WRITE;
        f.client.put("recorded", v);
        t.lieOn = null;
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("recorded"));

        t.lieOn = TransferOp.READ;
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("honest"));
    }

    /** getIntoBatch asks the master for every lease in one call, as getBatch does. */
    @Test
    void aBatchOfReadsTakesItsLeasesInOneMasterCall() {
        f = new ClientFixture(1 << 20);
        f.client.put("a", bytes("1"));
        f.client.put("b", bytes("22"));
        java.util.List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        MasterService real = f.master;
        MasterService counting = (MasterService) java.lang.reflect.Proxy.newProxyInstance(
                MasterService.class.getClassLoader(), new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        EmbeddedStoreClient reader = EmbeddedStoreClient.create(counting, f.client.transports().all(), "c2", "default",
                "local", f.clock);
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            var results = reader.getIntoBatch(java.util.Map.of("a", a.allocate(1), "b", a.allocate(2), "c", a.allocate(1)));
            assertEquals(2, results.stream().filter(r -> r.isOk()).count());
        }
        assertEquals(List.of("getReplicaListBatch"), calls);
        calls.clear();
        reader.lookupBatch(List.of("a", "b", "c"));
        assertEquals(List.of("lookupBatch"), calls);
    }

    @Test
    void aLeaseWithoutReplicasIsAnErrorNamingTheObject() {
        f = new ClientFixture(1 << 20);
        f.client.put("orphan", bytes("v"));
        MasterService real = f.master;
        MasterService noReplicas = (MasterService) java.lang.reflect.Proxy.newProxyInstance(
                MasterService.class.getClassLoader(), new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                    Object out = method.invoke(real, args);
                    return out instanceof ReadLease l
                            ? new ReadLease(l.sizeBytes(), l.checksum(), l.dataType(), List.of(), l.leaseExpiresAtMs()) : out;
                });
        EmbeddedStoreClient reader = EmbeddedStoreClient.create(noReplicas, List.of(new LocalTransport()), "c2", "default",
                "local", f.clock);
        StoreException e = assertThrows(StoreException.class, () -> reader.get("orphan"));
        assertEquals(ErrorCode.INVALID_REPLICA, e.errorCode());
        assertTrue(e.getMessage().contains("orphan"), e.getMessage());
    }

    @Test
    void aFailedWriteRevokesThePutSoNothingHalfWrittenIsReadable() {
        HookedTransport t = new HookedTransport() {
            @Override
            public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                if (batch.getFirst().op() == TransferOp.WRITE && batch.size() > 1) {
                    // the first replica lands, the second peer "vanishes"
                    inner.submit(batch.subList(0, 1));
                    return java.util.concurrent.CompletableFuture.completedFuture(
                            List.of(TransferStatus.done(batch.getFirst().length()), TransferStatus.failed("peer gone")));
                }
                return inner.submit(batch);
            }
        };
        f = new ClientFixture(t, 1 << 20, 1 << 20);
        assertError(ErrorCode.TRANSFER_FAIL,
                () -> f.client.put("k", bytes("data"), ReplicateConfig.builder().replicaCount(2).build()));
        assertFalse(f.client.exists("k"));
        assertEquals(0, f.master.stats().usedBytes());
        assertEquals(0, f.master.stats().processingPuts());
        assertEquals(List.of(new TransferStats("local", 1, 4, 1, 0, 0, 0, 0)), f.client.transferStats());
    }

    /**
     * A transfer no transport here can run is counted as failed under protocol "none": a put
     * whose second replica lies in a segment only tcp reaches, with no tcp transport here, fails
     * before any byte moves and counts one failed write there.
     */
    @Test
    void aTransferNoTransportHereCanRunCountsAsFailedUnderItsProtocol() {
        f = new ClientFixture(1 << 20);
        f.master.mountSegment(new SegmentDescriptor("far/segment-1", "far", 1 << 20,
                new SegmentEndpoint("tcp", "10.0.0.9:1", "far/segment-1")));
        assertEquals(List.of(), f.client.transferStats());
        assertError(ErrorCode.TRANSFER_FAIL, () -> f.client.put("k", bytes("data"),
                ReplicateConfig.builder().replicaCount(2).build()));
        f.client.put("near", bytes("12345678"), ReplicateConfig.builder().preferredSegments(List.of("c1/segment-1")).build());
        assertArrayEquals(bytes("12345678"), f.client.get("near"));
        assertEquals(List.of(new TransferStats("local", 1, 8, 0, 1, 8, 0, 0), new TransferStats("none", 0, 0, 1, 0, 0, 0, 0)),
                f.client.transferStats());
    }

    /**
     * A client whose n-th read (counted in {@code reads} from 1) outlives its lease where {@code
     * stalls} says so: the clock jumps past any lease while the transfer runs.
     */
    private ClientFixture clientWhoseReadsStall(AtomicInteger reads, java.util.function.IntPredicate stalls) {
        ClientFixture[] self = new ClientFixture[1];
        HookedTransport t = new HookedTransport() {
            @Override
            public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                if (batch.getFirst().op() == TransferOp.READ && stalls.test(reads.incrementAndGet())) {
                    self[0].clock.ms.addAndGet(10_001);
                }
                return inner.submit(batch);
            }
        };
        self[0] = new ClientFixture(t, 1 << 20);
        return self[0];
    }

    /** Every read outlives its lease: each attempt is dropped, and after the last the get fails. */
    @Test
    void aReadThatAlwaysOutlivesItsLeaseFailsWithLeaseExpired() {
        AtomicInteger reads = new AtomicInteger();
        f = clientWhoseReadsStall(reads, n -> true);
        f.client.put("k", bytes("data"));
        assertError(ErrorCode.LEASE_EXPIRED, () -> f.client.get("k"));
        assertEquals(EmbeddedStoreClient.READ_ATTEMPTS, reads.get());
    }

    /** A read stalled past its lease once (a GC pause) is made again under a fresh lease, for every kind of get. */
    @Test
    void aReadThatOutlivedItsLeaseOnceIsMadeAgainUnderAFreshOne() {
        AtomicInteger reads = new AtomicInteger();
        f = clientWhoseReadsStall(reads, n -> n % 2 == 1); // the first read of each get
        f.client.put("k", bytes("data"));
        assertArrayEquals(bytes("data"), f.client.get("k"));
        assertEquals(2, reads.get());
        MemorySegment into = MemorySegment.ofArray(new byte[4]);
        assertEquals(4, f.client.getInto("k", into));
        assertArrayEquals(bytes("data"), into.toArray(ValueLayout.JAVA_BYTE));
        byte[] ranged = new byte[2];
        assertEquals(2, f.client.getIntoRanges("k", List.of(new RangeCopy(1, 0, 2)), MemorySegment.ofArray(ranged)));
        assertArrayEquals(new byte[] {'a', 't'}, ranged);
        assertEquals(6, reads.get());
    }

    @Test
    void aWithdrawnSegmentFailsTheReadCleanly() {
        HookedTransport t = new HookedTransport();
        f = new ClientFixture(t, 1 << 20);
        f.client.put("k", bytes("data"));
        ReplicaLocation r = f.master.queryKey(ObjectKey.of("k")).orElseThrow().replicas().getFirst();
        t.inner.withdraw(r.segmentName());
        assertError(ErrorCode.TRANSFER_FAIL, () -> f.client.get("k"));
    }

    @Test
    void batchesReportEachKeyAndOneFailureSparesTheOthers() {
        f = new ClientFixture(1 << 20);
        Map<String, byte[]> values = new LinkedHashMap<>();
        values.put("a", bytes("1"));
        values.put("b", bytes("2"));
        f.client.put("b", bytes("existing"));
        List<OpResult<Void>> put = f.client.putBatch(values, ReplicateConfig.DEFAULT);
        assertTrue(put.get(0).isOk());
        assertEquals(ErrorCode.OBJECT_ALREADY_EXISTS, put.get(1).error());
        List<OpResult<byte[]>> got = f.client.getBatch(List.of("a", "missing", "b"));
        assertArrayEquals(bytes("1"), got.get(0).value());
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, got.get(1).error());
        assertArrayEquals(bytes("existing"), got.get(2).orThrow());
        assertEquals(List.of(true, false), f.client.existsBatch(List.of("a", "zz")).stream().map(OpResult::value).toList());
        f.clock.ms.addAndGet(20_000);
        List<OpResult<Void>> removed = f.client.removeBatch(List.of("a", "zz"), false);
        assertTrue(removed.get(0).isOk());
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, removed.get(1).error());
    }

    @Test
    void aBatchPutWritesWhatItCanAndRevokesTheRest() {
        HookedTransport t = new HookedTransport() {
            @Override
            public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                if (batch.getFirst().op() == TransferOp.WRITE && batch.getFirst().length() == 13) {
                    return java.util.concurrent.CompletableFuture.completedFuture(List.of(TransferStatus.failed("boom")));
                }
                return inner.submit(batch);
            }
        };
        f = new ClientFixture(t, 1 << 20);
        Map<String, byte[]> values = new LinkedHashMap<>();
        values.put("ok-1", bytes("fine"));
        values.put("bad key", bytes("x"));
        values.put("unlucky", new byte[13]);
        values.put("ok-2", bytes("also fine"));
        List<OpResult<Void>> r = f.client.putBatch(values, ReplicateConfig.DEFAULT);
        assertEquals(List.of(ErrorCode.OK, ErrorCode.INVALID_KEY, ErrorCode.TRANSFER_FAIL, ErrorCode.OK),
                r.stream().map(OpResult::error).toList());
        assertArrayEquals(bytes("also fine"), f.client.get("ok-2"));
        assertFalse(f.client.exists("unlucky"));
        assertEquals(List.of(new TransferStats("local", 2, 13, 1, 1, 9, 0, 0)), f.client.transferStats(),
                "the bad key never reached a transport");
        assertEquals(0, f.master.stats().processingPuts(), "the failed put was revoked");
        assertEquals(2, f.master.stats().objects());
        List<OpResult<byte[]>> got = f.client.getBatch(List.of("ok-1", "bad key", "unlucky"));
        assertEquals(List.of(ErrorCode.OK, ErrorCode.INVALID_KEY, ErrorCode.OBJECT_NOT_FOUND),
                got.stream().map(OpResult::error).toList());
    }

    @Test
    void badInputIsRefusedAndLosesNothing() {
        f = new ClientFixture(1 << 16);
        f.client.put("keep", bytes("safe"));
        assertError(ErrorCode.INVALID_KEY, () -> f.client.put("", bytes("x")));
        assertError(ErrorCode.INVALID_KEY, () -> f.client.put("x".repeat(ObjectKey.MAX_KEY_BYTES + 1), bytes("x")));
        assertError(ErrorCode.INVALID_KEY, () -> f.client.put("has space", bytes("x")));
        assertError(ErrorCode.INVALID_PARAMS, () -> f.client.put("empty", new byte[0]));
        assertError(ErrorCode.INVALID_PARAMS, () -> f.client.put("huge", new byte[(1 << 16) + 1]));
        assertError(ErrorCode.INVALID_PARAMS, () -> f.client.removeByRegex("(", false));
        assertError(ErrorCode.INVALID_PARAMS, () -> f.client.mountSegment(MemorySegment.ofArray(new byte[1024])));
        assertArrayEquals(bytes("safe"), f.client.get("keep"));
        assertEquals(1, f.master.stats().objects());
    }

    @Test
    void aClientTheMasterDeclaredDeadMountsItsSegmentsAgain() {
        f = new ClientFixture(1 << 20);
        f.client.put("k", bytes("data"));
        f.clock.ms.addAndGet(10_001);
        f.master.runHousekeeping();
        assertEquals(0, f.master.segments().size(), "silent past client_ttl");
        assertFalse(f.client.exists("k"), "its objects went whole");
        f.client.heartbeat();
        assertEquals(1, f.master.segments().size(), "alive after all: the segment is back");
        f.client.put("k2", bytes("again"));
        assertArrayEquals(bytes("again"), f.client.get("k2"));
    }

    @Test
    void unmountingASegmentTakesItsObjectsAlong() {
        f = new ClientFixture(1 << 20);
        f.client.put("k", bytes("data"));
        String seg = f.client.ownSegments().iterator().next();
        f.client.unmountSegment(seg);
        assertFalse(f.client.exists("k"));
        assertError(ErrorCode.SEGMENT_NOT_FOUND, () -> f.client.unmountSegment(seg));
        assertTrue(f.client.ownSegments().isEmpty());
    }
}
