package org.mooncake.osgi.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/** Several threads submit batches at once, each into its own range: every request completes with its own bytes. */
class ConcurrentSubmitTest {
    private static final int THREADS = 8;
    private static final int ROUNDS = 25;
    private static final long SLICE = 64 << 10;

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp", "posix,self", "tcp", "posix,self", "tcp"})
    void concurrentBatchesFromSeveralThreadsAllCompleteCorrectly(String tls) throws Exception {
        UcxRequired.ucx();
        try (Arena arena = Arena.ofShared();
                UcxTransport owner = new UcxTransport(UcxTransport.with(tls));
                UcxTransport peer = new UcxTransport(UcxTransport.with(tls));
                ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
            SegmentEndpoint ep = owner.expose("s", owner.allocateSegment("s", THREADS * 2 * SLICE, arena));
            List<CompletableFuture<String>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                results.add(CompletableFuture.supplyAsync(() -> run(peer, ep, thread), pool));
            }
            for (CompletableFuture<String> r : results) {
                assertEquals("ok", r.get());
            }
        }
    }

    private static String run(UcxTransport peer, SegmentEndpoint ep, int thread) {
        try (Arena mine = Arena.ofShared()) {
            MemorySegment a = mine.allocate(SLICE);
            MemorySegment b = mine.allocate(SLICE);
            MemorySegment back = mine.allocate(2 * SLICE);
            long base = thread * 2 * SLICE;
            for (int round = 0; round < ROUNDS; round++) {
                a.fill((byte) (thread * 31 + round));
                b.fill((byte) (thread * 17 + round + 1));
                List<TransferStatus> w = peer.submit(List.of(new TransferRequest(TransferOp.WRITE, a, ep, base, true),
                        new TransferRequest(TransferOp.WRITE, b, ep, base + SLICE))).toCompletableFuture().join();
                assertTrue(w.get(0).completed() && w.get(1).completed(), w.toString());
                assertEquals(Checksums.of(a), w.get(0).checksum().getAsLong());
                TransferStatus r = peer.submit(List.of(new TransferRequest(TransferOp.READ, back, ep, base, true)))
                        .toCompletableFuture().join().getFirst();
                assertTrue(r.completed(), r.error());
                assertEquals(-1, back.asSlice(0, SLICE).mismatch(a), "thread " + thread + " round " + round);
                assertEquals(-1, back.asSlice(SLICE, SLICE).mismatch(b), "thread " + thread + " round " + round);
                assertEquals((byte) (thread * 17 + round + 1), back.get(ValueLayout.JAVA_BYTE, 2 * SLICE - 1));
            }
            return "ok";
        }
    }
}
