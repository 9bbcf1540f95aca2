package org.mooncake.osgi.epd.proxy.impl;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The proxy's settings, checked: every value is valid once a {@code ProxySettings} exists, so a
 * broken configuration fails here, with the property's name, before anything is changed.
 *
 * @param workers         the instances the configuration names, per role (in order, no duplicates)
 * @param probeInterval   pause between two liveness rounds
 * @param probeTimeout    how long one {@code GET /health} (and one {@code GET /v1/models}) may take
 * @param failThreshold   consecutive failed probes after which an instance is unhealthy
 * @param encodeTimeout   one encode attempt, request sent to answer read
 * @param prefillTimeout  one prefill attempt
 * @param decodeTimeout   one decode attempt: the whole answer, or the first streamed event
 * @param streamIdleTimeout longest silence between two streamed events once streaming started
 * @param maxBodyBytes    largest request body accepted
 * @param models          a static model list; empty: the union of what the workers report
 * @param modelsCacheTtl  how long that union is reused
 */
record ProxySettings(Map<Role, List<URI>> workers, Duration probeInterval, Duration probeTimeout, int failThreshold,
        Duration encodeTimeout, Duration prefillTimeout, Duration decodeTimeout, Duration streamIdleTimeout,
        long maxBodyBytes, List<String> models, Duration modelsCacheTtl) {

    /** 64 MiB: a few base64 images fit. */
    static final long DEFAULT_MAX_BODY_BYTES = 64L << 20;

    ProxySettings {
        EnumMap<Role, List<URI>> copy = new EnumMap<>(Role.class);
        for (Role r : Role.values()) {
            copy.put(r, List.copyOf(workers == null ? List.of() : workers.getOrDefault(r, List.of())));
        }
        workers = Map.copyOf(copy);
        positive("probe.interval.ms", probeInterval);
        positive("probe.timeout.ms", probeTimeout);
        positive("encode.timeout.ms", encodeTimeout);
        positive("prefill.timeout.ms", prefillTimeout);
        positive("decode.timeout.ms", decodeTimeout);
        positive("stream.idle.timeout.ms", streamIdleTimeout);
        positive("models.cache.ms", modelsCacheTtl);
        if (failThreshold < 1) {
            throw new IllegalArgumentException("fail.threshold must be at least 1, was " + failThreshold);
        }
        if (maxBodyBytes < 1024 || maxBodyBytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("max.body.bytes must be 1024 to " + (Integer.MAX_VALUE - 16)
                    + ", was " + maxBodyBytes);
        }
        models = List.copyOf(models == null ? List.of() : models);
    }

    /** Every default, and no configured instance. */
    static ProxySettings defaults() {
        return new ProxySettings(Map.of(), Duration.ofSeconds(5), Duration.ofSeconds(2), 3, Duration.ofSeconds(60),
                Duration.ofSeconds(60), Duration.ofSeconds(300), Duration.ofSeconds(60), DEFAULT_MAX_BODY_BYTES, List.of(),
                Duration.ofSeconds(10));
    }

    /** These settings with other configured instances (tests and the component). */
    ProxySettings withWorkers(Map<Role, List<URI>> next) {
        return new ProxySettings(next, probeInterval, probeTimeout, failThreshold, encodeTimeout, prefillTimeout,
                decodeTimeout, streamIdleTimeout, maxBodyBytes, models, modelsCacheTtl);
    }

    /** The timeout of one attempt of {@code stage}. */
    Duration timeout(Role stage) {
        return switch (stage) {
            case ENCODE -> encodeTimeout;
            case PREFILL -> prefillTimeout;
            case DECODE -> decodeTimeout;
        };
    }

    /**
     * The URLs of a configuration property: each entry may itself hold several, separated by
     * commas or white space (a {@code .cfg} file's {@code encode.urls=http://a:1,http://b:2} reaches
     * the component as one string); blanks are skipped, duplicates dropped.
     */
    static List<URI> urls(String property, String[] entries) {
        Set<URI> out = new LinkedHashSet<>();
        for (String entry : entries == null ? new String[0] : entries) {
            for (String one : (entry == null ? "" : entry).split("[,\\s]+")) {
                if (!one.isBlank()) {
                    try {
                        out.add(workerUrl(one));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    /** The model names of the {@code models} property (same splitting as {@link #urls}). */
    static List<String> names(String[] entries) {
        Set<String> out = new LinkedHashSet<>();
        for (String entry : entries == null ? new String[0] : entries) {
            for (String one : (entry == null ? "" : entry).split("[,\\s]+")) {
                if (!one.isBlank()) {
                    out.add(one);
                }
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * A worker's base URL: absolute {@code http} or {@code https} with a host, no query or
     * fragment; a trailing slash is dropped so paths can be appended.
     */
    static URI workerUrl(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("worker URL is empty");
        }
        String t = text.trim();
        while (t.endsWith("/")) {
            t = t.substring(0, t.length() - 1);
        }
        URI u;
        try {
            u = new URI(t);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + text);
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("worker URL must be http:// or https://, was " + text);
        }
        if (u.getHost() == null || u.getHost().isEmpty()) {
            throw new IllegalArgumentException("worker URL has no host: " + text);
        }
        if (u.getRawQuery() != null || u.getRawFragment() != null || u.getRawUserInfo() != null) {
            throw new IllegalArgumentException("worker URL must not carry a query, fragment or user: " + text);
        }
        return u;
    }

    private static void positive(String property, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(property + " must be positive, was " + (d == null ? null : d.toMillis()));
        }
    }

    @Override
    public String toString() {
        return "workers=" + workers + ", probe=" + probeInterval.toMillis() + "/" + probeTimeout.toMillis() + " ms x"
                + failThreshold + ", timeouts E/P/D/idle=" + encodeTimeout.toMillis() + "/" + prefillTimeout.toMillis()
                + "/" + decodeTimeout.toMillis() + "/" + streamIdleTimeout.toMillis() + " ms, maxBody=" + maxBodyBytes
                + ", models=" + (models.isEmpty() ? "(from workers)" : Arrays.toString(models.toArray()));
    }
}
