package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.device.DeviceBuffer;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * A segment this client contributes: its memory (host memory, or a device's), and the transports
 * that serve it now with the endpoint each gave. Changed only under {@link ContributedSegments}' lock.
 */
final class OwnSegment {
    final String name;
    /** Its host memory; null for a segment in device memory. */
    final MemorySegment memory;
    /** Its device memory; null for a segment in host memory. */
    final DeviceBuffer device;
    final Map<Transport, SegmentEndpoint> servedBy = new LinkedHashMap<>();
    /**
     * The key the master signs this segment's grants with, made here and sent with the mount:
     * transports that check requests from other processes (tcp) check them against it.
     */
    final GrantKey grantKey = GrantKey.random();

    OwnSegment(String name, MemorySegment memory) {
        this.name = name;
        this.memory = memory;
        this.device = null;
    }

    OwnSegment(String name, DeviceBuffer device) {
        this.name = name;
        this.memory = null;
        this.device = device;
    }

    MemoryKind kind() {
        return device == null ? MemoryKind.HOST : device.kind();
    }

    /**
     * Serves it through {@code t} too; false when {@code t} cannot (shm serves only memory it
     * allocated; only a transport that {@link Transport#servesDeviceMemory serves} its kind serves
     * device memory).
     */
    boolean serveVia(Transport t) {
        try {
            if (device != null) {
                if (!t.servesDeviceMemory(device.kind())) {
                    return false;
                }
                servedBy.put(t, t.exposeDevice(name, device));
            } else {
                servedBy.put(t, t.expose(name, memory, grantKey));
            }
            return true;
        } catch (RuntimeException cannotServeIt) {
            return false;
        }
    }

    /** Stops serving it through every transport, as far as they still answer. */
    void withdrawEverywhere() {
        for (Transport t : servedBy.keySet()) {
            withdraw(t, name);
        }
        servedBy.clear();
    }

    static void withdraw(Transport t, String segment) {
        try {
            t.withdraw(segment);
        } catch (RuntimeException goingAway) {
            // a transport that is stopping has let go of it already
        }
    }

    /** What the master should know: every endpoint, cheapest first as its transport here rates it. */
    SegmentDescriptor descriptor(String clientId) {
        List<Map.Entry<Transport, SegmentEndpoint>> served = new ArrayList<>(servedBy.entrySet());
        served.sort(Comparator.comparingInt(s -> s.getKey().cost(s.getValue())));
        return new SegmentDescriptor(name, clientId, device != null ? device.byteSize() : memory.byteSize(),
                served.stream().map(Map.Entry::getValue).toList(), kind(), grantKey);
    }
}
