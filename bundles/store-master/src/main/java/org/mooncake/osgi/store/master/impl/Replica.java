package org.mooncake.osgi.store.master.impl;

import java.util.List;

import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.ReplicaLocation;

/** A block of one segment holding one copy of an object version. */
record Replica(Segment segment, long offset, long size) {
    /** Where it is, for an operator: no grant. */
    ReplicaLocation location() {
        return new ReplicaLocation(segment.name(), segment.descriptor.endpoints(), offset, size);
    }

    /** Where it is, with a grant to {@code write} (or read) it until {@code grantExpiresAtMs} if its segment takes grants. */
    ReplicaLocation location(boolean write, long grantExpiresAtMs) {
        GrantKey key = segment.descriptor.grantKey();
        DataGrant grant = key == null ? null
                : DataGrant.sign(key, segment.name(), write, offset, size, grantExpiresAtMs);
        return new ReplicaLocation(segment.name(), segment.descriptor.endpoints(), offset, size, grant);
    }

    /** Where each replica is, in order, without grants (an administrative look-up). */
    static List<ReplicaLocation> locations(List<Replica> replicas) {
        ReplicaLocation[] out = new ReplicaLocation[replicas.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = replicas.get(i).location();
        }
        return List.of(out);
    }

    /** Where each replica is, in order, each with its grant: a plain loop, on every put-start and every get. */
    static List<ReplicaLocation> locations(List<Replica> replicas, boolean write, long grantExpiresAtMs) {
        ReplicaLocation[] out = new ReplicaLocation[replicas.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = replicas.get(i).location(write, grantExpiresAtMs);
        }
        return List.of(out);
    }

    /** Whether a WRITE grant may have been issued for it. */
    boolean granted() {
        return segment.descriptor.grantKey() != null;
    }

    long free() {
        return segment.free(offset, size);
    }
}
