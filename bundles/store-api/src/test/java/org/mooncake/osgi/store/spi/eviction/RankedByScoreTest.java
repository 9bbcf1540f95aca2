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
