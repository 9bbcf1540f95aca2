package org.mooncake.osgi.store.rpc.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.StoreException;

/**
 * A batch sent in parts of at most the master's {@code max.batch.keys} (which its HELLO tells),
 * the results concatenated in the caller's order: the master refuses a longer list whole.
 */
final class BatchParts {
    private BatchParts() {
    }

    /** Sends items {@code [from, to)} of a batch; one result per item, in order. */
    interface Part<R> {
        List<OpResult<R>> send(int from, int to);
    }

    /**
     * A batch of {@code n} items in parts of at most {@code limit}. A part that fails whole fails
     * the call when it is the first (nothing was done, as for a batch sent in one); after that, the
     * keys of that part and of the parts not sent fail with its error, and the results of the parts
     * done stand, so the caller can finish or revoke them.
     */
    static <R> List<OpResult<R>> send(int n, int limit, IntFunction<String> keyAt, Part<R> part) {
        if (n <= limit) {
            return part.send(0, n);
        }
        List<OpResult<R>> out = new ArrayList<>(n);
        for (int from = 0; from < n; from += limit) {
            int to = Math.min(n, from + limit);
            try {
                List<OpResult<R>> results = part.send(from, to);
                if (results == null || results.size() != to - from) {
                    throw new StoreException(ErrorCode.RPC_FAIL, "the master answered "
                            + (results == null ? "no" : results.size()) + " results to a batch of " + (to - from));
                }
                out.addAll(results);
            } catch (StoreException e) {
                if (from == 0) {
                    throw e;
                }
                for (int i = from; i < n; i++) {
                    out.add(OpResult.failed(keyAt.apply(i), e));
                }
                return out;
            }
        }
        return out;
    }
}
