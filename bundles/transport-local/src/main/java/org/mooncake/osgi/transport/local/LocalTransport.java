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
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.osgi.service.component.annotations.Component;

/**
 * Segments of this JVM reached by {@link MemorySegment#copy}: the "local memcpy" protocol.
 * Runs each batch on the caller's thread. A request against a withdrawn segment, out of bounds,
 * or racing the owner's arena close fails alone with a status; it never throws.
 */
@Component(service = Transport.class, property = Transport.PROTOCOL_PROPERTY + "=" + LocalTransport.PROTOCOL)
public final class LocalTransport implements Transport {
    public static final String PROTOCOL = "local";
    /** This JVM: another process must never take a local endpoint for its own. */
    public static final String ADDRESS = "pid:" + ProcessHandle.current().pid() + "@" + hostName();

    private final ConcurrentMap<String, MemorySegment> exposed = new ConcurrentHashMap<>();

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
        if (exposed.putIfAbsent(segmentName, memory) != null) {
            throw new IllegalStateException("segment " + segmentName + " is exposed already");
        }
        return new SegmentEndpoint(PROTOCOL, ADDRESS, segmentName);
    }

    @Override
    public void withdraw(String segmentName) {
        exposed.remove(segmentName);
    }

    @Override
    public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
        return MemoryCopy.each(batch, this::run);
    }

    private TransferStatus run(TransferRequest r) {
        MemorySegment remote = exposed.get(r.remote().segmentName());
        if (remote == null) {
            return TransferStatus.failed("segment " + r.remote().segmentName() + " is not exposed here");
        }
        return MemoryCopy.run(r, remote);
    }
}
