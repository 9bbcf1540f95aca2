package org.mooncake.osgi.transport.local;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.memory.HugePages;
import org.mooncake.osgi.store.memory.MemoryCopy;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * Segments of this JVM reached by {@link MemorySegment#copy}: the "local memcpy" protocol.
 * Runs each batch on the caller's thread. A request against a withdrawn segment, out of bounds,
 * or racing the owner's arena close fails alone with a status; it never throws.
 *
 * <p>Segments in device memory ({@link #exposeDevice}) are served while a {@link DeviceMemory} of
 * their kind is bound (an optional, dynamic reference: bundle {@code org.mooncake.osgi.device.cuda}
 * registers one where the NVIDIA driver works): a READ is the device memory's copy to the host
 * target, a WRITE its copy from the host source, and a checksum asked for is computed on the host
 * side (the target after a READ, the source before a WRITE). Java never dereferences the device
 * pointer. A request against one whose DeviceMemory went away fails with a status.
 */
@Component(service = Transport.class, property = Transport.PROTOCOL_PROPERTY + "=" + LocalTransport.PROTOCOL)
public final class LocalTransport implements Transport {
    public static final String PROTOCOL = "local";
    /** This JVM: another process must never take a local endpoint for its own. */
    public static final String ADDRESS = "pid:" + ProcessHandle.current().pid() + "@" + hostName();

    private final ConcurrentMap<String, MemorySegment> exposed = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, DeviceBuffer> exposedDevice = new ConcurrentHashMap<>();
    /** The DeviceMemory services bound, by kind: the last bound of a kind serves it. */
    private final java.util.List<DeviceMemory> devices = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** A transport that serves host segments, and device segments once a DeviceMemory is bound (DS). */
    public LocalTransport() {
    }

    /** A transport that also serves device segments of these devices' kinds (tests, embedding without OSGi). */
    public LocalTransport(DeviceMemory... deviceMemories) {
        devices.addAll(java.util.List.of(deviceMemories));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindDeviceMemory(DeviceMemory memory) {
        devices.add(memory);
    }

    void unbindDeviceMemory(DeviceMemory memory) {
        devices.remove(memory);
    }

    private DeviceMemory deviceMemory(MemoryKind kind) {
        DeviceMemory found = null;
        for (DeviceMemory d : devices) {
            if (d.kind() == kind) {
                found = d; // the last bound wins
            }
        }
        return found;
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    /** Its copies are {@link MemoryCopy}'s: one pass where the native kernel runs here. */
    @Override
    public boolean checksumsInOnePass() {
        return Checksums.copiesInOnePass();
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    /** On transparent huge pages where Linux offers them: copies move megabytes at a time. */
    @Override
    public MemorySegment allocateSegment(String segmentName, long sizeBytes, Arena arena) {
        return HugePages.allocate(sizeBytes, arena);
    }

    /** A copy in this process. */
    @Override
    public int cost(SegmentEndpoint endpoint) {
        return COST_IN_PROCESS;
    }

    @Override
    public boolean canReach(SegmentEndpoint endpoint) {
        return PROTOCOL.equals(endpoint.protocol()) && ADDRESS.equals(endpoint.address());
    }

    @Override
    public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
        if (exposedDevice.containsKey(segmentName) || exposed.putIfAbsent(segmentName, memory) != null) {
            throw new IllegalStateException("segment " + segmentName + " is exposed already");
        }
        return new SegmentEndpoint(PROTOCOL, ADDRESS, segmentName);
    }

    /** While a {@link DeviceMemory} of that kind is bound. */
    @Override
    public boolean servesDeviceMemory(MemoryKind kind) {
        return kind.isDevice() && deviceMemory(kind) != null;
    }

    @Override
    public SegmentEndpoint exposeDevice(String segmentName, DeviceBuffer memory) {
        if (!servesDeviceMemory(memory.kind())) {
            throw new UnsupportedOperationException("the local transport has no DeviceMemory for " + memory.kind()
                    + " bound (bundle org.mooncake.osgi.device.cuda, where the NVIDIA driver works): it cannot serve "
                    + "segment " + segmentName);
        }
        if (exposed.containsKey(segmentName) || exposedDevice.putIfAbsent(segmentName, memory) != null) {
            throw new IllegalStateException("segment " + segmentName + " is exposed already");
        }
        return new SegmentEndpoint(PROTOCOL, ADDRESS, segmentName);
    }

    @Override
    public void withdraw(String segmentName) {
        exposed.remove(segmentName);
        exposedDevice.remove(segmentName);
    }

    @Override
    public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
        return MemoryCopy.each(batch, this::run);
    }

    private TransferStatus run(TransferRequest r) {
        MemorySegment remote = exposed.get(r.remote().segmentName());
        if (remote == null) {
            DeviceBuffer device = exposedDevice.get(r.remote().segmentName());
            return device != null ? runOnDevice(r, device)
                    : TransferStatus.failed("segment " + r.remote().segmentName() + " is not exposed here");
        }
        return MemoryCopy.run(r, remote);
    }

    /**
     * A request against a segment in device memory: the device memory's copy, with the checksum
     * asked for computed on the host side of it. Every failure (range, no DeviceMemory any more,
     * the driver's error, a closed host arena) is a status.
     */
    private TransferStatus runOnDevice(TransferRequest r, DeviceBuffer segment) {
        long len = r.length();
        if (r.remoteOffset() > segment.byteSize() - len) {
            return TransferStatus.failed("range " + r.remoteOffset() + "+" + len + " is outside segment "
                    + r.remote().segmentName() + " of " + segment.byteSize() + " bytes");
        }
        DeviceMemory memory = deviceMemory(segment.kind());
        if (memory == null) {
            return TransferStatus.failed("segment " + r.remote().segmentName() + " is in " + segment.kind()
                    + " memory and no DeviceMemory of that kind is bound any more");
        }
        DeviceBuffer range = segment.slice(r.remoteOffset(), len);
        try {
            if (r.op() == TransferOp.READ) {
                memory.copyToHost(range, r.local());
                return checked(r, len);
            }
            TransferStatus status = checked(r, len); // of the source, before it leaves the host
            memory.copyFromHost(r.local(), range);
            return status;
        } catch (RuntimeException e) {
            // DeviceMemoryException, IllegalArgumentException (freed memory, read-only target), a closed arena
            return TransferStatus.failed(r.op() + " of segment " + r.remote().segmentName() + " in " + segment.kind()
                    + " memory failed: " + e.getMessage());
        }
    }

    /** Done, with the checksums of the host memory if the request asked for them. */
    private static TransferStatus checked(TransferRequest r, long len) {
        if (r.chunked()) {
            return TransferStatus.doneChunked(len, Checksums.ofChunks(r.local(), r.checksumChunkBytes()));
        }
        return r.checksum() ? TransferStatus.done(len, Checksums.of(r.local())) : TransferStatus.done(len);
    }
}
