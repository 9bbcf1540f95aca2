package org.mooncake.osgi.store.master;

import org.mooncake.osgi.store.api.ObjectKey;

/** How one put of a batch ended on the writer's side: its key, put id and checksum (XXH3-64, as {@code Checksums.of} computes it). */
public record PutCompletion(ObjectKey key, long putId, long checksum) {
}
