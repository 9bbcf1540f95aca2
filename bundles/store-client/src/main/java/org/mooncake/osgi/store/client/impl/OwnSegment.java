package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * A segment this client contributes: its memory, and the transports that serve it now with the
 * endpoint each gave. Changed only under {@link ContributedSegments}' lock.
 */
final class OwnSegment {
    final String name;
    final MemorySegment memory;
    final Map<Transport, SegmentEndpoint> servedBy = new LinkedHashMap<>();

    OwnSegment(String name, MemorySegment memory) {
        this.name = name;
        this.memory = memory;
    }

    /** Serves it through {@code t} too; false when {@code t} cannot (shm serves only memory it allocated). */
    boolean serveVia(Transport t) {
        try {
            servedBy.put(t, t.expose(name, memory));
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
        return new SegmentDescriptor(name, clientId, memory.byteSize(), served.stream().map(Map.Entry::getValue).toList());
    }
}
