package org.mooncake.osgi.store.master;

import org.mooncake.osgi.store.api.ObjectKey;

/**
 * How one put of a batch ended on the writer's side: its key, put id and checksum (XXH3-64, as
 * Checksums.of in org.mooncake.osgi.store.memory computes it), and for an object of more than one
 * chunk its chunk checksums (since 2.1; {@code checksum} is then their combination, see
 * {@link ChunkChecksums}).
 */
public record PutCompletion(ObjectKey key, long putId, long checksum, ChunkChecksums chunks) {

    /** An object checked as a whole: the components of 2.0. */
    public PutCompletion(ObjectKey key, long putId, long checksum) {
        this(key, putId, checksum, null);
    }
}
