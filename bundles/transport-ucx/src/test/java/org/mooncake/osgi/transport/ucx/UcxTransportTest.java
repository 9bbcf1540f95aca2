package org.mooncake.osgi.transport.ucx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * Two transports in this JVM, as two processes on one host would have them: "owner" exposes a
 * segment, "peer" reads and writes it. Every test runs over shared memory (posix,self) and over
 * TCP, and checks that the endpoint negotiated what was configured.
 */
class UcxTransportTest {
    static final long SEGMENT = 16 << 20;
    private final Arena arena = Arena.ofShared();
    private UcxTransport owner;
    private UcxTransport peer;

    private SegmentEndpoint start(String tls, long timeoutMs, boolean allocate) {
        UcxRequired.ucx();
        owner = new UcxTransport(UcxTransport.with(tls, timeoutMs, allocate));
        peer = new UcxTransport(UcxTransport.with(tls, timeoutMs, allocate));
        return owner.expose("s", owner.allocateSegment("s", SEGMENT, arena));
    }

    @AfterEach
    void close() {
        if (peer != null) {
            peer.close();
        }
        if (owner != null) {
            owner.close();
        }
        arena.close();
    }

    private TransferStatus one(TransferRequest r) {
        return peer.submit(List.of(r)).toCompletableFuture().join().getFirst();
    }

    private MemorySegment random(long size, long seed) {
        MemorySegment m = arena.allocate(size, 64);
        byte[] b = new byte[(int) size];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, m, 0, size);
        return m;
    }

    /** The endpoint's lanes all use the transport configured ("posix" or "tcp"). */
    private void negotiated(String tls) {
        String expected = tls.startsWith("posix") ? "posix/" : "tcp/";
        var lanes = peer.negotiated().values().stream().flatMap(List::stream).toList();
        assertFalse(lanes.isEmpty(), "an endpoint is open");
        assertTrue(lanes.stream().allMatch(l -> l.startsWith(expected)), tls + " negotiated " + lanes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void roundTripsOfEverySizeArriveIntactWithTheirChecksums(String tls) {
        SegmentEndpoint ep = start(tls, 10_000, true);
        long seed = 1;
        for (long size : new long[] {1, 4096, 1 << 20, (5 << 20) + 7}) {
            MemorySegment data = random(size, seed++);
            TransferStatus w = one(new TransferRequest(TransferOp.WRITE, data, ep, 123, true));
            assertTrue(w.completed(), w.error());
            assertEquals(size, w.bytes());
            assertEquals(Checksums.of(data), w.checksum().getAsLong());
            MemorySegment back = arena.allocate(size, 64);
            TransferStatus r = one(new TransferRequest(TransferOp.READ, back, ep, 123, true));
            assertTrue(r.completed(), r.error());
            assertEquals(-1, back.mismatch(data), size + " bytes read back");
            assertEquals(Checksums.of(data), r.checksum().getAsLong());
            TransferStatus chunked = one(new TransferRequest(TransferOp.READ, back, ep, 123, true, 1 << 20));
            assertArrayEquals(Checksums.ofChunks(data, 1 << 20), chunked.chunkChecksums());
        }
        negotiated(tls);
    }

    /** Heap memory and memory of a confined arena go through the same path (bounced, or on the caller's thread). */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void heapAndConfinedLocalMemoryWork(String tls) {
        SegmentEndpoint ep = start(tls, 10_000, true);
        byte[] data = new byte[300_001];
        new Random(7).nextBytes(data);
        assertTrue(one(new TransferRequest(TransferOp.WRITE, MemorySegment.ofArray(data), ep, 9)).completed());
        byte[] back = new byte[data.length];
        assertTrue(one(new TransferRequest(TransferOp.READ, MemorySegment.ofArray(back), ep, 9)).completed());
        assertArrayEquals(data, back);
        try (Arena mine = Arena.ofConfined()) {
            MemorySegment local = mine.allocate(data.length);
            TransferStatus s = one(new TransferRequest(TransferOp.READ, local, ep, 9, true));
            assertTrue(s.completed(), s.error());
            assertEquals(-1, local.mismatch(MemorySegment.ofArray(data)));
            assertEquals(Checksums.of(MemorySegment.ofArray(data)), s.checksum().getAsLong());
        }
    }

    /** Memory the owner allocated itself is registered, and served by software RMA (the owner's worker copies). */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void registeredMemoryIsServedToo(String tls) {
        start(tls, 10_000, false);
        MemorySegment mine = arena.allocate(8 << 20, 4096);
        SegmentEndpoint ep = owner.expose("mine", mine);
        MemorySegment data = random((3 << 20) + 5, 11);
        assertTrue(one(new TransferRequest(TransferOp.WRITE, data, ep, 77)).completed());
        assertEquals(-1, mine.asSlice(77, data.byteSize()).mismatch(data));
        MemorySegment back = arena.allocate(data.byteSize());
        assertTrue(one(new TransferRequest(TransferOp.READ, back, ep, 77)).completed());
        assertEquals(-1, back.mismatch(data));
        negotiated(tls);
        // ucp_mem_unmap of the registration does not stop UCX's software RMA (it copies to any
        // address a request names): the data get still succeeds, and only the control word fails it
        owner.withdraw("mine");
        TransferStatus after = one(new TransferRequest(TransferOp.READ, back, ep, 77));
        assertFalse(after.completed());
        assertTrue(after.error().contains("withdrawn"), after.error());
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void aBatchReportsEachRequestAndOneFailureSparesTheOthers(String tls) {
        SegmentEndpoint ep = start(tls, 10_000, true);
        MemorySegment a = random(100, 3);
        List<TransferStatus> s = peer.submit(List.of(
                new TransferRequest(TransferOp.WRITE, a, ep, 0),
                new TransferRequest(TransferOp.READ, arena.allocate(100), ep, SEGMENT - 50),
                new TransferRequest(TransferOp.WRITE, a, new SegmentEndpoint("ucx", "v1.garbage", "x"), 0),
                new TransferRequest(TransferOp.READ, arena.allocate(100), ep, 0))).toCompletableFuture().join();
        assertTrue(s.get(0).completed(), s.get(0).error());
        assertFalse(s.get(1).completed());
        assertTrue(s.get(1).error().contains("outside segment"), s.get(1).error());
        assertFalse(s.get(2).completed());
        assertTrue(s.get(2).error().contains("not a ucx v1 address"), s.get(2).error());
        assertTrue(s.get(3).completed(), s.get(3).error());
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void aWithdrawnSegmentFailsRequestsAndAReexposedOneWorks(String tls) {
        start(tls, 10_000, true);
        MemorySegment memory = owner.allocateSegment("w", 1 << 20, arena);
        SegmentEndpoint ep = owner.expose("w", memory);
        MemorySegment data = random(4096, 5);
        assertTrue(one(new TransferRequest(TransferOp.WRITE, data, ep, 0)).completed());
        owner.withdraw("w");
        TransferStatus r = one(new TransferRequest(TransferOp.READ, arena.allocate(4096), ep, 0));
        assertFalse(r.completed());
        assertTrue(r.error().contains("withdrawn"), r.error());
        TransferStatus w = one(new TransferRequest(TransferOp.WRITE, random(4096, 6), ep, 0));
        assertFalse(w.completed());
        assertTrue(w.error().contains("withdrawn"), w.error());
        SegmentEndpoint again = owner.expose("w", memory);
        MemorySegment back = arena.allocate(4096);
        assertTrue(one(new TransferRequest(TransferOp.READ, back, again, 0)).completed());
        assertFalse(one(new TransferRequest(TransferOp.READ, back, ep, 0)).completed(), "the old address stays refused");
    }

    /**
     * A closed owner fails requests with a status within the timeout, never an exception or a hang.
     * Over posix this once crashed the JVM about one run in six: the first request after the close
     * found the control word zeroed and dropped the segment's keys, the second unpacked them again,
     * UCX 1.13 failed to attach the owner's freed control page and, on that error path, released a
     * stale key handle (a stray munmap and a double free). Now an address found withdrawn is refused
     * without unpacking again, and keys naming shared memory that is gone never reach UCX
     * ({@link SharedMemoryKeys}).
     */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void aClosedOwnerFailsRequestsWithinTheTimeout(String tls) {
        SegmentEndpoint ep = start(tls, 2_000, true);
        assertTrue(one(new TransferRequest(TransferOp.READ, arena.allocate(4096), ep, 0)).completed());
        owner.close();
        long t0 = System.nanoTime();
        for (TransferOp op : TransferOp.values()) {
            TransferStatus s = one(new TransferRequest(op, arena.allocate(1 << 20), ep, 0));
            assertFalse(s.completed(), op + " after close");
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 2 * 2_000 + 1_000, "failed in " + ms + " ms");
        owner = null;
    }

    /**
     * Shared memory the owner freed (its arena closed, the grace period over) fails the requests of
     * a peer that never unpacked its keys, before UCX sees them: UCX 1.13's failing
     * {@code ucp_ep_rkey_unpack} released a garbage handle and crashed the JVM in every run
     * ({@link SharedMemoryKeys}). Over posix only: over tcp the keys name no shared memory.
     */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self"})
    void freedSharedMemoryFailsTheRequestsOfANewPeer(String tls) throws InterruptedException {
        UcxRequired.ucx();
        owner = new UcxTransport(UcxTransport.with(tls, 100, true));
        SegmentEndpoint ep;
        try (Arena segment = Arena.ofShared()) {
            ep = owner.expose("f", owner.allocateSegment("f", 1 << 20, segment));
        }
        UcxAddress freed = UcxAddress.decode(ep.address());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (SharedMemoryKeys.missing(freed.rkey(), freed.base()) == null) { // the grace period of one request timeout
            assertTrue(System.nanoTime() < deadline, "the owner never unmapped the segment it freed");
            LockSupport.parkNanos(1_000_000);
        }
        peer = new UcxTransport(UcxTransport.with(tls, 2_000, true));
        TransferStatus first = one(new TransferRequest(TransferOp.READ, arena.allocate(4096), ep, 0));
        assertFalse(first.completed());
        assertTrue(first.error().contains("memory is gone"), first.error());
        for (TransferOp op : TransferOp.values()) { // refused from then on, without asking UCX
            TransferStatus s = one(new TransferRequest(op, arena.allocate(4096), ep, 0));
            assertFalse(s.completed(), op + " of freed memory");
            assertTrue(s.error().contains("withdrawn (or its memory freed)"), s.error());
        }
    }

    /** The peer's own transport closed: its requests fail at once. */
    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void aClosedTransportFailsItsRequests(String tls) {
        SegmentEndpoint ep = start(tls, 10_000, true);
        peer.close();
        TransferStatus s = one(new TransferRequest(TransferOp.READ, arena.allocate(10), ep, 0));
        assertFalse(s.completed());
        assertTrue(s.error().contains("closed"), s.error());
        peer = null;
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void costAndReachFollowWhatIsConfigured(String tls) {
        SegmentEndpoint ep = start(tls, 10_000, true);
        assertTrue(peer.canReach(ep));
        int expected = tls.startsWith("posix") ? Transport.COST_SHARED_MEMORY + 10 : Transport.COST_NETWORK + 50;
        assertEquals(expected, peer.cost(ep));
        assertFalse(peer.canReach(new SegmentEndpoint("ucx", "v1.nonsense", "s")));
        assertFalse(peer.canReach(new SegmentEndpoint("tcp", ep.address(), "s")));
        UcxAddress a = UcxAddress.decode(ep.address());
        UcxAddress elsewhere = new UcxAddress("another-host", a.worker(), a.base(), a.size(), a.rkey(), a.control(),
                a.controlRkey(), a.token());
        SegmentEndpoint far = new SegmentEndpoint("ucx", elsewhere.encode(), "s");
        assertEquals(!tls.startsWith("posix"), peer.canReach(far), "shared memory reaches this host only");
    }

    @ParameterizedTest
    @ValueSource(strings = {"posix,self", "tcp"})
    void metricsCountPerUcxTransport(String tls) {
        SegmentEndpoint ep = start(tls, 10_000, true);
        assertTrue(one(new TransferRequest(TransferOp.READ, arena.allocate(1000), ep, 0)).completed());
        assertTrue(one(new TransferRequest(TransferOp.WRITE, arena.allocate(500), ep, 0)).completed());
        var read = peer.metrics().stream().filter(m -> m.name().equals("mooncake_ucx_read_bytes_total")).findFirst()
                .orElseThrow();
        String tl = tls.startsWith("posix") ? "posix" : "tcp";
        assertEquals(1000, read.samples().stream().filter(s -> s.labels().get("ucx_transport").equals(tl))
                .mapToDouble(s -> s.value()).sum());
        assertTrue(owner.metrics().stream().anyMatch(m -> m.name().equals("mooncake_ucx_exposed_segments")
                && m.samples().getFirst().value() == 1));
    }
}
