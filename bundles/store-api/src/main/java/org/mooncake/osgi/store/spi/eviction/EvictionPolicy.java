package org.mooncake.osgi.store.spi.eviction;

import java.util.Iterator;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Plans which objects to evict. Register as an OSGi service with {@link #NAME_PROPERTY}; the
 * master uses the one its configuration names, or else the highest-ranked.
 *
 * <p>A policy only reads: it never mutates metadata. It is called from the master's eviction
 * thread, one pass at a time, and may keep its own state between calls.
 */
@ConsumerType
public interface EvictionPolicy {
    /** Service property naming the policy, e.g. {@code lease-lru}. */
    String NAME_PROPERTY = "eviction.policy.name";

    String name();

    /** The policy and the settings it plans with now, for operators (shell, logs). */
    default String describe() {
        return name();
    }

    /**
     * What the policy has learned, as named figures for metrics (since 1.4): names in
     * {@code snake_case}, values finite; a figure not known yet is left out. Called from any
     * thread; must be cheap and must not wait for a round.
     */
    default Map<String, Double> learned() {
        return Map.of();
    }

    /**
     * Victims in the order they should go, lazily. Only candidates for which
     * {@link EvictionRequest#eligible} holds may be returned; the master stops pulling once its
     * target is met, so a policy should do its work as the iterator advances.
     */
    Iterator<CandidateView> plan(EvictionRequest request);
}
