package org.mooncake.osgi.store.master.impl;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.mooncake.osgi.store.api.ReplicateConfig;

/**
 * One string instance per group id. Every put decodes its own copy of the id, so without this
 * the objects of one session carry as many strings as they have blocks, and a policy that looks
 * each candidate's group up (cost-aware) takes several cache misses per candidate to hash and
 * compare them. Shared, the group's string, map node and counters stay in cache across the run
 * of its candidates that a round meets together.
 *
 * <p>Any thread. Bounded: past {@link #MAX_IDS} it starts over, which costs only sharing.
 */
final class GroupIds {
    static final int MAX_IDS = 1 << 18;

    private final ConcurrentMap<String, String> ids = new ConcurrentHashMap<>();

    /** {@code config} with its group id replaced by the shared instance, or as it is. */
    ReplicateConfig canonical(ReplicateConfig config) {
        String id = config.groupId();
        if (id == null) {
            return config;
        }
        String shared = ids.putIfAbsent(id, id);
        if (shared == null) {
            if (ids.size() > MAX_IDS) {
                ids.clear();
            }
            return config;
        }
        return shared == id ? config : config.toBuilder().groupId(shared).build();
    }

    int size() {
        return ids.size();
    }
}
