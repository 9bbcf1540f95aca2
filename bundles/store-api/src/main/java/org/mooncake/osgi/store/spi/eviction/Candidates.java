package org.mooncake.osgi.store.spi.eviction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.DoubleConsumer;
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
        return rankedByScore(leaseOrdered, score, tieBreak, maxScanned, Double.POSITIVE_INFINITY, s -> { });
    }

    /**
     * As {@link #rankedByScore(Iterator, ToDoubleFunction, Comparator, int)}, for a ranking that
     * knows about where its last round stopped: candidates scoring above {@code streamAbove} are
     * yielded as the scan meets them, in source order, while their entry is still in cache, and
     * the others are ranked as that method ranks them and follow, then the unread rest. A round
     * at 10^6 objects otherwise reads every victim twice, once to score it and once, after the
     * whole window is ranked, to claim it; by then the scan has moved it out of cache. Where
     * every candidate above {@code streamAbove} is taken anyway (it is where the last round
     * stopped, and the scores did not move), the victims are the same; only their order differs.
     * {@code yielded} is told the score of each candidate handed out, and positive infinity for
     * the unread rest (unscored), so that the last value it was told is the {@code streamAbove}
     * for the caller's next round: none after a round that went past its scan. With
     * {@code streamAbove} positive infinity nothing streams and the order is the other method's.
     */
    public static Iterator<CandidateView> rankedByScore(Iterator<CandidateView> leaseOrdered,
            ToDoubleFunction<CandidateView> score, Comparator<CandidateView> tieBreak, int maxScanned, double streamAbove,
            DoubleConsumer yielded) {
        return new Ranking(leaseOrdered, score, tieBreak, Math.max(maxScanned, 0), streamAbove, yielded);
    }

    /** Descending score as an ascending int: negated, then float bits made to sort as ints. */
    private static int key(double score) {
        int bits = Float.floatToIntBits((float) -score + 0.0f);
        return bits ^ ((bits >> 31) & 0x7fffffff);
    }

    /** The score a {@link #key} stands for, at float precision. */
    private static double score(int key) {
        return -Float.intBitsToFloat(key ^ ((key >> 31) & 0x7fffffff)) + 0.0; // + 0.0: a score of 0 is not -0
    }

    /** One pass: streams what scores above the cut, keeps the rest in arrays, ranks those once the window is read. */
    private static final class Ranking extends Lookahead {
        private final Iterator<CandidateView> leaseOrdered;
        private final ToDoubleFunction<CandidateView> score;
        private final Comparator<CandidateView> tieBreak;
        private final int maxScanned;
        private final int cut;
        private final boolean streaming;
        private final DoubleConsumer yielded;
        private int read;
        // the window's candidates not streamed: one pass reads each candidate once, while it is
        // in cache; a scan of 10^5 candidates does not fit in cache, so later passes use these arrays
        private CandidateView[] kept = new CandidateView[0];
        private long[] leases = new long[0];
        private int[] keys = new int[0];
        private int n;
        private CandidateView[] ordered;
        private int[] runs;
        private int[] runKeys;
        private int at;
        private int run;

        Ranking(Iterator<CandidateView> leaseOrdered, ToDoubleFunction<CandidateView> score,
                Comparator<CandidateView> tieBreak, int maxScanned, double streamAbove, DoubleConsumer yielded) {
            this.leaseOrdered = leaseOrdered;
            this.score = score;
            this.tieBreak = tieBreak;
            this.maxScanned = maxScanned;
            // the source is in lease order: streaming can keep a lease tie-break (runs of one lease), no other
            this.streaming = streamAbove < Double.POSITIVE_INFINITY && (tieBreak == LEASE_ORDER || tieBreak == LEASE_THEN_NEWEST);
            this.cut = streaming ? key(streamAbove) : Integer.MIN_VALUE;
            this.yielded = yielded;
        }

        // Streamed candidates of one lease (read together: a session's blocks) are held until the
        // lease changes and handed out in tie-break order, so that LEASE_THEN_NEWEST evicts the
        // tail of a prefix chain before its head here too.
        private CandidateView[] sameLease = new CandidateView[16];
        private double[] sameLeaseScores = new double[16];
        private int sameLeaseCount;
        private long sameLeaseLease;
        private CandidateView[] handing = new CandidateView[16];
        private double[] handingScores = new double[16];
        private int handingCount;
        private int handed;

        @Override
        CandidateView computeNext() {
            if (ordered == null) {
                if (handed < handingCount) {
                    return handOut();
                }
                while (read < maxScanned && leaseOrdered.hasNext()) {
                    CandidateView c = leaseOrdered.next();
                    read++;
                    double s = score.applyAsDouble(c);
                    int k = key(s);
                    long lease = c.leaseExpiresAtMs();
                    boolean leaseEnded = sameLeaseCount > 0 && lease != sameLeaseLease;
                    if (leaseEnded) {
                        passOn();
                    }
                    if (streaming && k < cut) {
                        hold(c, s, lease);
                    } else {
                        keep(c, k);
                    }
                    if (leaseEnded) {
                        return handOut();
                    }
                }
                if (sameLeaseCount > 0) {
                    passOn();
                    return handOut();
                }
                rank();
            }
            if (at < n) {
                while (runs[run + 1] <= at) {
                    run++;
                }
                yielded.accept(score(runKeys[run]));
                return ordered[at++];
            }
            if (leaseOrdered.hasNext()) {
                yielded.accept(Double.POSITIVE_INFINITY);
                return leaseOrdered.next();
            }
            return null;
        }

        private void hold(CandidateView c, double s, long lease) {
            if (sameLeaseCount == sameLease.length) {
                sameLease = java.util.Arrays.copyOf(sameLease, 2 * sameLeaseCount);
                sameLeaseScores = java.util.Arrays.copyOf(sameLeaseScores, 2 * sameLeaseCount);
            }
            sameLease[sameLeaseCount] = c;
            sameLeaseScores[sameLeaseCount++] = s;
            sameLeaseLease = lease;
        }

        /** The held run of one lease becomes the one handed out (newest write first for LEASE_THEN_NEWEST). */
        private void passOn() {
            CandidateView[] views = handing;
            double[] scores = handingScores;
            handing = sameLease;
            handingScores = sameLeaseScores;
            handingCount = sameLeaseCount;
            handed = 0;
            sameLease = views;
            sameLeaseScores = scores;
            sameLeaseCount = 0;
            if (tieBreak == LEASE_THEN_NEWEST) {
                for (int i = 0, j = handingCount - 1; i < j; i++, j--) {
                    CandidateView v = handing[i];
                    handing[i] = handing[j];
                    handing[j] = v;
                    double t = handingScores[i];
                    handingScores[i] = handingScores[j];
                    handingScores[j] = t;
                }
            }
        }

        private CandidateView handOut() {
            yielded.accept(handingScores[handed]);
            CandidateView c = handing[handed];
            handing[handed++] = null;
            return c;
        }

        private void keep(CandidateView c, int k) {
            if (n == kept.length) {
                int grown = (int) Math.min(maxScanned, Math.max(1024, 2L * n));
                kept = java.util.Arrays.copyOf(kept, grown);
                leases = java.util.Arrays.copyOf(leases, grown);
                keys = java.util.Arrays.copyOf(keys, grown);
            }
            kept[n] = c;
            leases[n] = c.leaseExpiresAtMs();
            keys[n] = k;
            n++;
        }

        private void rank() {
            // Kept in lease order, so a key of (score, position) already breaks ties in lease
            // order; for LEASE_THEN_NEWEST, positions run backwards within each run of equal leases.
            boolean leaseTies = tieBreak == LEASE_ORDER || tieBreak == LEASE_THEN_NEWEST;
            int[] keptAt = new int[n];
            for (int runStart = 0; runStart < n;) {
                int runEnd = runStart + 1;
                while (runEnd < n && leases[runEnd] == leases[runStart]) {
                    runEnd++;
                }
                for (int i = runStart; i < runEnd; i++) {
                    keptAt[i] = tieBreak == LEASE_THEN_NEWEST ? runStart + runEnd - 1 - i : i;
                }
                runStart = runEnd;
            }
            ordered = new CandidateView[n];
            runKeys = new int[n + 1];
            // runs[r]..runs[r + 1]: the r-th run of equal scores in the order
            runs = ScoreRanks.sortStable(keys, keptAt, kept, ordered, runKeys);
            if (!leaseTies) {
                for (int r = 0; r + 1 < runs.length; r++) {
                    if (runs[r + 1] - runs[r] > 1) {
                        java.util.Arrays.sort(ordered, runs[r], runs[r + 1], tieBreak);
                    }
                }
            }
            kept = null; // the ranked views are in ordered now
        }
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
