package org.mooncake.osgi.store.client.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;

/** The transports on offer, by protocol. Bound and unbound from any thread. */
final class Transports {
    private final ConcurrentMap<String, Transport> byProtocol = new ConcurrentHashMap<>();

    void add(Transport t) {
        byProtocol.put(t.protocol(), t);
    }

    void remove(Transport t) {
        byProtocol.remove(t.protocol(), t);
    }

    /** The transport for an endpoint: its protocol's, if that one can reach it from here. */
    Transport reaching(org.mooncake.osgi.store.master.SegmentEndpoint endpoint) {
        Transport t = get(endpoint.protocol());
        if (!t.canReach(endpoint)) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL,
                    "segment " + endpoint.segmentName() + " at " + endpoint.address() + " is not reachable over "
                            + endpoint.protocol() + " from here");
        }
        return t;
    }

    Transport get(String protocol) {
        Transport t = byProtocol.get(protocol);
        if (t == null) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL, "no transport for protocol " + protocol);
        }
        return t;
    }

    Iterable<Transport> all() {
        return List.copyOf(byProtocol.values());
    }

    /**
     * Runs requests as one batch per protocol, all in flight together; any failure status or
     * exception becomes TRANSFER_FAIL once every batch has finished.
     */
    void runAll(List<TransferRequest> requests) {
        Map<String, List<TransferRequest>> byProto = requests.stream()
                .collect(Collectors.groupingBy(r -> r.remote().protocol()));
        List<CompletableFuture<List<TransferStatus>>> inFlight = new ArrayList<>();
        for (var e : byProto.entrySet()) {
            Transport t = null;
            for (TransferRequest r : e.getValue()) {
                t = reaching(r.remote());
            }
            inFlight.add(t.submit(e.getValue()).toCompletableFuture());
        }
        String failure = null;
        for (CompletableFuture<List<TransferStatus>> f : inFlight) {
            try {
                for (TransferStatus s : f.join()) {
                    if (!s.completed() && failure == null) {
                        failure = s.error();
                    }
                }
            } catch (RuntimeException e) {
                failure = failure == null ? e.toString() : failure;
            }
        }
        if (failure != null) {
            throw new StoreException(ErrorCode.TRANSFER_FAIL, requests.getFirst().op() + " failed: " + failure);
        }
    }
}
