package org.mooncake.osgi.store.master.impl;

import java.util.List;

import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.master.ChunkChecksums;

/**
 * One written (or being written) version of an object: its replicas and the put that made it,
 * and once written its checksum ({@code chunks}: per-chunk checksums of an object of more than
 * one chunk, else null). Immutable except that a dead segment's replica may be dropped, which
 * yields a new version.
 */
record Version(long putId, String writerId, long sizeBytes, ReplicateConfig config, List<Replica> replicas, long startMs,
        long checksum, ChunkChecksums chunks) {

    Version(long putId, String writerId, long sizeBytes, ReplicateConfig config, List<Replica> replicas, long startMs,
            long checksum) {
        this(putId, writerId, sizeBytes, config, replicas, startMs, checksum, null);
    }

    Version withChecksum(long checksum, ChunkChecksums chunks) {
        return new Version(putId, writerId, sizeBytes, config, replicas, startMs, checksum, chunks);
    }

    Version without(Segment dead) {
        return new Version(putId, writerId, sizeBytes, config,
                replicas.stream().filter(r -> r.segment() != dead).toList(), startMs, checksum, chunks);
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
