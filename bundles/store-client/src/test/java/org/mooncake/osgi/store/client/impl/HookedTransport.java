package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;

/** The in-process transport, for tests to override a method and tamper with what passes through. */
class HookedTransport implements Transport {
    final LocalTransport inner = new LocalTransport();

    @Override
    public String protocol() {
        return inner.protocol();
    }

    @Override
    public SegmentEndpoint expose(String name, MemorySegment memory) {
        return inner.expose(name, memory);
    }

    @Override
    public void withdraw(String name) {
        inner.withdraw(name);
    }

    @Override
    public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
        return inner.submit(batch);
    }
}
