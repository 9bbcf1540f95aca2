package org.mooncake.osgi.epd.api;

import java.util.Map;
import java.util.Set;

/**
 * What the EC worker role reports after a step: items whose saves finished ({@code sent}),
 * whose loads finished ({@code received}), and loads that failed, with why.
 */
public record EcWorkerOutput(Set<String> sent, Set<String> received, Map<String, String> failedLoads) {
    public static final EcWorkerOutput NOTHING = new EcWorkerOutput(Set.of(), Set.of(), Map.of());

    public EcWorkerOutput {
        sent = Set.copyOf(sent);
        received = Set.copyOf(received);
        failedLoads = Map.copyOf(failedLoads);
    }
}
