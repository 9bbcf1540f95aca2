package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.mooncake.osgi.device.testing.HostBackedDeviceMemory;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MemoryKindStats;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * Payloads in device memory (a simulated device: host memory behind addresses Java cannot
 * dereference) put and read through the client's host staging, over every transport; and segments
 * whose bytes live in device memory, served by the local transport.
 */
class DeviceMemoryClientTest {
    /** Small, so that the larger objects here travel in several pieces. */
    private static final long STAGING = 1 << 20;

    private final HostBackedDeviceMemory device = new HostBackedDeviceMemory();
    private final Arena arena = Arena.ofShared();
    private final List<DeviceBuffer> allocated = new ArrayList<>();
    private ClientFixture f;
    private Transport transport;

    static Stream<Named<Supplier<Transport>>> transports() {
        return Stream.of(Named.of("local", LocalTransport::new), Named.of("tcp", DeviceMemoryClientTest::tcp),
                Named.of("shm", () -> new ShmTransport(ShmTransport.in("/dev/shm"))));
    }

    static Transport tcp() {
        try {
            return new TcpTransport(TcpTransport.loopback(3, 1 << 20, 10_000));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void start(Transport t, long... segments) {
        transport = t;
        f = new ClientFixture(t, segments);
        f.client.bindDeviceMemory(device);
        f.client.deviceStaging(STAGING, 2);
    }

    @AfterEach
    void stop() throws Exception {
        if (f != null) {
            f.client.unmountAll();
            f.client.closeDeviceStaging();
            f.close();
        }
        if (transport instanceof AutoCloseable c) {
            c.close();
        }
        allocated.forEach(device::free);
        device.close();
        arena.close();
    }

    private DeviceBuffer onDevice(long size, long seed) {
        DeviceBuffer b = allocate(size);
        device.copyFromHost(random(size, seed), b);
        return b;
    }

    private DeviceBuffer allocate(long size) {
        DeviceBuffer b = device.allocate(0, Math.max(size, 1));
        synchronized (allocated) {
            allocated.add(b);
        }
        return b.slice(0, size);
    }

    private MemorySegment random(long size, long seed) {
        MemorySegment s = arena.allocate(Math.max(size, 1)).asSlice(0, size);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (long i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        return s;
    }

    /** The device buffer's bytes, as the device memory copies them to the host. */
    private MemorySegment read(DeviceBuffer b) {
        MemorySegment host = arena.allocate(Math.max(b.byteSize(), 1)).asSlice(0, b.byteSize());
        device.copyToHost(b, host);
        return host;
    }

    private static void assertSameBytes(MemorySegment expected, MemorySegment actual) {
        assertEquals(expected.byteSize(), actual.byteSize());
        long at = expected.mismatch(actual);
        assertEquals(-1, at, "first differing byte at " + at);
    }

    private static void assertError(ErrorCode expected, Executable call) {
        StoreException e = assertThrows(StoreException.class, call);
        assertEquals(expected, e.errorCode(), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("transports")
    void devicePayloadsOfEverySizeRoundTripThroughTheStagingBuffer(Supplier<Transport> t) {
        start(t.get(), 16 << 20, 16 << 20);
        long[] sizes = {1, 4096, 1 << 20, 3 * STAGING + 5};
        for (int i = 0; i < sizes.length; i++) {
            long size = sizes[i];
            String key = "tensor-" + size;
            DeviceBuffer source = onDevice(size, i);
            long copiesDown = device.copiesToHost();
            f.client.putFromDevice(key, source, ReplicateConfig.builder().replicaCount(2).build());
            long pieces = (size + STAGING - 1) / STAGING;
            assertEquals(pieces, device.copiesToHost() - copiesDown, "moved down in pieces of the staging buffer");

            DeviceBuffer target = allocate(size + 100);
            device.copyFromHost(random(size + 100, 99), target);
            MemorySegment untouched = read(target).asSlice(size);
            long copiesUp = device.copiesFromHost();
            assertEquals(size, f.client.getIntoDevice(key, target));
            assertEquals(pieces, device.copiesFromHost() - copiesUp);
            MemorySegment back = read(target);
            assertSameBytes(random(size, i), back.asSlice(0, size));
            assertSameBytes(untouched, back.asSlice(size));

            // the object is the one a host put of the same bytes makes: same bytes, same checksum
            assertSameBytes(random(size, i), MemorySegment.ofArray(f.client.get(key)));
            f.client.putFrom(key + "-host", random(size, i), ReplicateConfig.DEFAULT);
            assertEquals(f.master.getReplicaList(ObjectKey.of(key + "-host")).checksum(),
                    f.master.getReplicaList(ObjectKey.of(key)).checksum());
            // and a host put is read into device memory as well
            DeviceBuffer again = allocate(size);
            assertEquals(size, f.client.getIntoDevice(key + "-host", again));
            assertSameBytes(random(size, i), read(again));
        }
        assertError(ErrorCode.BUFFER_TOO_SMALL, () -> f.client.getIntoDevice("tensor-4096", allocate(4095)));
        f.client.upsertFromDevice("tensor-1", onDevice(5000, 7), ReplicateConfig.DEFAULT);
        DeviceBuffer target = allocate(5000);
        assertEquals(5000, f.client.getIntoDevice("tensor-1", target));
        assertSameBytes(random(5000, 7), read(target));
        assertTrue(f.client.registeredBuffers() <= 2, "at most device.staging.buffers staging buffers");
        assertEquals(0, f.master.stats().processingPuts());
    }

    /**
     * A byte of a replica rots in its segment: the get into device memory fails with
     * CHECKSUM_MISMATCH, checked on the host staging copy before anything is copied up; of an
     * object moved in pieces, the pieces before the bad one arrived, nothing from it on.
     */
    @ParameterizedTest
    @MethodSource("transports")
    void aCorruptReplicaNeverReachesTheDevice(Supplier<Transport> t) {
        start(t.get(), 16 << 20);
        long size = 3 * STAGING + 5;
        f.client.putFromDevice("big", onDevice(size, 1), ReplicateConfig.DEFAULT);
        f.client.putFromDevice("small", onDevice(1000, 2), ReplicateConfig.DEFAULT);
        rot("big", 2 * STAGING + 77);
        rot("small", 10);

        DeviceBuffer target = allocate(size);
        device.copyFromHost(random(size, 42), target);
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.getIntoDevice("big", target));
        MemorySegment after = read(target);
        assertSameBytes(random(size, 1).asSlice(0, 2 * STAGING), after.asSlice(0, 2 * STAGING));
        assertSameBytes(random(size, 42).asSlice(2 * STAGING), after.asSlice(2 * STAGING));

        DeviceBuffer small = allocate(1000);
        device.copyFromHost(random(1000, 43), small);
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.getIntoDevice("small", small));
        assertSameBytes(random(1000, 43), read(small));
        assertEquals(2, f.client.transferStats().getFirst().checksumMismatches());
    }

    private void rot(String key, long at) {
        ReplicaLocation r = f.master.queryKey(ObjectKey.of(key)).orElseThrow().replicas().getFirst();
        MemorySegment b = arena.allocate(1);
        transport.submit(List.of(new TransferRequest(TransferOp.READ, b, r.endpoint(), r.offset() + at, false, 0,
                f.grantFor(r, false)))).toCompletableFuture().join();
        b.set(ValueLayout.JAVA_BYTE, 0, (byte) ~b.get(ValueLayout.JAVA_BYTE, 0));
        transport.submit(List.of(new TransferRequest(TransferOp.WRITE, b, r.endpoint(), r.offset() + at, false, 0,
                f.grantFor(r, true)))).toCompletableFuture().join();
    }

    /**
     * A transfer that corrupts what it writes (and reports no checksum): the checksum recorded is
     * the host staging copy's, computed by the client, so the read that follows catches it.
     */
    @Test
    void aWriteCorruptedInFlightIsCaughtByTheChecksumOfTheStagingCopy() {
        Transport flipping = new HookedTransport() {
            @Override
            public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
                List<TransferRequest> sent = new ArrayList<>();
                for (TransferRequest r : batch) {
                    if (r.op() == TransferOp.WRITE) {
                        MemorySegment copy = Arena.ofAuto().allocate(r.length());
                        copy.copyFrom(r.local());
                        copy.set(ValueLayout.JAVA_BYTE, 0, (byte) ~copy.get(ValueLayout.JAVA_BYTE, 0));
                        r = new TransferRequest(r.op(), copy, r.remote(), r.remoteOffset()); // no checksum asked
                    }
                    sent.add(r);
                }
                return inner.submit(sent);
            }
        };
        start(flipping, 16 << 20);
        f.client.putFromDevice("k", onDevice(200_000, 3), ReplicateConfig.DEFAULT);
        f.client.putFromDevice("one", onDevice(100, 4), ReplicateConfig.DEFAULT);
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.getIntoDevice("k", allocate(200_000)));
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.getIntoDevice("one", allocate(100)));
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("one"));
    }

    @Test
    void withoutADeviceMemoryServiceEveryDeviceCallSaysWhatProvidesOne() {
        start(new LocalTransport(), 4 << 20);
        f.client.unbindDeviceMemory(device);
        DeviceBuffer b = onDevice(100, 1);
        for (Executable call : List.<Executable>of(() -> f.client.putFromDevice("k", b, ReplicateConfig.DEFAULT),
                () -> f.client.upsertFromDevice("k", b, ReplicateConfig.DEFAULT), () -> f.client.getIntoDevice("k", b),
                () -> f.client.registerDeviceBuffer(b))) {
            StoreException e = assertThrows(StoreException.class, call);
            assertEquals(ErrorCode.INVALID_PARAMS, e.errorCode());
            assertTrue(e.getMessage().contains("no DeviceMemory service for CUDA_DEVICE memory is bound")
                    && e.getMessage().contains("org.mooncake.osgi.device.cuda")
                    && e.getMessage().contains("NVIDIA driver"), e.getMessage());
        }
        assertEquals(0, f.master.stats().processingPuts(), "no put was started");
        assertTrue(f.master.queryKey(ObjectKey.of("k")).isEmpty());

        f.client.bindDeviceMemory(device);
        f.client.registerDeviceBuffer(b);
        assertEquals(java.util.Set.of(b), f.client.registeredDeviceBuffers());
        f.client.putFromDevice("k", b, ReplicateConfig.DEFAULT);
        f.client.unregisterDeviceBuffer(b);
        assertTrue(f.client.registeredDeviceBuffers().isEmpty());
        assertError(ErrorCode.INVALID_PARAMS, () -> f.client.registerDeviceBuffer(new DeviceBuffer(MemoryKind.CUDA_DEVICE, 3,
                b.address(), 10)));
        assertError(ErrorCode.INVALID_PARAMS, () -> f.client.putFromDevice("h", new DeviceBuffer(MemoryKind.HOST, 0, 0, 10),
                ReplicateConfig.DEFAULT));
    }

    /** A device copy that fails fails the put (revoked, nothing readable) or the get, as TRANSFER_FAIL. */
    @Test
    void aFailedDeviceCopyFailsTheCallCleanly() {
        start(new LocalTransport(), 4 << 20);
        DeviceBuffer b = onDevice(300_000, 5);
        device.failNext(1);
        assertError(ErrorCode.TRANSFER_FAIL, () -> f.client.putFromDevice("k", b, ReplicateConfig.DEFAULT));
        assertTrue(f.master.queryKey(ObjectKey.of("k")).isEmpty(), "revoked");
        f.client.putFromDevice("k", b, ReplicateConfig.DEFAULT);
        DeviceBuffer target = allocate(300_000);
        device.failNext(1);
        assertError(ErrorCode.TRANSFER_FAIL, () -> f.client.getIntoDevice("k", target));
        f.client.getIntoDevice("k", target);
        assertSameBytes(random(300_000, 5), read(target));
    }

    /** Threads put and get at once, more of them than staging buffers: none shares a buffer, all bytes arrive. */
    @RepeatedTest(3)
    void concurrentDevicePutsAndGetsAreAllCorrect() throws Exception {
        start(new LocalTransport(), 64 << 20);
        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int th = 0; th < threads; th++) {
                int me = th;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 12; i++) {
                        long size = 1 + (me * 7919L + i * 104_729L) % (2 * STAGING + 3);
                        long seed = me * 1000L + i;
                        DeviceBuffer source = onDevice(size, seed);
                        DeviceBuffer target = allocate(size);
                        String key = "t" + me + "-" + i;
                        f.client.putFromDevice(key, source, ReplicateConfig.DEFAULT);
                        assertEquals(size, f.client.getIntoDevice(key, target));
                        assertSameBytes(random(size, seed), read(target));
                        f.client.remove(key, true);
                    }
                    return null;
                }));
            }
            for (Future<?> d : done) {
                d.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(f.client.registeredBuffers() <= 2, "never more staging buffers than device.staging.buffers");
    }

    // ---- segments in device memory ----

    @Test
    void aDeviceSegmentHoldsObjectsInDeviceMemoryAndTheMasterSaysSo() {
        start(new LocalTransport(device));
        DeviceBuffer memory = device.allocate(0, 8 << 20);
        synchronized (allocated) {
            allocated.add(memory);
        }
        String name = f.client.mountDeviceSegment(memory);

        SegmentStats s = f.master.segments().getFirst();
        assertEquals(name, s.name());
        assertEquals(MemoryKind.CUDA_DEVICE, s.memoryKind());
        assertEquals(8 << 20, s.capacityBytes());
        assertEquals(MemoryKind.CUDA_DEVICE, f.client.describe(name).memoryKind());

        byte[] v = new byte[300_000];
        new java.util.Random(3).nextBytes(v);
        f.client.put("in-gpu", v);
        ReplicaLocation r = f.master.queryKey(ObjectKey.of("in-gpu")).orElseThrow().replicas().getFirst();
        assertEquals(name, r.segmentName());
        assertSameBytes(MemorySegment.ofArray(v), read(memory.slice(r.offset(), v.length)));
        assertSameBytes(MemorySegment.ofArray(v), MemorySegment.ofArray(f.client.get("in-gpu")));
        DeviceBuffer target = allocate(v.length);
        assertEquals(v.length, f.client.getIntoDevice("in-gpu", target));
        assertSameBytes(MemorySegment.ofArray(v), read(target));
        f.client.putFromDevice("from-gpu", onDevice(3 * STAGING + 5, 8), ReplicateConfig.DEFAULT);
        assertSameBytes(random(3 * STAGING + 5, 8), MemorySegment.ofArray(f.client.get("from-gpu")));

        List<MemoryKindStats> kinds = f.master.stats().memoryKinds();
        assertEquals(1, kinds.size(), kinds.toString());
        assertEquals(MemoryKind.CUDA_DEVICE, kinds.getFirst().kind());
        assertEquals(f.master.stats().usedBytes(), kinds.getFirst().usedBytes());
        assertTrue(kinds.getFirst().usedBytes() >= v.length + 3 * STAGING + 5, kinds.toString());

        // a byte rots in device memory: caught by the checksum computed on the host side of the read
        MemorySegment one = arena.allocate(1);
        device.copyToHost(memory.slice(r.offset() + 5, 1), one);
        one.set(ValueLayout.JAVA_BYTE, 0, (byte) ~one.get(ValueLayout.JAVA_BYTE, 0));
        device.copyFromHost(one, memory.slice(r.offset() + 5, 1));
        assertError(ErrorCode.CHECKSUM_MISMATCH, () -> f.client.get("in-gpu"));

        f.client.unmountSegment(name);
        assertTrue(f.master.segments().isEmpty());
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> f.client.get("from-gpu"));
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aClientWhoseTransportsCannotServeDeviceMemoryRefusesToMountIt(Supplier<Transport> t) {
        start(t.get(), 1 << 20);
        DeviceBuffer memory = device.allocate(0, 1 << 20);
        synchronized (allocated) {
            allocated.add(memory);
        }
        StoreException e = assertThrows(StoreException.class, () -> f.client.mountDeviceSegment(memory));
        assertEquals(ErrorCode.INVALID_PARAMS, e.errorCode());
        String m = e.getMessage();
        assertTrue(m.contains("no transport bound here serves CUDA_DEVICE memory (bound: " + transport.protocol() + ")")
                && m.contains("local transport") && m.contains("org.mooncake.osgi.device.cuda")
                && m.contains("UCX with CUDA is not verified on any machine here"), m);
        assertEquals(1, f.master.segments().size(), "nothing mounted");
    }

    /** A transport bound later that serves the kind serves the device segment too, and the master hears it. */
    @Test
    void aDeviceSegmentIsServedOnlyByTransportsThatServeItsKind() throws Exception {
        try (TcpTransport tcp = (TcpTransport) tcp()) {
            start(new LocalTransport(device));
            f.client.transports().add(tcp);
            DeviceBuffer memory = device.allocate(0, 1 << 20);
            synchronized (allocated) {
            allocated.add(memory);
        }
            String name = f.client.mountDeviceSegment(memory);
            assertEquals(List.of("local"), f.master.segments().getFirst().endpoints().stream()
                    .map(x -> x.substring(0, x.indexOf(':'))).toList(), "tcp does not serve device memory");
            assertEquals(name, f.master.segments().getFirst().name());
            f.client.unmountAll();
        }
    }
}
