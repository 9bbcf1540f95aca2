package org.mooncake.osgi.store.master.impl;

import java.util.Iterator;
import java.util.NoSuchElementException;

import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * The victims of the limits on HIDDEN_STATE objects ({@link MasterSettings.HiddenStateLimits}),
 * planned from one (tenant, HIDDEN_STATE) group's lease order, oldest first. Used by the
 * eviction thread only.
 */
final class HiddenStatePlans {
    private HiddenStatePlans() {
    }

    /**
     * The group's objects unread and unwritten since {@code before}. A lease never ends before the
     * last access nor more than a lease TTL after it, so the walk stops at the first lease past
     * {@code before + leaseTtlMs}: a round reads only the expired prefix and a lease's worth more.
     */
    static Iterator<CandidateView> idleSince(CandidateGroup group, long before, long leaseTtlMs) {
        Iterator<CandidateView> order = group.inLeaseOrder();
        long stopAt = before + leaseTtlMs;
        return new Iterator<>() {
            private CandidateView next = advance();

            private CandidateView advance() {
                while (order.hasNext()) {
                    CandidateView c = order.next();
                    if (c.leaseExpiresAtMs() > stopAt) {
                        return null;
                    }
                    if (c.lastAccessMs() < before) {
                        return c;
                    }
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public CandidateView next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                CandidateView c = next;
                next = advance();
                return c;
            }
        };
    }

    /** Bytes the group holds beyond {@code share} of {@code capacityBytes}; 0 when within it. */
    static long overShare(CandidateGroup group, double share, long capacityBytes) {
        return Math.max(0, group.bytes() - (long) Math.floor(share * capacityBytes));
    }
}
