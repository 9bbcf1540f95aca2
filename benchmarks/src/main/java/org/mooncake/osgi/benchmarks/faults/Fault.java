package org.mooncake.osgi.benchmarks.faults;

import java.util.List;

/**
 * One injected fault.
 *
 * @param kind            what was done ({@link FaultKind#id})
 * @param target          the process it was done to (an instance name or a worker id)
 * @param injectedNanos   when, on {@link System#nanoTime}
 * @param recoveredNanos  when a put and a get through the harness succeeded again afterwards; -1 if never
 * @param segmentsDropped the segments whose bytes died with it (a storage node's), by name
 * @param forgetsObjects  whether it made the master forget every object (a master restart)
 */
public record Fault(String kind, String target, long injectedNanos, long recoveredNanos, List<String> segmentsDropped,
        boolean forgetsObjects) {
    public Fault {
        segmentsDropped = List.copyOf(segmentsDropped);
    }

    public Fault recovered(long nanos) {
        return new Fault(kind, target, injectedNanos, nanos, segmentsDropped, forgetsObjects);
    }
}
