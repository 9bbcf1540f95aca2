package org.mooncake.osgi.store.master.impl;

import java.util.PriorityQueue;

/**
 * Versions whose space may still be in use by someone else (a zombie writer, a reader holding
 * a lease on a replaced version) and are freed only once that can no longer be true.
 */
final class DeferredFrees {
    private record Due(long atMs, Version version) {
    }

    private final PriorityQueue<Due> queue = new PriorityQueue<>((a, b) -> Long.compare(a.atMs, b.atMs));

    synchronized void add(Version v, long atMs) {
        queue.add(new Due(atMs, v));
    }

    /** Frees every version due at {@code nowMs}; returns how many. */
    int releaseDue(long nowMs) {
        int n = 0;
        while (true) {
            Due d;
            synchronized (this) {
                d = queue.peek();
                if (d == null || d.atMs > nowMs) {
                    return n;
                }
                queue.poll();
            }
            d.version.freeAll();
            n++;
        }
    }

    synchronized int size() {
        return queue.size();
    }
}
