package org.mooncake.osgi.benchmarks.faults;

import java.util.List;

/** A finished fault run: what was asked, the reconciled figures, each fault, and what the soak saw. */
public record FaultRun(FaultSuite.Options options, FaultReport report, List<Fault> faults, List<String> notes,
        List<Soak.Minute> p99PerMinute, List<Resources.Change> resources, double seconds) {
}
