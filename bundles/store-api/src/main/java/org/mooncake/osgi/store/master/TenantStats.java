package org.mooncake.osgi.store.master;

/**
 * One tenant's share of the store (since 3.1): its readable objects and their bytes (one replica's
 * worth each, as a client sees them), and its puts still being written.
 */
public record TenantStats(String tenant, long objects, long bytes, long processingPuts) {
}
