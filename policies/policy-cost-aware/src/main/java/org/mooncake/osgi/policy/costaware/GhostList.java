package org.mooncake.osgi.policy.costaware;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/**
 * Keys evicted lately, so that a write-back after a miss can be told apart from a first put and
 * counted as the hit the eviction cost. Holds at most {@code capacity} keys, oldest dropped first.
 *
 * <p>Threads: {@link #add} runs on the eviction thread, which alone owns the FIFO; {@link #take}
 * runs on any thread that completes a put.
 */
final class GhostList {
    /** What the object was when it was evicted. */
    record Ghost(ObjectDataType type, int objectClass, long lastAccessMs, long idleAtEvictionMs) {
    }

    private final ConcurrentMap<ObjectKey, Ghost> ghosts = new ConcurrentHashMap<>();
    private final ArrayDeque<ObjectKey> order = new ArrayDeque<>();
    private volatile int capacity;

    GhostList(int capacity) {
        this.capacity = capacity;
    }

    void resize(int newCapacity) {
        capacity = newCapacity;
    }

    void add(ObjectKey key, Ghost ghost) {
        ghosts.put(key, ghost);
        order.addLast(key);
        while (order.size() > capacity) {
            ghosts.remove(order.removeFirst());
        }
    }

    /** The ghost of {@code key}, removed; null when the key was not evicted lately. */
    Ghost take(ObjectKey key) {
        return ghosts.remove(key);
    }

    int size() {
        return ghosts.size();
    }
}
