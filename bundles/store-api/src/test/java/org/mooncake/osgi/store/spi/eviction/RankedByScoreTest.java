package org.mooncake.osgi.store.spi.eviction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

class RankedByScoreTest {
    /** A candidate with a lease, a sequence and a score; nothing else matters here. */
    private record View(long lease, long sequence, double value) implements CandidateView {
        @Override
        public ObjectKey key() {
            return ObjectKey.of("k" + sequence);
        }

        @Override
        public ObjectDataType dataType() {
            return ObjectDataType.KVCACHE;
        }

        @Override
        public long sizeBytes() {
            return 1;
        }

        @Override
        public double recomputeCostMs() {
            return Double.NaN;
        }

        @Override
        public long softPinDeadlineMs() {
            return 0;
        }

        @Override
        public long leaseExpiresAtMs() {
            return lease;
        }

        @Override
        public long putTimeMs() {
            return 0;
        }

        @Override
        public long lastAccessMs() {
            return lease;
        }

        @Override
        public long hitCount() {
            return 0;
        }

        @Override
        public String groupId() {
            return null;
        }
    }

    private static List<CandidateView> random(long seed, int n) {
        return random(seed, n, 5);
    }

    /** {@code n} candidates with scores among {@code distinct} values, many leases shared. */
    private static List<CandidateView> random(long seed, int n, int distinct) {
        Random rnd = new Random(seed);
        List<CandidateView> views = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            views.add(new View(rnd.nextInt(n / 4 + 1), i, rnd.nextInt(distinct) - distinct / 2));
        }
        views.sort(Candidates.LEASE_ORDER);
        return views;
    }

    private static List<CandidateView> drain(Iterator<CandidateView> it) {
        List<CandidateView> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    @RepeatedTest(5)
    void ranksByScoreThenByTheTieBreakAsAFullSortWould(RepetitionInfo r) {
        List<CandidateView> views = random(r.getCurrentRepetition(), 2000);
        for (Comparator<CandidateView> tie : List.of(Candidates.LEASE_ORDER, Candidates.LEASE_THEN_NEWEST,
                Comparator.comparingLong(CandidateView::sequence).reversed())) {
            List<CandidateView> expected = new ArrayList<>(views);
            expected.sort(Comparator.comparingDouble((CandidateView v) -> -((View) v).value()).thenComparing(tie));
            assertEquals(expected, drain(Candidates.rankedByScore(views.iterator(), v -> ((View) v).value(), tie, 10_000)));
        }
    }

    /**
     * Few distinct scores take a counting sort, more than {@link ScoreRanks#MAX_DISTINCT} the key
     * sort: around the switch and far beyond it, with every tie-break, the order is a full sort's.
     */
    @Test
    void theCountingSortAndTheKeySortBothGiveTheFullSortsOrder() {
        int[] distincts = {1, 2, ScoreRanks.MAX_DISTINCT - 1, ScoreRanks.MAX_DISTINCT, ScoreRanks.MAX_DISTINCT + 1, 1_000_000};
        for (int distinct : distincts) {
            List<CandidateView> views = random(distinct, 6000, distinct);
            for (Comparator<CandidateView> tie : List.of(Candidates.LEASE_ORDER, Candidates.LEASE_THEN_NEWEST,
                    Comparator.comparingLong(CandidateView::sequence).reversed())) {
                List<CandidateView> expected = new ArrayList<>(views);
                expected.sort(Comparator.comparingDouble((CandidateView v) -> -((View) v).value()).thenComparing(tie));
                assertEquals(expected, drain(Candidates.rankedByScore(views.iterator(), v -> ((View) v).value(), tie, 10_000)),
                        distinct + " distinct scores");
            }
        }
    }

    @RepeatedTest(5)
    void bothSortsAgreeOnOrderAndRuns(RepetitionInfo r) {
        Random rnd = new Random(r.getCurrentRepetition());
        int n = 3000;
        int[] scores = new int[n];
        int[] scannedAt = new int[n];
        CandidateView[] scanned = new CandidateView[n];
        for (int i = 0; i < n; i++) {
            scores[i] = rnd.nextInt(40) * 0x0100_0001 - 7; // spread over the int range, negative ones too
            scannedAt[i] = i;
            scanned[i] = new View(i, i, 0);
        }
        for (int i = n - 1; i > 0; i--) { // a permutation, as lease runs make one
            int j = rnd.nextInt(i + 1);
            int t = scannedAt[i];
            scannedAt[i] = scannedAt[j];
            scannedAt[j] = t;
        }
        CandidateView[] counted = new CandidateView[n];
        CandidateView[] keyed = new CandidateView[n];
        int[] countedRuns = ScoreRanks.sortStable(scores, scannedAt, scanned, counted);
        int[] keyedRuns = ScoreRanks.sortKeys(scores, scannedAt, scanned, keyed);
        assertEquals(List.of(keyed), List.of(counted));
        assertEquals(java.util.Arrays.toString(keyedRuns), java.util.Arrays.toString(countedRuns));
        assertEquals(41, countedRuns.length, "40 runs of equal scores and the end");
    }

    /**
     * Streaming above a cut: within the scanned window, candidates scoring above it come first,
     * in lease order and by the lease tie-break within one lease (newest first for
     * LEASE_THEN_NEWEST); then the others in the order a full ranking gives them; then the unread
     * rest. Each one handed out is reported with its score (positive infinity past the window: no cut for a next round). With no cut
     * (positive infinity), or a tie-break other than the lease ones, the order is the plain ranking's.
     */
    @RepeatedTest(5)
    void candidatesAboveTheCutStreamInSourceOrderAndTheRestAreRanked(RepetitionInfo r) {
        List<CandidateView> views = random(100 + r.getCurrentRepetition(), 2000, 9); // scores -4 .. 4
        for (Comparator<CandidateView> tie : List.of(Candidates.LEASE_ORDER, Candidates.LEASE_THEN_NEWEST,
                Comparator.comparingLong(CandidateView::sequence).reversed())) {
            int window = 1500;
            List<CandidateView> inWindow = views.subList(0, window);
            boolean streams = tie == Candidates.LEASE_ORDER || tie == Candidates.LEASE_THEN_NEWEST;
            List<CandidateView> expected = new ArrayList<>(inWindow.stream().filter(v -> streams && ((View) v).value() > 1.5)
                    .sorted(tie).toList());
            List<CandidateView> ranked = new ArrayList<>(inWindow.stream().filter(v -> !streams || ((View) v).value() <= 1.5)
                    .toList());
            ranked.sort(Comparator.comparingDouble((CandidateView v) -> -((View) v).value()).thenComparing(tie));
            expected.addAll(ranked);
            expected.addAll(views.subList(window, views.size()));
            List<Double> reported = new ArrayList<>();
            List<CandidateView> got = drain(Candidates.rankedByScore(views.iterator(), v -> ((View) v).value(), tie, window,
                    1.5, reported::add));
            assertEquals(expected.size(), got.size());
            for (int i = 0; i < expected.size(); i++) { // element by element: a failure names the place, not two lists of 2,000
                assertEquals(expected.get(i), got.get(i), "position " + i);
            }
            List<Double> scores = new ArrayList<>(expected.subList(0, window).stream().map(v -> ((View) v).value()).toList());
            views.subList(window, views.size()).forEach(v -> scores.add(Double.POSITIVE_INFINITY));
            assertEquals(scores.size(), reported.size());
            for (int i = 0; i < scores.size(); i++) {
                assertEquals(scores.get(i), reported.get(i), "the score reported at position " + i);
            }

            assertEquals(drain(Candidates.rankedByScore(views.iterator(), v -> ((View) v).value(), tie, window)),
                    drain(Candidates.rankedByScore(views.iterator(), v -> ((View) v).value(), tie, window,
                            Double.POSITIVE_INFINITY, x -> { })), "no cut, no streaming");
        }
    }

    /**
     * Streamed candidates are handed out before the window is read to its end (that is the
     * point), once the candidates of their lease are all read (the tie-break orders those).
     */
    @Test
    void aStreamedCandidateIsHandedOutBeforeTheWindowIsRead() {
        List<CandidateView> views = random(3, 1000);
        int[] read = new int[1];
        Iterator<CandidateView> source = new Iterator<>() {
            final Iterator<CandidateView> it = views.iterator();

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public CandidateView next() {
                read[0]++;
                return it.next();
            }
        };
        Iterator<CandidateView> out = Candidates.rankedByScore(source, v -> ((View) v).value(), Candidates.LEASE_ORDER, 1000,
                0.5, x -> { });
        CandidateView first = out.next();
        assertEquals(views.stream().filter(v -> ((View) v).value() > 0.5).findFirst().orElseThrow(), first);
        int nextLease = views.indexOf(first);
        while (views.get(nextLease).leaseExpiresAtMs() == first.leaseExpiresAtMs()) {
            nextLease++;
        }
        assertEquals(nextLease + 1, read[0], "read to the end of the first streamed candidate's lease, no further");
    }

    @Test
    void rankingStopsAtTheScanLimitAndTheRestFollowsInSourceOrder() {
        List<CandidateView> views = random(9, 100);
        List<CandidateView> out = drain(Candidates.rankedByScore(views.iterator(), v -> ((View) v).value(),
                Candidates.LEASE_ORDER, 30));
        assertEquals(views.subList(30, 100), out.subList(30, 100));
        List<CandidateView> head = new ArrayList<>(views.subList(0, 30));
        head.sort(Comparator.comparingDouble((CandidateView v) -> -((View) v).value()).thenComparing(Candidates.LEASE_ORDER));
        assertEquals(head, out.subList(0, 30));
    }

    /** A few sources take the linear merge, more than eight the heap: both must give the full sort. */
    @Test
    void aMergeOfSortedSourcesIsSortedForFewAndManySources() {
        List<CandidateView> views = random(11, 3000);
        Random rnd = new Random(5);
        for (int k : new int[] {1, 2, 3, 8, 9, 40}) {
            List<List<CandidateView>> parts = new ArrayList<>();
            for (int i = 0; i < k; i++) {
                parts.add(new ArrayList<>());
            }
            views.forEach(v -> parts.get(rnd.nextInt(k)).add(v)); // each part stays sorted
            parts.get(0).clear(); // an empty source among them
            List<Iterator<CandidateView>> sources = new ArrayList<>();
            parts.forEach(p -> sources.add(p.iterator()));
            List<CandidateView> expected = new ArrayList<>();
            parts.forEach(expected::addAll);
            expected.sort(Candidates.LEASE_ORDER);
            assertEquals(expected, drain(Candidates.merge(sources, Candidates.LEASE_ORDER)), k + " sources");
        }
    }
}
