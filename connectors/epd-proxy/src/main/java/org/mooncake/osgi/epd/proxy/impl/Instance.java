package org.mooncake.osgi.epd.proxy.impl;

import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One worker instance as the registry last saw it. Immutable: a probe result or a change makes a
 * new value, so a routing snapshot never changes under a request.
 *
 * @param id                  the registry's id ({@code encode-1}, ...)
 * @param role                what it does
 * @param url                 its base URL (no trailing slash)
 * @param source              {@code config} or {@code api}: where it was registered from
 * @param healthy             whether requests are routed to it
 * @param consecutiveFailures failed probes since the last success
 * @param lastProbe           when it was last probed; null before the first probe
 * @param lastError           why the last probe failed; null after a success
 */
record Instance(String id, Role role, URI url, String source, boolean healthy, int consecutiveFailures,
        Instant lastProbe, String lastError) {

    static final String FROM_CONFIG = "config";
    static final String FROM_API = "api";

    /** A new instance: healthy until probes say otherwise, so it takes traffic at once. */
    static Instance fresh(String id, Role role, URI url, String source) {
        return new Instance(id, role, url, source, true, 0, null, null);
    }

    /** This instance after a probe: one success heals, {@code threshold} failures in a row make it unhealthy. */
    Instance probed(boolean ok, String error, Instant at, int threshold) {
        if (ok) {
            return new Instance(id, role, url, source, true, 0, at, null);
        }
        int failures = consecutiveFailures + 1;
        return new Instance(id, role, url, source, healthy && failures < threshold, failures, at, error);
    }

    /** Its JSON shape in {@code /instances}. */
    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("role", role.wire);
        m.put("url", url.toString());
        m.put("source", source);
        m.put("healthy", healthy);
        m.put("consecutive_failures", consecutiveFailures);
        m.put("last_probe", lastProbe == null ? null : lastProbe.toString());
        m.put("last_error", lastError);
        return m;
    }
}
