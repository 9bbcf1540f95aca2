package org.mooncake.osgi.store.spi.eviction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/** Lazy building blocks for plans over lease-ordered groups. */
public final class Candidates {
    /** Oldest lease first; ties broken by {@link CandidateView#sequence()} so plans are deterministic. */
    public static final Comparator<CandidateView> LEASE_ORDER = (a, b) -> {
        int c = Long.compare(a.leaseExpiresAtMs(), b.leaseExpiresAtMs());
        return c != 0 ? c : Long.compare(a.sequence(), b.sequence());
    };

    /**
     * Oldest lease first; among equal leases (objects read together) the newest write first, so
     * the tail of a prefix chain goes before its head.
     */
    public static final Comparator<CandidateView> LEASE_THEN_NEWEST = (a, b) -> {
        int c = Long.compare(a.leaseExpiresAtMs(), b.leaseExpiresAtMs());
        return c != 0 ? c : Long.compare(b.sequence(), a.sequence());
    };

    /** Upstream's order as a ranking: the longer ago the lease ended, the sooner it goes. */
    public static final CandidateRanking LEASE_RANKING = new CandidateRanking() {
        @Override
        public String name() {
            return "lease";
        }

        @Override
        public ToDoubleFunction<CandidateView> score(EvictionRequest request) {
            long now = request.nowMs();
            return c -> now - c.leaseExpiresAtMs();
        }

        @Override
        public boolean monotoneInLease() {
            return true;
        }
    };

    private Candidates() {
    }

    /** The first {@code max} elements of {@code source}. */
    public static Iterator<CandidateView> limit(Iterator<CandidateView> source, long max) {
        return new Iterator<>() {
            private long taken;

            @Override
            public boolean hasNext() {
                return taken < max && source.hasNext();
            }

            @Override
            public CandidateView next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                taken++;
                return source.next();
            }
        };
    }

    /** An iterator that finds its next element ahead of time; {@code null} means the end. */
    private abstract static class Lookahead implements Iterator<CandidateView> {
        private CandidateView next;
        private boolean done;

        /** The next element, or null when there is none. */
        abstract CandidateView computeNext();

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                next = computeNext();
                done = next == null;
            }
            return next != null;
        }

        @Override
        public CandidateView next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            CandidateView c = next;
            next = null;
            return c;
        }
    }

    /** Elements of {@code source} that satisfy {@code keep}. */
    public static Iterator<CandidateView> filter(Iterator<CandidateView> source, Predicate<CandidateView> keep) {
        return new Lookahead() {
            @Override
            CandidateView computeNext() {
                while (source.hasNext()) {
                    CandidateView c = source.next();
                    if (keep.test(c)) {
                        return c;
                    }
                }
                return null;
            }
        };
    }

    /** Stops {@code source} at the first element that fails {@code keepGoing}. */
    public static Iterator<CandidateView> takeWhile(Iterator<CandidateView> source, Predicate<CandidateView> keepGoing) {
        return new Lookahead() {
            @Override
            CandidateView computeNext() {
                if (source.hasNext()) {
                    CandidateView c = source.next();
                    if (keepGoing.test(c)) {
                        return c;
                    }
                }
                return null;
            }
        };
    }

    /**
     * A lazy k-way merge: if every source is sorted by {@code order}, so is the result. Costs
     * k - 1 comparisons per element taken for a few sources (a round merges one source per
     * group, usually a handful), O(log k) for many.
     */
    public static Iterator<CandidateView> merge(List<Iterator<CandidateView>> sources, Comparator<CandidateView> order) {
        if (sources.size() == 1) {
            return sources.getFirst();
        }
        return sources.size() <= 8 ? new SmallMerge(sources, order) : heapMerge(sources, order);
    }

    /** The merge of a few sources: the smallest head by a linear scan, nothing allocated per element. */
    private static final class SmallMerge implements Iterator<CandidateView> {
        private final Comparator<CandidateView> order;
        private final List<Iterator<CandidateView>> rest;
        private final CandidateView[] heads;

        SmallMerge(List<Iterator<CandidateView>> sources, Comparator<CandidateView> order) {
            this.order = order;
            this.rest = List.copyOf(sources);
            this.heads = new CandidateView[sources.size()];
            for (int i = 0; i < heads.length; i++) {
                heads[i] = rest.get(i).hasNext() ? rest.get(i).next() : null;
            }
        }

        @Override
        public boolean hasNext() {
            for (CandidateView h : heads) {
                if (h != null) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public CandidateView next() {
            int min = -1;
            for (int i = 0; i < heads.length; i++) {
                if (heads[i] != null && (min < 0 || order.compare(heads[i], heads[min]) < 0)) {
                    min = i;
                }
            }
            if (min < 0) {
                throw new NoSuchElementException();
            }
            CandidateView c = heads[min];
            Iterator<CandidateView> source = rest.get(min);
            heads[min] = source.hasNext() ? source.next() : null;
            return c;
        }
    }

    private static Iterator<CandidateView> heapMerge(List<Iterator<CandidateView>> sources, Comparator<CandidateView> order) {
        record Head(CandidateView view, Iterator<CandidateView> rest) {
        }
        PriorityQueue<Head> heads = new PriorityQueue<>(sources.size(), (a, b) -> order.compare(a.view, b.view));
        for (Iterator<CandidateView> s : sources) {
            if (s.hasNext()) {
                heads.add(new Head(s.next(), s));
            }
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !heads.isEmpty();
            }

            @Override
            public CandidateView next() {
                Head h = heads.poll();
                if (h == null) {
                    throw new NoSuchElementException();
                }
                if (h.rest.hasNext()) {
                    heads.add(new Head(h.rest.next(), h.rest));
                }
                return h.view;
            }
        };
    }

    /** Concatenates sources, each drained before the next. */
    public static Iterator<CandidateView> concat(List<Iterator<CandidateView>> sources) {
        List<Iterator<CandidateView>> queue = new ArrayList<>(sources);
        return new Iterator<>() {
            private int i;

            @Override
            public boolean hasNext() {
                while (i < queue.size() && !queue.get(i).hasNext()) {
                    i++;
                }
                return i < queue.size();
            }

            @Override
            public CandidateView next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return queue.get(i).next();
            }
        };
    }

    /**
     * Upstream's pass order under any ranking that is monotone in the lease within a group:
     * eligible objects not soft-pinned first, merged across groups by {@code order}; then, in
     * pass 2, the soft-pinned ones, merged likewise.
     */
    public static Iterator<CandidateView> unpinnedThenPinned(EvictionRequest request, Comparator<CandidateView> order) {
        List<Iterator<CandidateView>> unpinned = new ArrayList<>();
        List<Iterator<CandidateView>> pinned = new ArrayList<>();
        for (CandidateGroup g : request.groups()) {
            List<Iterator<CandidateView>> parts = eligibleByPin(g, request);
            unpinned.add(parts.get(0));
            if (parts.size() > 1) {
                pinned.add(parts.get(1));
            }
        }
        return concat(List.of(merge(unpinned, order), merge(pinned, order)));
    }

    /**
     * The eligible candidates of one group, oldest lease first, split so that each returned
     * iterator is sorted: index 0 holds objects not soft-pinned at {@code nowMs}, index 1 the
     * soft-pinned ones (empty in pass 1). Stops at the first leased object.
     */
    public static List<Iterator<CandidateView>> eligibleByPin(CandidateGroup group, EvictionRequest request) {
        long now = request.nowMs();
        Iterator<CandidateView> unpinned = eligible(group, request, c -> !c.softPinnedAt(now));
        if (!request.softPinnedAllowed()) {
            return List.of(unpinned);
        }
        return List.of(unpinned, eligible(group, request, c -> c.softPinnedAt(now)));
    }

    /**
     * The candidates of one group that this pass may plan and that pass {@code keep}, oldest
     * lease first. Stops at the first leased object.
     */
    public static Iterator<CandidateView> eligible(CandidateGroup group, EvictionRequest request,
            Predicate<CandidateView> keep) {
        long now = request.nowMs();
        Iterator<CandidateView> leaseOrdered = group.inLeaseOrder();
        // takeWhile and filter in one step: this loop runs for every candidate a round scans
        return new Lookahead() {
            @Override
            CandidateView computeNext() {
                while (leaseOrdered.hasNext()) {
                    CandidateView c = leaseOrdered.next();
                    if (c.leasedAt(now)) {
                        return null;
                    }
                    if (request.eligible(c) && keep.test(c)) {
                        return c;
                    }
                }
                return null;
            }
        };
    }

    /**
     * Candidates of {@code leaseOrdered} ranked by {@code score} (higher first, equal scores by
     * {@code tieBreak}). Reads at most {@code maxScanned} candidates of the source, ranks them and
     * yields them, followed by the unread rest in source order: the newest leases are the least
     * likely victims, so a bounded scan from the oldest end keeps a round's cost flat at scale
     * (the role sampling plays in Redis and LHD). Scores are compared at float precision; what
     * float cannot tell apart goes by the tie-break.
     */
    public static Iterator<CandidateView> rankedByScore(Iterator<CandidateView> leaseOrdered,
            ToDoubleFunction<CandidateView> score, Comparator<CandidateView> tieBreak, int maxScanned) {
        // One pass reads each candidate once, while it is in cache: a scan of 10^5 candidates
        // does not fit in cache, so every later pass works on these arrays only.
        int capacity = Math.min(Math.max(maxScanned, 0), 1024);
        CandidateView[] scanned = new CandidateView[capacity];
        long[] leases = new long[capacity];
        int[] scores = new int[capacity];
        int n = 0;
        while (n < maxScanned && leaseOrdered.hasNext()) {
            if (n == scanned.length) {
                int grown = (int) Math.min(maxScanned, 2L * n);
                scanned = java.util.Arrays.copyOf(scanned, grown);
                leases = java.util.Arrays.copyOf(leases, grown);
                scores = java.util.Arrays.copyOf(scores, grown);
            }
            CandidateView c = leaseOrdered.next();
            scanned[n] = c;
            leases[n] = c.leaseExpiresAtMs();
            // Descending score = ascending key: negate, then map float bits to a sortable int.
            int bits = Float.floatToIntBits((float) -score.applyAsDouble(c) + 0.0f);
            scores[n] = bits ^ ((bits >> 31) & 0x7fffffff);
            n++;
        }
        // The scan is in lease order, so a key of (score, position) already breaks ties in lease
        // order; for LEASE_THEN_NEWEST, positions run backwards within each run of equal leases.
        boolean leaseTies = tieBreak == LEASE_ORDER || tieBreak == LEASE_THEN_NEWEST;
        int[] scannedAt = new int[n];
        for (int runStart = 0; runStart < n;) {
            int runEnd = runStart + 1;
            while (runEnd < n && leases[runEnd] == leases[runStart]) {
                runEnd++;
            }
            for (int i = runStart; i < runEnd; i++) {
                scannedAt[i] = tieBreak == LEASE_THEN_NEWEST ? runStart + runEnd - 1 - i : i;
            }
            runStart = runEnd;
        }
        CandidateView[] ordered = new CandidateView[n];
        // runs[r]..runs[r + 1]: the r-th run of equal scores in the order
        int[] runs = ScoreRanks.sortStable(scores, scannedAt, scanned, ordered);
        if (!leaseTies) {
            for (int r = 0; r + 1 < runs.length; r++) {
                if (runs[r + 1] - runs[r] > 1) {
                    java.util.Arrays.sort(ordered, runs[r], runs[r + 1], tieBreak);
                }
            }
        }
        return concat(List.of(java.util.Arrays.asList(ordered).iterator(), leaseOrdered));
    }

    /** Every group's eligible candidates merged in lease order (soft-pinned ones too in pass 2). */
    public static Iterator<CandidateView> eligibleInLeaseOrder(List<CandidateGroup> groups, EvictionRequest request) {
        return eligibleInLeaseOrder(groups, request, c -> true);
    }

    /**
     * Every group's eligible candidates that pass {@code keep}, merged in lease order. Filtering
     * each group before the merge is cheaper than filtering the merged stream.
     */
    public static Iterator<CandidateView> eligibleInLeaseOrder(List<CandidateGroup> groups, EvictionRequest request,
            Predicate<CandidateView> keep) {
        List<Iterator<CandidateView>> sources = new ArrayList<>();
        for (CandidateGroup g : groups) {
            sources.add(eligible(g, request, keep));
        }
        return merge(sources, LEASE_ORDER);
    }
}
