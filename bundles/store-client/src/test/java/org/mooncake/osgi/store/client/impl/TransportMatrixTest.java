package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ObjectState;
import org.mooncake.osgi.store.api.RangeCopy;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;
import org.mooncake.osgi.transport.ucx.UcxTransport;

/** The same store behaviour over every transport: the client's segments are served by it. */
class TransportMatrixTest {
    private ClientFixture f;
    private Transport transport;

    static Stream<Named<Supplier<Transport>>> transports() {
        return Stream.concat(Stream.of(Named.of("local", LocalTransport::new), Named.of("tcp", TransportMatrixTest::tcp),
                Named.of("shm", TransportMatrixTest::shm)), ucx());
    }

    /**
     * ucx over shared memory and over TCP where libucp loads; where it does not, no ucx rows, unless
     * {@code mooncake.ucx.required} (CI) asks for them: then they run and fail.
     */
    private static Stream<Named<Supplier<Transport>>> ucx() {
        if (!UcxTransport.available() && !Boolean.getBoolean("mooncake.ucx.required")) {
            return Stream.empty();
        }
        return Stream.of(Named.of("ucx posix", () -> new UcxTransport(UcxTransport.with("posix,self"))),
                Named.of("ucx tcp", () -> new UcxTransport(UcxTransport.with("tcp"))));
    }

    private static Transport tcp() {
        try {
            return new TcpTransport(TcpTransport.loopback(3, 1 << 20, 10_000));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Transport shm() {
        return new ShmTransport(ShmTransport.in("/dev/shm"));
    }

    private void start(Supplier<Transport> t, long... segments) {
        transport = t.get();
        f = new ClientFixture(transport, segments);
    }

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            f.client.unmountAll();
            f.close();
        }
        if (transport instanceof AutoCloseable c) {
            c.close();
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void objectsOfEverySizeRoundTripThroughCopyAndZeroCopyCalls(Supplier<Transport> t) {
        start(t, 16 << 20, 16 << 20);
        Random rnd = new Random(5);
        for (int size : new int[] {1, 4096, 1 << 20, 5 * (1 << 20) + 7}) {
            byte[] v = new byte[size];
            rnd.nextBytes(v);
            f.client.put("k" + size, v, ReplicateConfig.builder().replicaCount(2).build());
            assertArrayEquals(v, f.client.get("k" + size));
            try (Arena a = Arena.ofConfined()) {
                MemorySegment dst = a.allocate(size);
                assertEquals(size, f.client.getInto("k" + size, dst));
                assertEquals(-1, dst.mismatch(MemorySegment.ofArray(v)));
            }
        }
        f.client.upsert("k1", new byte[] {9}, ReplicateConfig.DEFAULT);
        assertArrayEquals(new byte[] {9}, f.client.get("k1"));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void bytesChangedBehindTheStoresBackAreAnErrorNotData(Supplier<Transport> t) {
        start(t, 1 << 20);
        f.client.put("k", new byte[1000]);
        ReplicaLocation r = f.master.queryKey(ObjectKey.of("k")).orElseThrow().replicas().getFirst();
        MemorySegment rogue = MemorySegment.ofArray(new byte[] {1, 2, 3});
        transport.submit(List.of(new TransferRequest(TransferOp.WRITE, rogue, r.endpoint(), r.offset() + 10, false, 0,
                f.grantFor(r, true))))
                .toCompletableFuture().join();
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, assertThrows(StoreException.class, () -> f.client.get("k")).errorCode());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aSegmentThatStopsBeingServedFailsReadsAndWritesCleanly(Supplier<Transport> t) {
        start(t, 1 << 20);
        f.client.put("k", new byte[1000]);
        String segment = f.client.ownSegments().iterator().next();
        transport.withdraw(segment);
        assertEquals(ErrorCode.TRANSFER_FAIL, assertThrows(StoreException.class, () -> f.client.get("k")).errorCode());
        assertEquals(ErrorCode.TRANSFER_FAIL,
                assertThrows(StoreException.class, () -> f.client.put("new", new byte[100])).errorCode());
        assertFalse(f.client.exists("new"), "the failed put was revoked");
        assertEquals(0, f.master.stats().processingPuts());
    }

    private long bytesRead() {
        return f.client.transferStats().stream().filter(st -> st.protocol().equals(transport.protocol()))
                .mapToLong(st -> st.bytesRead()).sum();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aRangedReadMovesAndVerifiesOnlyTheChunksItTouches(Supplier<Transport> t) {
        start(t, 4 << 20);
        f.client.checksumChunkBytes(64 << 10);
        byte[] v = new byte[(1 << 20) + 304];
        new Random(9).nextBytes(v);
        f.client.put("tensor", v);
        assertEquals(17, f.master.getReplicaList(ObjectKey.of("tensor")).chunks().count());
        assertArrayEquals(v, f.client.get("tensor"));

        try (Arena a = Arena.ofConfined()) {
            MemorySegment header = a.allocate(304);
            long before = bytesRead();
            assertEquals(304, f.client.getIntoRanges("tensor", List.of(new RangeCopy(0, 0, 304)), header));
            assertEquals(64 << 10, bytesRead() - before, "a header read moves its chunk, not the payload");
            assertEquals(-1, header.mismatch(MemorySegment.ofArray(v).asSlice(0, 304)));

            // two pieces in chunks 3 and 4 (one run) and one in chunk 15 and the short last one
            MemorySegment pieces = a.allocate(3000);
            before = bytesRead();
            f.client.getIntoRanges("tensor", List.of(new RangeCopy((4 << 16) - 500, 0, 1000),
                    new RangeCopy((3 << 16) + 5, 1000, 1000), new RangeCopy(v.length - 1000, 2000, 1000)), pieces);
            assertEquals((3 << 16) + 304, bytesRead() - before);
            assertEquals(-1, pieces.asSlice(0, 1000).mismatch(MemorySegment.ofArray(v).asSlice((4 << 16) - 500, 1000)));
            assertEquals(-1, pieces.asSlice(1000, 1000).mismatch(MemorySegment.ofArray(v).asSlice((3 << 16) + 5, 1000)));
            assertEquals(-1, pieces.asSlice(2000, 1000).mismatch(MemorySegment.ofArray(v).asSlice(v.length - 1000, 1000)));
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aCorruptChunkFailsTheReadsThatTouchItAndNoOther(Supplier<Transport> t) {
        start(t, 4 << 20);
        byte[] v = new byte[1 << 20];
        new Random(11).nextBytes(v);
        f.client.put("tensor", v);
        ReplicaLocation r = f.master.queryKey(ObjectKey.of("tensor")).orElseThrow().replicas().getFirst();
        transport.submit(List.of(new TransferRequest(TransferOp.WRITE, MemorySegment.ofArray(new byte[] {42}),
                r.endpoint(), r.offset() + (5 << 16) + 7, false, 0, f.grantFor(r, true)))).toCompletableFuture().join();

        try (Arena a = Arena.ofConfined()) {
            MemorySegment target = a.allocate(100);
            assertEquals(100, f.client.getIntoRanges("tensor", List.of(new RangeCopy(0, 0, 100)), target));
            target.fill((byte) 0x5a);
            StoreException e = assertThrows(StoreException.class,
                    () -> f.client.getIntoRanges("tensor", List.of(new RangeCopy((5 << 16) + 50, 0, 100)), target));
            assertEquals(ErrorCode.CHECKSUM_MISMATCH, e.errorCode());
            for (int i = 0; i < 100; i++) {
                assertEquals((byte) 0x5a, target.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i),
                        "nothing of a corrupt chunk reaches the target");
            }
        }
        assertEquals(ErrorCode.CHECKSUM_MISMATCH, assertThrows(StoreException.class, () -> f.client.get("tensor")).errorCode());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void anyMemorySegmentCanBePutAndReadInto(Supplier<Transport> t) {
        start(t, 4 << 20);
        float[] hidden = new float[70_000]; // 280,000 bytes: several chunks
        for (int i = 0; i < hidden.length; i++) {
            hidden[i] = i * 0.25f - 7;
        }
        f.client.putFrom("floats", MemorySegment.ofArray(hidden), ReplicateConfig.DEFAULT);
        float[] back = new float[hidden.length];
        assertEquals(hidden.length * 4L, f.client.getInto("floats", MemorySegment.ofArray(back)));
        assertArrayEquals(hidden, back);
        long[] longs = new long[4];
        f.client.getIntoRanges("floats", List.of(new RangeCopy(4000, 0, 32)), MemorySegment.ofArray(longs));
        assertEquals(MemorySegment.ofArray(hidden).asSlice(4000, 32).toArray(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED)[3],
                longs[3]);
    }

    @ParameterizedTest
    @MethodSource("transports")
    void batchReadsAndLookUps(Supplier<Transport> t) {
        start(t, 4 << 20);
        f.client.put("a", new byte[] {1, 2, 3});
        f.client.put("b", new byte[200_000]);
        f.master.putStart("c9", ObjectKey.of("writing"), 10, ReplicateConfig.DEFAULT, false);
        try (Arena a = Arena.ofConfined()) {
            var results = f.client.getIntoBatch(new java.util.LinkedHashMap<>(java.util.Map.of("a", a.allocate(3),
                    "b", a.allocate(200_000), "missing", a.allocate(1))));
            java.util.Map<String, org.mooncake.osgi.store.api.OpResult<Long>> byKey = new java.util.HashMap<>();
            results.forEach(r -> byKey.put(r.key(), r));
            assertEquals(3L, byKey.get("a").value());
            assertEquals(200_000L, byKey.get("b").value());
            assertEquals(ErrorCode.OBJECT_NOT_FOUND, byKey.get("missing").error());
        }
        var states = f.client.lookupBatch(List.of("a", "writing", "absent", "bad key"));
        assertEquals(List.of(ObjectState.READABLE, ObjectState.WRITING, ObjectState.ABSENT),
                states.subList(0, 3).stream().map(org.mooncake.osgi.store.api.OpResult::value).toList());
        assertEquals(ErrorCode.INVALID_KEY, states.get(3).error());
    }
}
