package org.mooncake.osgi.store.admin.impl;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.spi.health.Health;
import org.mooncake.osgi.store.spi.health.HealthSource;

/**
 * The one {@code /health} answer of a process: the master and the store client where it has
 * them, and every {@link HealthSource} (an encoder, a proxy, ...) under its name in
 * {@code roles}. UP with 200 only when every part is up: a store client needs a master and must
 * be healthy, and every source must say it is up. A process with none of these parts serves
 * nothing and is DOWN; one with sources and no store (the EPD proxy) is judged by its sources.
 */
final class HealthReport {
    private static final System.Logger LOG = System.getLogger(HealthReport.class.getName());

    /** Sources whose last probe threw: one that keeps failing is logged when it starts to, not at every probe. */
    private final Set<HealthSource> failing = ConcurrentHashMap.newKeySet();

    Answer answer(Parts p) {
        StoreClient c = p.client();
        boolean clientHealthy = c != null && c.isHealthy();
        boolean up = (c == null || (p.master() != null && clientHealthy))
                && (p.master() != null || c != null || !p.healthSources().isEmpty());
        Map<String, Map<String, Object>> roles = new TreeMap<>();
        for (HealthSource s : p.healthSources()) {
            Map<String, Object> role = role(s);
            up &= (Boolean) role.get("up");
            roles.put(uniqueName(roles, s), role);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", up ? "UP" : "DOWN");
        body.put("master", p.master() != null);
        body.put("client", c == null ? "absent" : clientHealthy ? "healthy" : "unhealthy");
        body.put("roles", roles);
        return Answer.json(up ? 200 : 503, body);
    }

    /** {@code up}, then the source's details; a source that throws or answers nothing is down, with why. */
    private Map<String, Object> role(HealthSource s) {
        Map<String, Object> role = new LinkedHashMap<>();
        Health h;
        try {
            h = s.health();
            if (h == null) {
                throw new IllegalStateException("health() returned null");
            }
            failing.remove(s);
        } catch (RuntimeException e) {
            if (failing.add(s)) {
                LOG.log(Level.WARNING, "health source " + s.getClass().getName() + " failed; reported DOWN until it answers", e);
            }
            role.put("up", false);
            role.put("error", e.toString());
            return role;
        }
        role.put("up", h.up());
        h.details().forEach((k, v) -> {
            if (!"up".equals(k)) {
                role.put(k, v);
            }
        });
        return role;
    }

    /** The source's name; a second source of the same name is listed as {@code name#2}, so neither hides the other. */
    private static String uniqueName(Map<String, ?> taken, HealthSource s) {
        String name;
        try {
            name = s.name();
        } catch (RuntimeException e) {
            name = null;
        }
        if (name == null || name.isBlank()) {
            name = s.getClass().getName();
        }
        String unique = name;
        for (int n = 2; taken.containsKey(unique); n++) {
            unique = name + "#" + n;
        }
        return unique;
    }
}
