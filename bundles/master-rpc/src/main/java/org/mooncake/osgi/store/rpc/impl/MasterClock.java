package org.mooncake.osgi.store.rpc.impl;

import org.mooncake.osgi.store.master.ReadLease;

/**
 * The master's wall clock as seen from one answer: this client sent the request at
 * {@code sentAtMs} by its own clock, and the master answered at {@code serverTimeMs} by its
 * clock. An absolute master time {@code t} is then {@code t - serverTimeMs} after the answer,
 * which came after the request was sent, so {@code sentAtMs + (t - serverTimeMs)} in this client's
 * clock is never later than {@code t} really is: early by the round trip, never late, whatever the
 * two clocks say. {@code serverTimeMs} 0 (an older master that does not say) leaves times as they
 * are, which is right only when the clocks agree.
 */
record MasterClock(long sentAtMs, long serverTimeMs) {

    /** {@code masterMs}, a time by the master's clock, in this client's clock. */
    long toLocal(long masterMs) {
        if (serverTimeMs <= 0) {
            return masterMs;
        }
        long ahead = masterMs - serverTimeMs;
        return ahead > 0 && sentAtMs > Long.MAX_VALUE - ahead ? Long.MAX_VALUE : sentAtMs + ahead;
    }

    /**
     * The lease with its end in this client's clock, as the reader compares it with its own. The
     * grants of its replicas keep the master's times: the segment owner judges those.
     */
    ReadLease toLocal(ReadLease lease) {
        if (lease == null || serverTimeMs <= 0) {
            return lease;
        }
        return new ReadLease(lease.sizeBytes(), lease.checksum(), lease.dataType(), lease.replicas(),
                toLocal(lease.leaseExpiresAtMs()), lease.chunks());
    }
}
