package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** What UCX offers on this host with every transport allowed: named when a configured one is missing. */
final class Probe {
    private static volatile Tls resources;

    private Probe() {
    }

    /** The transports ("posix", "tcp") of a context with UCX_TLS=all, probed once per process. */
    static Tls resources() {
        Tls r = resources;
        if (r == null) {
            resources = r = probe();
        }
        return r;
    }

    static String offered() {
        Tls r = resources();
        return r.resources.isEmpty() ? "nothing" : String.join(", ", r.resources);
    }

    private static synchronized Tls probe() {
        if (resources != null) {
            return resources;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment configOut = a.allocate(ADDRESS);
            Ucx.check(Ucx.configRead(configOut), "ucp_config_read");
            MemorySegment config = configOut.get(ADDRESS, 0);
            MemorySegment params = a.allocate(Ucx.PARAMS_SIZE);
            params.set(JAVA_LONG, 0, Ucx.PARAM_FIELD_FEATURES);
            params.set(JAVA_LONG, 8, Ucx.FEATURE_RMA | Ucx.FEATURE_WAKEUP);
            MemorySegment ctxOut = a.allocate(ADDRESS);
            byte status;
            try {
                Ucx.check(Ucx.configModify(config, a.allocateFrom("TLS"), a.allocateFrom("all")), "UCX_TLS=all");
                status = Ucx.init(params, config, ctxOut);
            } finally {
                Ucx.configRelease(config);
            }
            Ucx.check(status, "ucp_init with every transport");
            MemorySegment ctx = ctxOut.get(ADDRESS, 0);
            try {
                return Tls.of(Ucx.contextInfo(ctx));
            } finally {
                Ucx.cleanup(ctx);
            }
        }
    }
}
