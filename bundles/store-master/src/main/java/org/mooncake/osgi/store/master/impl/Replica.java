package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.master.ReplicaLocation;

/** A block of one segment holding one copy of an object version. */
record Replica(Segment segment, long offset, long size) {
    ReplicaLocation location() {
        return new ReplicaLocation(segment.name(), segment.descriptor.endpoints(), offset, size);
    }

    /** Where each replica is, in order: a plain loop, on every put-start and every get. */
    static java.util.List<ReplicaLocation> locations(java.util.List<Replica> replicas) {
        ReplicaLocation[] out = new ReplicaLocation[replicas.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = replicas.get(i).location();
        }
        return java.util.List.of(out);
    }

    long free() {
        return segment.free(offset, size);
    }
}
