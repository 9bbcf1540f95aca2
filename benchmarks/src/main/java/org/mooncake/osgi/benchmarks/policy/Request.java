package org.mooncake.osgi.benchmarks.policy;

import java.util.List;

/** The accesses one inference request makes at one instant: hidden states first, then its KV prefix in order. */
public record Request(long timeMs, List<Access> accesses) {
    public Request {
        accesses = List.copyOf(accesses);
    }
}
