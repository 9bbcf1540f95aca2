package org.mooncake.osgi.store.spi.transport;

/** One-sided operations: the remote side runs no application code. */
public enum TransferOp {
    /** Copy remote segment bytes into local memory. */
    READ,
    /** Copy local memory into the remote segment. */
    WRITE
}
