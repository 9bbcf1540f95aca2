package org.mooncake.osgi.store.api;

/**
 * What one client has moved over one transport protocol since it started: writes (the bytes of
 * puts, one per replica) and reads (gets), those that failed, and reads whose bytes did not match
 * the object's checksum (counted as completed reads as well: the transport delivered them).
 * Bytes count completed transfers only. Protocol {@code none} counts the transfers that no
 * transport in this process could reach (the segment offers none of the protocols bound here).
 */
public record TransferStats(String protocol, long writes, long bytesWritten, long failedWrites, long reads,
        long bytesRead, long failedReads, long checksumMismatches) {
}
