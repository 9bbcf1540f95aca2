package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/** Where each role of a running cluster answers; what the case runner, the load and the probes talk to. */
public interface Endpoints {
    Set<Role> roles();

    /** Base URL: chat, /metrics and /health are below it. */
    String url(Role role);

    /** Whether the role's process is still there to be scraped (a test may have killed it). */
    default boolean alive(Role role) {
        return true;
    }

    /** Every live process's counters now. */
    default Map<Role, Metrics> scrape(DemoHttp http) throws IOException, InterruptedException {
        Map<Role, Metrics> out = new EnumMap<>(Role.class);
        for (Role r : roles()) {
            if (alive(r)) {
                out.put(r, http.metrics(url(r)));
            }
        }
        return out;
    }

    /** {@code after - before} per role. */
    static Map<Role, Metrics> delta(Map<Role, Metrics> before, Map<Role, Metrics> after) {
        Map<Role, Metrics> out = new EnumMap<>(Role.class);
        after.forEach((r, m) -> out.put(r, m.minus(before.getOrDefault(r, Metrics.empty()))));
        return out;
    }
}
