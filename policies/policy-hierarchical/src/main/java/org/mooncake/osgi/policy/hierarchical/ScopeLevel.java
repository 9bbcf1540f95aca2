package org.mooncake.osgi.policy.hierarchical;

import java.util.Locale;

import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;

/** A level of the scope tree and how a candidate's scope at that level is named. */
enum ScopeLevel {
    TENANT, TYPE, PRIORITY;

    static final String UNPINNED = "unpinned";
    static final String SOFT_PINNED = "soft-pinned";

    static ScopeLevel parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown scope level '" + s + "': use tenant, type or priority");
        }
    }

    /** The scope of a whole group at this level; null for {@link #PRIORITY}, which splits groups. */
    String of(CandidateGroup g) {
        return switch (this) {
            case TENANT -> g.tenant();
            case TYPE -> g.dataType().name();
            case PRIORITY -> null;
        };
    }

    static String priorityOf(CandidateView c, long nowMs) {
        return c.softPinnedAt(nowMs) ? SOFT_PINNED : UNPINNED;
    }

    String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
