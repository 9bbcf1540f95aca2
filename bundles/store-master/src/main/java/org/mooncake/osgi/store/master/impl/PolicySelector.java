package org.mooncake.osgi.store.master.impl;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.mooncake.osgi.store.spi.eviction.AccessObserver;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/**
 * The eviction policies on offer and the one in charge: the policy the configuration names if
 * it is present, else the highest {@code service.ranking} (oldest service on a tie). Any thread
 * may bind or unbind while the eviction thread reads; each round reads the selection once.
 */
public final class PolicySelector {
    /** A policy service as the framework offered it. */
    public record Offer(EvictionPolicy policy, String name, int ranking, long serviceId) {
    }

    private static final Comparator<Offer> PRECEDENCE = Comparator.comparingInt(Offer::ranking).reversed()
            .thenComparingLong(Offer::serviceId);

    private final List<Offer> offers = new CopyOnWriteArrayList<>();
    private volatile String preferred = "";
    /** The bound policies that learn from accesses; read on every get, so kept as an array. */
    private volatile AccessObserver[] observers = {};

    public void add(Offer o) {
        offers.add(o);
        refreshObservers();
    }

    public void remove(EvictionPolicy policy) {
        offers.removeIf(o -> o.policy == policy);
        refreshObservers();
    }

    private synchronized void refreshObservers() {
        observers = offers.stream().map(Offer::policy).filter(AccessObserver.class::isInstance)
                .map(AccessObserver.class::cast).distinct().toArray(AccessObserver[]::new);
    }

    /** Policies to tell about hits, writes and evictions; empty when none listens. */
    public AccessObserver[] observers() {
        return observers;
    }

    public void prefer(String name) {
        preferred = name == null ? "" : name.trim();
    }

    public String preferred() {
        return preferred;
    }

    /** The preferred policy's name while no bound policy has it; null when none is preferred or it is bound. */
    public String preferredMissing() {
        String want = preferred;
        return want.isEmpty() || offers.stream().anyMatch(o -> o.name.equals(want)) ? null : want;
    }

    /** The policy to plan the next pass, or null when none is bound. */
    public Offer current() {
        List<Offer> snapshot = new ArrayList<>(offers);
        String want = preferred;
        if (!want.isEmpty()) {
            for (Offer o : snapshot) {
                if (o.name.equals(want)) {
                    return o;
                }
            }
        }
        return snapshot.stream().min(PRECEDENCE).orElse(null);
    }

    public List<String> names() {
        return offers.stream().sorted(PRECEDENCE).map(Offer::name).toList();
    }
}
