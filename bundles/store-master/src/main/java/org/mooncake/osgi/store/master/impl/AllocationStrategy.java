package org.mooncake.osgi.store.master.impl;

/** How the master orders segments when placing replicas (after any preferred segments). */
public enum AllocationStrategy {
    /** Uniformly random order, as upstream's default. */
    RANDOM,
    /** Emptiest segment first, by free ratio. */
    FREE_RATIO_FIRST
}
