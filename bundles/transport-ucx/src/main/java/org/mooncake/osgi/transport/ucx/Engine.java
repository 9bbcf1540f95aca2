package org.mooncake.osgi.transport.ucx;

import java.util.function.Function;

/** What the worker thread runs besides progress: the owner side and the requester side. */
final class Engine implements Worker.Loop {
    private final UcxMetrics metrics;
    private final Function<String, UcxAddress> decode;
    private final long timeoutMs;
    Exposures exposures;
    Peers peers;
    Transfers transfers;

    Engine(UcxMetrics metrics, Function<String, UcxAddress> decode, long timeoutMs) {
        this.metrics = metrics;
        this.decode = decode;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public void opened(Worker w) {
        // a peer's request is served within its timeout, or failed: after that the memory may go
        exposures = new Exposures(w, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        peers = new Peers(w, metrics);
        transfers = new Transfers(w, peers, metrics, decode, timeoutMs);
    }

    @Override
    public boolean poll(long now) {
        return transfers.poll(now);
    }

    @Override
    public long nextDeadline() {
        return transfers.nextDeadline();
    }

    @Override
    public void closing() {
        if (transfers != null) {
            transfers.close();
            exposures.close();
        }
    }
}
