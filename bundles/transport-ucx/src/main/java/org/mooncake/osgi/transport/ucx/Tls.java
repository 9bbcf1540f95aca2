package org.mooncake.osgi.transport.ucx;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * The UCX transports (UCX_TLS) asked for and those a context got: a name asked for that no
 * resource answers fails, rather than UCX's quiet fall-back to the others; and what kind of path
 * (shared memory, RDMA, TCP) the context can take, for {@link Transport#cost}.
 */
final class Tls {
    /** UCX's aliases (ucp_context.c), by what they expand to. */
    private static final Map<String, List<String>> ALIASES = Map.of(
            "sm", List.of("posix", "sysv", "cma", "knem", "xpmem"),
            "shm", List.of("posix", "sysv", "cma", "knem", "xpmem"),
            "mm", List.of("posix", "sysv", "xpmem"),
            "ib", List.of("rc_verbs", "ud_verbs", "rc_mlx5", "ud_mlx5", "dc_mlx5"),
            "cuda", List.of("cuda_copy", "cuda_ipc", "gdr_copy"),
            "rocm", List.of("rocm_copy", "rocm_ipc", "rocm_gdr"));
    private static final Set<String> SHARED_MEMORY = Set.of("posix", "sysv", "cma", "knem", "xpmem");
    private static final Pattern RESOURCE = Pattern.compile("resource\\s+\\d+\\s*:.*--\\s+(\\S+)/(\\S+)");

    /** Each transport name ("posix", "tcp") of a context, from ucp_context_print_info. */
    final Set<String> resources;

    Tls(Set<String> resources) {
        this.resources = java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(resources));
    }

    static Tls of(String contextInfo) {
        Set<String> names = new LinkedHashSet<>();
        Matcher m = RESOURCE.matcher(contextInfo);
        while (m.find()) {
            names.add(m.group(1));
        }
        return new Tls(names);
    }

    /** The names in a UCX_TLS value that this context has no resource for ("" and "all" ask for nothing). */
    List<String> missing(String tls) {
        List<String> missing = new ArrayList<>();
        for (String t : tls.split(",")) {
            String name = t.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || name.equals("all") || name.startsWith("^")) {
                continue; // "^x" excludes: nothing to find
            }
            if (!provides(name.replace("\\", ""))) {
                missing.add(name);
            }
        }
        return missing;
    }

    private boolean provides(String name) {
        for (String r : resources) {
            if (r.equals(name) || r.startsWith(name + "_") || ALIASES.getOrDefault(name, List.of()).contains(r)) {
                return true;
            }
        }
        return false;
    }

    boolean sharedMemory() {
        return resources.stream().anyMatch(SHARED_MEMORY::contains);
    }

    boolean rdma() {
        return resources.stream().anyMatch(r -> r.startsWith("rc_") || r.startsWith("ud_") || r.startsWith("dc_"));
    }

    /** Whether another host can be reached at all. */
    boolean network() {
        return rdma() || resources.contains("tcp");
    }

    /**
     * Just behind the shm transport on one host when shared memory is configured; RDMA's level
     * across hosts; above TCP's level over TCP alone (ucx over TCP measured slower than the tcp
     * transport: see the README).
     */
    int cost(boolean sameHost) {
        if (sameHost && sharedMemory()) {
            return Transport.COST_SHARED_MEMORY + 10;
        }
        return rdma() ? Transport.COST_RDMA : Transport.COST_NETWORK + 50;
    }
}
