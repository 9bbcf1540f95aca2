package org.mooncake.osgi.transport.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.device.testing.HostBackedDeviceMemory;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/** Segments in device memory (a simulated device), served while a DeviceMemory of their kind is bound. */
class LocalTransportDeviceTest {
    private final HostBackedDeviceMemory device = new HostBackedDeviceMemory();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        device.close();
        arena.close();
    }

    private TransferStatus run(LocalTransport t, TransferRequest r) {
        return t.submit(List.of(r)).toCompletableFuture().join().getFirst();
    }

    @Test
    void readsAndWritesMoveBetweenHostAndDeviceWithHostSideChecksums() {
        LocalTransport t = new LocalTransport(device);
        assertTrue(t.servesDeviceMemory(MemoryKind.CUDA_DEVICE));
        assertFalse(t.servesDeviceMemory(MemoryKind.HOST), "host segments go through expose");
        DeviceBuffer segment = device.allocate(0, 1 << 20);
        SegmentEndpoint e = t.exposeDevice("g", segment);
        assertEquals(new SegmentEndpoint("local", LocalTransport.ADDRESS, "g"), e);

        byte[] v = new byte[200_000];
        new Random(1).nextBytes(v);
        MemorySegment source = MemorySegment.ofArray(v);
        TransferStatus w = run(t, new TransferRequest(TransferOp.WRITE, source, e, 4096, true));
        assertTrue(w.completed(), w.error());
        assertEquals(Checksums.of(source), w.checksum().getAsLong());
        MemorySegment onDevice = arena.allocate(v.length);
        device.copyToHost(segment.slice(4096, v.length), onDevice);
        assertEquals(-1, onDevice.mismatch(source), "the bytes are in device memory");

        MemorySegment back = arena.allocate(v.length);
        TransferStatus r = run(t, new TransferRequest(TransferOp.READ, back, e, 4096, true, 65536));
        assertTrue(r.completed(), r.error());
        assertArrayEquals(Checksums.ofChunks(source, 65536), r.chunkChecksums());
        assertEquals(-1, back.mismatch(source));
        assertTrue(run(t, new TransferRequest(TransferOp.READ, back.asSlice(0, 10), e, 0)).completed());

        TransferStatus outside = run(t, new TransferRequest(TransferOp.READ, back, e, (1 << 20) - 100));
        assertFalse(outside.completed());
        assertTrue(outside.error().contains("outside segment g"), outside.error());

        device.failNext(1);
        TransferStatus failed = run(t, new TransferRequest(TransferOp.READ, back, e, 0));
        assertFalse(failed.completed());
        assertTrue(failed.error().contains("CUDA_ERROR_UNKNOWN"), failed.error());

        t.unbindDeviceMemory(device);
        assertFalse(t.servesDeviceMemory(MemoryKind.CUDA_DEVICE));
        TransferStatus gone = run(t, new TransferRequest(TransferOp.READ, back, e, 0));
        assertFalse(gone.completed());
        assertTrue(gone.error().contains("no DeviceMemory of that kind is bound"), gone.error());
        t.bindDeviceMemory(device);

        t.withdraw("g");
        TransferStatus withdrawn = run(t, new TransferRequest(TransferOp.READ, back, e, 0));
        assertFalse(withdrawn.completed());
        assertTrue(withdrawn.error().contains("not exposed here"), withdrawn.error());
        device.free(segment);
    }

    @Test
    void withoutADeviceMemoryItServesNoDeviceSegment() {
        LocalTransport t = new LocalTransport();
        assertFalse(t.servesDeviceMemory(MemoryKind.CUDA_DEVICE));
        DeviceBuffer segment = device.allocate(0, 4096);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> t.exposeDevice("g", segment));
        assertTrue(e.getMessage().contains("org.mooncake.osgi.device.cuda"), e.getMessage());
        t.bindDeviceMemory(device);
        t.exposeDevice("g", segment);
        assertThrows(IllegalStateException.class, () -> t.exposeDevice("g", segment));
        assertThrows(IllegalStateException.class, () -> t.expose("g", arena.allocate(4096)));
        device.free(segment);
    }
}
