package org.mooncake.osgi.store.api;

/**
 * What a look-up found for a key ({@link StoreClient#lookupBatch}), granting no lease: a
 * promise about that instant only. A READABLE object may be evicted or removed a moment later,
 * so a caller that acts on it must still handle OBJECT_NOT_FOUND from the read. Since 1.3.
 */
public enum ObjectState {
    /** A complete replica exists: a read now would find it. */
    READABLE,
    /** Only a put is in progress: the object is being written and not readable yet. */
    WRITING,
    /** Nothing readable and no put in progress. */
    ABSENT
}
