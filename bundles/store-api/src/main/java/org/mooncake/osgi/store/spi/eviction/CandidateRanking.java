package org.mooncake.osgi.store.spi.eviction;

import java.util.Comparator;
import java.util.function.ToDoubleFunction;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A way to rank candidates inside one scope, for executors that compose policies (the
 * hierarchical policy's leaves). Register as a service with {@link #NAME_PROPERTY}.
 */
@ConsumerType
public interface CandidateRanking {
    /** Service property naming the ranking, e.g. {@code lease}. */
    String NAME_PROPERTY = "eviction.ranking.name";

    String name();

    /**
     * The score of each candidate for this pass: higher goes first. Read once per candidate, so
     * it may cost more than a comparison.
     */
    ToDoubleFunction<CandidateView> score(EvictionRequest request);

    /** Orders candidates of equal score; lease order unless a ranking knows better. */
    default Comparator<CandidateView> tieBreak() {
        return Candidates.LEASE_ORDER;
    }

    /**
     * True when, within one group, lease order is never against the score order, so an
     * executor may merge the groups' lease-ordered streams lazily instead of scoring and sorting.
     */
    default boolean monotoneInLease() {
        return false;
    }
}
