package org.mooncake.osgi.store.spi.eviction;

import java.util.Arrays;

/**
 * The stable sort behind {@link Candidates#rankedByScore}: candidates by score, then by position.
 * Rankings that score in steps (cost-aware's worth in factors of 4) give a round's 131,072
 * scanned candidates a few dozen distinct scores; a counting sort over those took 0.66 ms where
 * sorting the (score, position) keys took 8.3 ms with scores mixed in lease order, and 1.05 ms
 * when they rise with age ({@code RankingSortBenchmark}, which places no views). Rankings with
 * more than {@value #MAX_DISTINCT} distinct scores (a continuous age, say) take the key sort. Both
 * give the same order. In a round, placing the views costs more than sorting: see
 * docs/benchmarks.md, 'One eviction round'.
 */
final class ScoreRanks {
    static final int MAX_DISTINCT = 1024;
    private static final int SLOTS = 2 * MAX_DISTINCT; // a power of two, at most half full

    private ScoreRanks() {
    }

    /**
     * Fills {@code ordered} with {@code scanned[scannedAt[p]]} for every position {@code p}, by
     * ascending {@code scores[scannedAt[p]]}, equal scores by ascending {@code p}. Returns where
     * each run of equal scores starts in {@code ordered}, and {@code n} last.
     */
    static int[] sortStable(int[] scores, int[] scannedAt, CandidateView[] scanned, CandidateView[] ordered) {
        return sortStable(scores, scannedAt, scanned, ordered, null);
    }

    /** As {@link #sortStable(int[], int[], CandidateView[], CandidateView[])}; {@code runKeys}, if given (at least n + 1 long), gets each run's score. */
    static int[] sortStable(int[] scores, int[] scannedAt, CandidateView[] scanned, CandidateView[] ordered, int[] runKeys) {
        int n = ordered.length;
        int[] slotScore = new int[SLOTS];
        int[] slotRank = new int[SLOTS];
        boolean[] used = new boolean[SLOTS];
        int[] slotOf = new int[n];
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            int slot = slot(scores[i]);
            while (used[slot] && slotScore[slot] != scores[i]) {
                slot = (slot + 1) & (SLOTS - 1);
            }
            if (!used[slot]) {
                if (distinct == MAX_DISTINCT) {
                    return sortKeys(scores, scannedAt, scanned, ordered, runKeys);
                }
                used[slot] = true;
                slotScore[slot] = scores[i];
                distinct++;
            }
            slotOf[i] = slot;
        }
        int[] values = new int[distinct];
        for (int slot = 0, k = 0; slot < SLOTS; slot++) {
            if (used[slot]) {
                values[k++] = slotScore[slot];
            }
        }
        Arrays.sort(values);
        if (runKeys != null) {
            System.arraycopy(values, 0, runKeys, 0, distinct);
        }
        for (int r = 0; r < distinct; r++) {
            int slot = slot(values[r]);
            while (slotScore[slot] != values[r]) {
                slot = (slot + 1) & (SLOTS - 1);
            }
            slotRank[slot] = r;
        }
        int[] runs = new int[distinct + 1];
        for (int i = 0; i < n; i++) {
            runs[slotRank[slotOf[i]] + 1]++;
        }
        for (int r = 0; r < distinct; r++) {
            runs[r + 1] += runs[r];
        }
        int[] next = Arrays.copyOf(runs, distinct);
        for (int position = 0; position < n; position++) {
            int i = scannedAt[position];
            ordered[next[slotRank[slotOf[i]]]++] = scanned[i];
        }
        return runs;
    }

    private static int slot(int score) {
        return (score * 0x9E37_79B9) >>> (32 - Integer.numberOfTrailingZeros(SLOTS));
    }

    /** The general case: sorts (score, position) keys. */
    static int[] sortKeys(int[] scores, int[] scannedAt, CandidateView[] scanned, CandidateView[] ordered) {
        return sortKeys(scores, scannedAt, scanned, ordered, null);
    }

    private static int[] sortKeys(int[] scores, int[] scannedAt, CandidateView[] scanned, CandidateView[] ordered,
            int[] runKeys) {
        int n = ordered.length;
        long[] keys = new long[n];
        for (int position = 0; position < n; position++) {
            keys[position] = ((long) scores[scannedAt[position]] << 32) | position;
        }
        Arrays.sort(keys);
        int[] runs = new int[n + 1];
        int count = 0;
        for (int i = 0; i < n; i++) {
            ordered[i] = scanned[scannedAt[(int) keys[i]]];
            if (i == 0 || (keys[i] >>> 32) != (keys[i - 1] >>> 32)) {
                if (runKeys != null) {
                    runKeys[count] = (int) (keys[i] >> 32);
                }
                runs[count++] = i;
            }
        }
        runs[count++] = n;
        return Arrays.copyOf(runs, count);
    }
}
