package org.mooncake.osgi.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * Several threads submit batches at once, each into its own range: every request completes with its
 * own bytes. The submitters issue on their own threads under the worker's lock while the worker
 * thread progresses and completes what stays in flight.
 */
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

    /**
     * Memory that is registered, not allocated by UCX: served by software RMA, so the requests the
     * submitters issue stay in flight and the worker thread completes them, while other submitters
     * issue theirs.
     */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void concurrentBatchesToRegisteredMemoryAllCompleteCorrectly(String tls) throws Exception {
        UcxRequired.ucx();
        try (Arena arena = Arena.ofShared();
                UcxTransport owner = new UcxTransport(UcxTransport.with(tls, 10_000, false));
                UcxTransport peer = new UcxTransport(UcxTransport.with(tls, 10_000, false));
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

    /**
     * The requester closes while several threads submit (platform and virtual threads): every
     * request completes or fails ("closed"), none hangs, and the process survives. Over shared
     * memory only: over tcp, closing with requests in flight aborts the process inside UCX 1.13
     * ("ucp_request.inl:346 Fatal: unexpected error: Endpoint timeout", README).
     */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "posix,self", "posix,self"})
    void closingWhileThreadsSubmitFailsOrCompletesEveryRequest(String tls) throws Exception {
        UcxRequired.ucx();
        try (Arena arena = Arena.ofShared();
                UcxTransport owner = new UcxTransport(UcxTransport.with(tls));
                ExecutorService pool = Executors.newFixedThreadPool(THREADS / 2);
                ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            SegmentEndpoint ep = owner.expose("s", owner.allocateSegment("s", THREADS * SLICE, arena));
            UcxTransport peer = new UcxTransport(UcxTransport.with(tls));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger completed = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            List<Future<String>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Callable<String> task = () -> {
                    try (Arena mine = Arena.ofShared()) {
                        MemorySegment m = mine.allocate(SLICE);
                        for (int i = 0; !stop.get() && i < 100_000; i++) {
                            TransferOp op = i % 2 == 0 ? TransferOp.WRITE : TransferOp.READ;
                            TransferStatus s = peer.submit(List.of(new TransferRequest(op, m, ep, thread * SLICE,
                                    i % 3 == 0))).toCompletableFuture().get(30, TimeUnit.SECONDS).getFirst();
                            if (s.completed()) {
                                completed.incrementAndGet();
                            } else if (!s.error().contains("closed")) {
                                return "thread " + thread + ": " + s.error();
                            } else {
                                refused.incrementAndGet();
                            }
                        }
                        return "ok";
                    }
                };
                results.add(thread % 2 == 0 ? pool.submit(task) : virtual.submit(task));
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (completed.get() < 200 && System.nanoTime() - until < 0) {
                LockSupport.parkNanos(1_000_000);
            }
            peer.close();
            int before = refused.get();
            long refusing = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (refused.get() < before + THREADS && System.nanoTime() - refusing < 0) { // submitting into the closed one
                LockSupport.parkNanos(1_000_000);
            }
            stop.set(true);
            for (Future<String> r : results) {
                assertEquals("ok", r.get(60, TimeUnit.SECONDS));
            }
            assertTrue(completed.get() > 0, "requests completed before the close");
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
