package org.mooncake.osgi.epd.hidden.impl;

import org.mooncake.osgi.epd.api.ConnectorRole;

/**
 * The connector's configuration, checked. {@code recomputeOnLoadFailure}: a failed load is a
 * local recompute (else the request's error); {@code lookupTtlMs}: how long a look-up's answer
 * is used; {@code writingRecheckMs}, {@code writingWaitMaxMs}: how often, and how long, an item
 * another process is writing is asked about again before it is computed here instead.
 */
record Settings(ConnectorRole role, boolean recomputeOnLoadFailure, long lookupTtlMs, long writingRecheckMs,
        long writingWaitMaxMs, int replicas) {
    Settings {
        if (lookupTtlMs < 0 || writingRecheckMs < 1 || writingWaitMaxMs < 0 || replicas < 1) {
            throw new IllegalArgumentException("lookup.ttl.ms and writing.wait.max.ms must be >= 0, "
                    + "writing.recheck.ms and replicas >= 1");
        }
    }

    static Settings of(HiddenStateConnector.Config c) {
        String onFailure = c.load_failure().trim().toLowerCase(java.util.Locale.ROOT);
        if (!onFailure.equals("recompute") && !onFailure.equals("fail")) {
            throw new IllegalArgumentException("load.failure must be recompute or fail, was " + c.load_failure());
        }
        return new Settings(ConnectorRole.parse(c.role()), onFailure.equals("recompute"), c.lookup_ttl_ms(),
                c.writing_recheck_ms(), c.writing_wait_max_ms(), c.replicas());
    }
}
