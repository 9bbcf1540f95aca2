package org.mooncake.osgi.store.master.impl;

import java.util.List;

import org.mooncake.osgi.store.api.ReplicateConfig;

/**
 * One written (or being written) version of an object: its replicas and the put that made it.
 * Immutable except that a dead segment's replica may be dropped, which yields a new version.
 */
record Version(long putId, String writerId, long sizeBytes, ReplicateConfig config, List<Replica> replicas, long startMs,
        long checksum) {

    Version withChecksum(long checksum) {
        return new Version(putId, writerId, sizeBytes, config, replicas, startMs, checksum);
    }

    Version without(Segment dead) {
        return new Version(putId, writerId, sizeBytes, config,
                replicas.stream().filter(r -> r.segment() != dead).toList(), startMs, checksum);
    }

    boolean uses(Segment s) {
        for (Replica r : replicas) {
            if (r.segment() == s) {
                return true;
            }
        }
        return false;
    }

    void freeAll() {
        replicas.forEach(Replica::free);
    }
}
