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
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/** The same store behaviour over every transport: the client's segments are served by it. */
class TransportMatrixTest {
    private ClientFixture f;
    private Transport transport;

    static Stream<Named<Supplier<Transport>>> transports() {
        return Stream.of(Named.of("local", LocalTransport::new), Named.of("tcp", TransportMatrixTest::tcp),
                Named.of("shm", TransportMatrixTest::shm));
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
        transport.submit(List.of(new TransferRequest(TransferOp.WRITE, rogue, r.endpoint(), r.offset() + 10)))
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
}
