package org.mooncake.osgi.epd.proxy.impl;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker instances and their health.
 *
 * <p><b>Threads.</b> Writers are the REST threads ({@code POST}/{@code DELETE /instances}), the
 * configuration thread ({@link #syncConfigured}) and the probe thread ({@link #recordProbe}); they
 * serialize on {@code lock}, change a private map and publish a new immutable {@link Snapshot}
 * through one volatile write. Readers (routing on request threads, {@code /health},
 * {@code /metrics}, {@code GET /instances}) read that volatile once and take no lock. Round-robin
 * cursors are atomics outside the snapshot, so they survive changes.
 */
final class InstanceRegistry {

    /**
     * What the registry held at one moment.
     *
     * @param version bumped by every change of membership or health (the model cache keys on it)
     * @param all     every instance, in registration order
     * @param healthy the healthy instances per role, in registration order
     */
    record Snapshot(long version, List<Instance> all, Map<Role, List<Instance>> healthy) {
        static final Snapshot EMPTY = of(0, List.of());

        static Snapshot of(long version, Collection<Instance> instances) {
            Map<Role, List<Instance>> healthy = new EnumMap<>(Role.class);
            for (Role r : Role.values()) {
                healthy.put(r, instances.stream().filter(i -> i.role() == r && i.healthy()).toList());
            }
            return new Snapshot(version, List.copyOf(instances), Map.copyOf(healthy));
        }

        List<Instance> healthy(Role role) {
            return healthy.get(role);
        }
    }

    /** The outcome of a registration: the instance and whether it is new. */
    record Registration(Instance instance, boolean created) {
    }

    private final Object lock = new Object();
    /** Guarded by {@code lock}; insertion order is registration order. */
    private final Map<String, Instance> byId = new LinkedHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Map<Role, AtomicLong> cursors = new EnumMap<>(Role.class);
    private volatile Snapshot snapshot = Snapshot.EMPTY;

    InstanceRegistry() {
        for (Role r : Role.values()) {
            cursors.put(r, new AtomicLong());
        }
    }

    Snapshot snapshot() {
        return snapshot;
    }

    /** Registers {@code url} as a {@code role} instance; the same role and URL again returns the existing one. */
    Registration add(Role role, URI url, String source) {
        synchronized (lock) {
            Instance existing = find(role, url);
            if (existing != null) {
                return new Registration(existing, false);
            }
            Instance i = Instance.fresh(role.wire + "-" + ids.incrementAndGet(), role, url, source);
            byId.put(i.id(), i);
            publish();
            return new Registration(i, true);
        }
    }

    /** Removes the instance {@code id}; false when there is none. */
    boolean remove(String id) {
        synchronized (lock) {
            if (byId.remove(id) == null) {
                return false;
            }
            publish();
            return true;
        }
    }

    /**
     * Makes the configuration's instances exactly {@code workers}: configured instances no longer
     * named go, new ones come (healthy); those kept keep their id and health. Instances registered
     * through the API are left alone (a URL both name stays one instance).
     */
    void syncConfigured(Map<Role, List<URI>> workers) {
        synchronized (lock) {
            boolean changed = byId.values().removeIf(i -> Instance.FROM_CONFIG.equals(i.source())
                    && !workers.getOrDefault(i.role(), List.of()).contains(i.url()));
            for (Map.Entry<Role, List<URI>> e : workers.entrySet()) {
                for (URI url : e.getValue()) {
                    if (find(e.getKey(), url) == null) {
                        Instance i = Instance.fresh(e.getKey().wire + "-" + ids.incrementAndGet(), e.getKey(), url,
                                Instance.FROM_CONFIG);
                        byId.put(i.id(), i);
                        changed = true;
                    }
                }
            }
            if (changed) {
                publish();
            }
        }
    }

    /**
     * Records a probe of {@code probed} (the value the probe started from). Ignored when the
     * instance was removed meanwhile.
     */
    void recordProbe(Instance probed, boolean ok, String error, Instant at, int threshold) {
        synchronized (lock) {
            Instance now = byId.get(probed.id());
            if (now == null) {
                return;
            }
            Instance next = now.probed(ok, error, at, threshold);
            byId.put(next.id(), next);
            if (next.healthy() != now.healthy()) {
                publish();
            } else {
                // the probe figures changed, not routing: same version, fresh view for GET /instances
                snapshot = Snapshot.of(snapshot.version(), byId.values());
            }
        }
    }

    /**
     * The next healthy {@code role} instance round-robin, skipping {@code excluded} ids; null when
     * there is none. Lock-free.
     */
    Instance pick(Role role, Set<String> excluded) {
        List<Instance> healthy = snapshot.healthy(role);
        List<Instance> candidates = healthy;
        if (!excluded.isEmpty()) {
            candidates = new ArrayList<>(healthy.size());
            for (Instance i : healthy) {
                if (!excluded.contains(i.id())) {
                    candidates.add(i);
                }
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        long n = cursors.get(role).getAndIncrement();
        return candidates.get((int) Math.floorMod(n, (long) candidates.size()));
    }

    private Instance find(Role role, URI url) {
        for (Instance i : byId.values()) {
            if (i.role() == role && i.url().equals(url)) {
                return i;
            }
        }
        return null;
    }

    private void publish() {
        snapshot = Snapshot.of(snapshot.version() + 1, byId.values());
    }
}
