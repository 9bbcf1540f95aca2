package org.mooncake.osgi.store.master.impl;

import org.mooncake.osgi.store.master.ReplicaLocation;

/** A block of one segment holding one copy of an object version. */
record Replica(Segment segment, long offset, long size) {
    ReplicaLocation location() {
        return new ReplicaLocation(segment.name(), segment.descriptor.endpoints(), offset, size);
    }

    long free() {
        return segment.free(offset, size);
    }
}
