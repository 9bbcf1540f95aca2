package org.mooncake.osgi.store.master;

import java.util.List;

/**
 * A started put: where to write, and the id that put-end or put-revoke must quote. The id, not
 * the key, names the put, so a writer that lost its put (cancelled, taken over) can never publish
 * or free another writer's blocks, even from the same client.
 */
public record PutTicket(long putId, List<ReplicaLocation> replicas) {
}
