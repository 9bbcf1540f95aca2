package org.mooncake.osgi.benchmarks.policy;

import org.mooncake.osgi.policy.costaware.CostAwarePolicy;
import org.mooncake.osgi.store.spi.eviction.AccessObserver;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/**
 * A benchmark policy built around a cost-aware ranking it does not register on its own: it
 * passes the master's events on, so that the ranking learns as it would in a container.
 */
interface ForwardsLearning extends AccessObserver {
    /** The ranking that learns. */
    CostAwarePolicy learner();

    @Override
    default void hit(CandidateView object, long previousAccessMs, long nowMs) {
        learner().hit(object, previousAccessMs, nowMs);
    }

    @Override
    default void written(CandidateView object, long nowMs) {
        learner().written(object, nowMs);
    }

    @Override
    default void evicted(CandidateView object, long nowMs) {
        learner().evicted(object, nowMs);
    }

    @Override
    default void evicted(CandidateView[] victims, int count, long nowMs) {
        learner().evicted(victims, count, nowMs);
    }
}
