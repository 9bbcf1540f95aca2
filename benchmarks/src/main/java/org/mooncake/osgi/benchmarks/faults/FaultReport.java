package org.mooncake.osgi.benchmarks.faults;

import java.util.Map;

/**
 * What a fault run adds up to. Operations (the load's, the harness's probes and its final
 * sweep's reads): {@code attempted = succeeded + failedCleanly + cutOff + lost + corrupt +
 * halfVisible}, where a failure is clean when it came with an error code and left no half-object. Objects (acknowledged puts): each ends in exactly one of
 * readable, removed, dropped with its node, forgotten by a master restart, lost or corrupt.
 *
 * @param faultsByKind       faults injected, by kind
 * @param attempted          operations begun
 * @param succeeded          acknowledged puts and removes, gets that read the right bytes
 * @param failedByCode       clean failures, by error code (a get of an object whose node died says why)
 * @param cutOff             operations of a client killed while they ran (they never answered)
 * @param lost               gets of an acknowledged object that was gone though its nodes and the master lived
 * @param corrupt            reads of an acknowledged object that returned other bytes
 * @param halfVisible        reads of an unacknowledged object that returned other bytes than its whole value
 * @param objects            the acknowledged objects' fates (readable, removed, dropped with node, forgotten by master restart, lost, corrupt)
 * @param faultsWithPutInFlight faults injected while a put of the load was in flight (for a client kill: of that client)
 * @param faultsWithGetInFlight the same for gets
 * @param recoverMsByKind    time from a fault to the next successful put and get, median and max by kind ({@code [p50, max]})
 * @param unrecovered        faults after which no put and get succeeded within the deadline
 */
public record FaultReport(Map<String, Integer> faultsByKind, long attempted, long succeeded,
        Map<String, Long> failedByCode, long cutOff, long lost, long corrupt, long halfVisible,
        Map<String, Long> objects, long faultsWithPutInFlight, long faultsWithGetInFlight,
        Map<String, long[]> recoverMsByKind, long unrecovered) {

    public long failedCleanly() {
        return failedByCode.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether every attempted operation is accounted for once. */
    public boolean reconciles() {
        return attempted == succeeded + failedCleanly() + cutOff + lost + corrupt + halfVisible;
    }

    public int faults() {
        return faultsByKind.values().stream().mapToInt(Integer::intValue).sum();
    }
}
