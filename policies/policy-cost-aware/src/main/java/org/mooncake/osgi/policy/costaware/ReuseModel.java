package org.mooncake.osgi.policy.costaware;

import java.util.concurrent.atomic.LongAdder;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * Hit density learned online, in the manner of LHD: for each data type, class (reads so far: 0,
 * 1, 2, 3+; and the reuse seen in the object's group) and age (time since the last access, in half-octave buckets) it counts the events
 * that end an object's idle spell: a hit, an eviction, or a return (a write-back of an evicted
 * key, counted as the hit it would have been, while its eviction is taken back). From those it
 * derives, for an object of a class idle for a given age, the expected hits per millisecond of
 * space it will still hold: {@code hits after age / sum of remaining idle time}.
 *
 * <p>Threads: {@code record*} run on any thread (adders, never blocking); {@link #refresh} and
 * {@link #density} run on the eviction thread only, which alone owns the smoothed tables.
 * Classes with few events lean on their type's pooled figures, and those on all types', so a
 * cold model ranks by age alone (as the lease order does).
 */
final class ReuseModel {
    static final int HIT_CLASSES = 4;
    /** Classes of an object: its hit class, times the reuse seen in its group ({@link GroupActivity}). */
    static final int CLASSES = HIT_CLASSES * GroupActivity.CLASSES;
    static final int AGE_BUCKETS = 64;
    private static final int TYPES = ObjectDataType.values().length;
    private static final int CELLS = TYPES * CLASSES * AGE_BUCKETS;
    private static final double[] MID_AGE = new double[AGE_BUCKETS];
    private static final double[] LOW_AGE = new double[AGE_BUCKETS];

    static {
        for (int b = 0; b < AGE_BUCKETS; b++) {
            MID_AGE[b] = Math.pow(2, (b + 0.5) / 2) - 1;
            LOW_AGE[b] = Math.pow(2, b / 2.0) - 1;
        }
    }

    private final LongAdder[] hits = adders();
    private final LongAdder[] evictions = adders();
    private final LongAdder[] returns = adders();
    private final LongAdder[] takenBack = adders();
    // Owned by the eviction thread from here on.
    private final long[][] seen = new long[4][CELLS];
    private final double[] smoothedHits = new double[CELLS];
    private final double[] smoothedEnds = new double[CELLS];
    private final double[] density = new double[CELLS];
    /** Residents seen by the last round's scan, still neither hit nor evicted (censored). */
    private double[] residents = new double[CELLS];
    private double[] residentsNext = new double[CELLS];
    private volatile long events; // written by the eviction thread, read by operators

    ReuseModel() {
        rebuild(8);
    }

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[CELLS];
        for (int i = 0; i < CELLS; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    /** Half-octave buckets of {@code 1 + age}: {@code floor(2 log2(1 + age))}, without a logarithm. */
    static int ageBucket(long ageMs) {
        long x = 1 + Math.max(0, ageMs);
        int octave = 63 - Long.numberOfLeadingZeros(x);
        // upper half of the octave when x >= 2^octave * sqrt(2), i.e. x^2 >= 2^(2 octave + 1)
        boolean upper = octave < 31 ? x * x >= 1L << (2 * octave + 1) : (double) x * x >= Math.pow(2, 2 * octave + 1);
        return Math.min(AGE_BUCKETS - 1, 2 * octave + (upper ? 1 : 0));
    }

    static int objectClass(long hitCount, int groupClass) {
        return groupClass * HIT_CLASSES + (int) Math.min(HIT_CLASSES - 1, Math.max(0, hitCount));
    }

    private static int cell(ObjectDataType type, int cls, int bucket) {
        return (type.ordinal() * CLASSES + cls) * AGE_BUCKETS + bucket;
    }

    void recordHit(ObjectDataType type, int cls, long idleMs) {
        hits[cell(type, cls, ageBucket(idleMs))].increment();
    }

    void recordEviction(ObjectDataType type, int cls, long idleMs) {
        evictions[eventCell(type, cls, idleMs)].increment();
    }

    /** Where an event of this type, class and idle time is counted: for {@link #recordEvictions}. */
    static int eventCell(ObjectDataType type, int cls, long idleMs) {
        return cell(type, cls, ageBucket(idleMs));
    }

    /** {@code count} evictions in one {@link #eventCell}: a batch's run of alike victims, one add. */
    void recordEvictions(int cell, long count) {
        evictions[cell].add(count);
    }

    /** An evicted key came back after {@code idleMs}; it had been evicted when idle {@code idleAtEvictionMs}. */
    void recordReturn(ObjectDataType type, int cls, long idleMs, long idleAtEvictionMs) {
        returns[cell(type, cls, ageBucket(idleMs))].increment();
        takenBack[cell(type, cls, ageBucket(idleAtEvictionMs))].increment();
    }

    /**
     * Counts a resident candidate the current round scores (eviction thread). Next refresh,
     * residents count as lives that have lasted so far without a hit, as a survival estimate
     * counts the censored: without them a class that is rarely evicted would be judged by its
     * hits alone.
     */
    void countResident(ObjectDataType type, int cls, long idleMs) {
        residentsNext[cell(type, cls, ageBucket(idleMs))]++;
    }

    /**
     * {@link #density} of a resident the current round scores, which it also counts (see
     * {@link #countResident}): one bucket computation for both.
     */
    double densityCountingResident(ObjectDataType type, int cls, long idleMs) {
        int c = cell(type, cls, ageBucket(idleMs));
        residentsNext[c]++;
        return density[c];
    }

    /**
     * Of the idle spells of this group class's objects that ended, the share that ended in a
     * read (a hit, or a write-back after an eviction), with the model's fading; NaN when fewer
     * than {@code minEnds} ended. Eviction thread.
     */
    double readAgainShare(int groupClass, double minEnds) {
        double read = 0;
        double ended = 0;
        for (int t = 0; t < TYPES; t++) {
            for (int h = 0; h < HIT_CLASSES; h++) {
                int base = (t * CLASSES + groupClass * HIT_CLASSES + h) * AGE_BUCKETS;
                for (int b = 0; b < AGE_BUCKETS; b++) {
                    read += smoothedHits[base + b];
                    ended += smoothedEnds[base + b];
                }
            }
        }
        return ended < minEnds ? Double.NaN : read / ended;
    }

    /** Events folded into the model so far. */
    long events() {
        return events;
    }

    /**
     * Folds the events since the last refresh into the tables. Older events fade with a half-life
     * of {@code halfLifeEvents} events, so the model follows a drifting workload.
     */
    void refresh(long halfLifeEvents, double priorEvents) {
        double[] fresh = new double[4 * CELLS];
        long n = 0;
        LongAdder[][] sources = {hits, evictions, returns, takenBack};
        for (int s = 0; s < 4; s++) {
            for (int i = 0; i < CELLS; i++) {
                long now = sources[s][i].sum();
                long delta = now - seen[s][i];
                seen[s][i] = now;
                fresh[s * CELLS + i] = delta;
                n += s == 3 ? 0 : delta;
            }
        }
        double keep = Math.pow(0.5, (double) n / Math.max(1, halfLifeEvents));
        for (int i = 0; i < CELLS; i++) {
            double h = fresh[i] + fresh[2 * CELLS + i];
            double e = fresh[CELLS + i] - fresh[3 * CELLS + i];
            smoothedHits[i] = smoothedHits[i] * keep + h;
            smoothedEnds[i] = Math.max(smoothedHits[i], smoothedEnds[i] * keep + h + e);
        }
        events += n;
        double[] seen = residentsNext;
        residentsNext = residents;
        java.util.Arrays.fill(residentsNext, 0);
        residents = seen;
        rebuild(priorEvents);
    }

    /** Expected hits per ms held, for an object of this type and class idle for {@code idleMs}. */
    double density(ObjectDataType type, int cls, long idleMs) {
        return density[cell(type, cls, ageBucket(idleMs))];
    }

    /**
     * Backs off from the finest class to coarser pools where events are few: (type, group class,
     * hit class) to (type, hit class) to (hit class) to age alone. Reads so far are the strongest
     * signal, so every pool keeps them apart.
     */
    private void rebuild(double prior) {
        double[] ageOnly = new double[AGE_BUCKETS];
        for (int a = 0; a < AGE_BUCKETS; a++) {
            ageOnly[a] = 1 / (MID_AGE[a] + 1);
        }
        double[][] byHits = new double[HIT_CLASSES][AGE_BUCKETS];
        for (int h = 0; h < HIT_CLASSES; h++) {
            double[] hitsAt = new double[AGE_BUCKETS];
            double[] endsAt = new double[AGE_BUCKETS];
            for (int t = 0; t < TYPES; t++) {
                for (int g = 0; g < GroupActivity.CLASSES; g++) {
                    add(t, g * HIT_CLASSES + h, hitsAt, endsAt);
                }
            }
            densities(hitsAt, endsAt, 0, ageOnly, prior, byHits[h]);
        }
        for (int t = 0; t < TYPES; t++) {
            for (int h = 0; h < HIT_CLASSES; h++) {
                double[] hitsAt = new double[AGE_BUCKETS];
                double[] endsAt = new double[AGE_BUCKETS];
                for (int g = 0; g < GroupActivity.CLASSES; g++) {
                    add(t, g * HIT_CLASSES + h, hitsAt, endsAt);
                }
                double[] typeDensity = new double[AGE_BUCKETS];
                densities(hitsAt, endsAt, 0, byHits[h], prior, typeDensity);
                for (int g = 0; g < GroupActivity.CLASSES; g++) {
                    int base = (t * CLASSES + g * HIT_CLASSES + h) * AGE_BUCKETS;
                    double[] out = new double[AGE_BUCKETS];
                    double[] classHits = new double[AGE_BUCKETS];
                    double[] classEnds = new double[AGE_BUCKETS];
                    add(t, g * HIT_CLASSES + h, classHits, classEnds);
                    densities(classHits, classEnds, 0, typeDensity, prior, out);
                    System.arraycopy(out, 0, density, base, AGE_BUCKETS);
                }
            }
        }
    }

    private void add(int type, int cls, double[] hitsAt, double[] endsAt) {
        int base = (type * CLASSES + cls) * AGE_BUCKETS;
        for (int b = 0; b < AGE_BUCKETS; b++) {
            hitsAt[b] += smoothedHits[base + b];
            endsAt[b] += smoothedEnds[base + b] + residents[base + b];
        }
    }

    /**
     * Hit density at each age from one class's events ({@code base} offsets into the arrays),
     * blended towards {@code fallback} when the class saw fewer than about {@code prior} events
     * beyond that age. Where the class's own evidence runs thin, the estimate may not rise above
     * its last well-supported one: without evidence, an old object is not assumed to be worth
     * more than a younger one of its class (the pooled fallback would otherwise lend it the
     * reuse of other classes).
     */
    private static void densities(double[] hitsAt, double[] endsAt, int base, double[] fallback, double prior,
            double[] out) {
        double hitsBeyond = 0;
        double endsBeyond = 0;
        double ageSumBeyond = 0;
        double[] weight = new double[AGE_BUCKETS];
        for (int a = AGE_BUCKETS - 1; a >= 0; a--) {
            hitsBeyond += hitsAt[base + a];
            endsBeyond += endsAt[base + a];
            ageSumBeyond += endsAt[base + a] * MID_AGE[a];
            // Time still to be held, from the start of this bucket: an event in the bucket itself
            // is half a bucket away on average, never zero.
            double remaining = Math.max(endsBeyond, ageSumBeyond - endsBeyond * LOW_AGE[a]);
            double own = remaining > 0 ? hitsBeyond / remaining : 0;
            double w = endsBeyond / (endsBeyond + prior);
            weight[a] = w;
            out[a] = w * own + (1 - w) * fallback[a];
        }
        double ceiling = Double.POSITIVE_INFINITY;
        for (int a = 0; a < AGE_BUCKETS; a++) {
            if (weight[a] >= 0.5) {
                ceiling = out[a];
            } else {
                out[a] = Math.min(out[a], ceiling);
            }
        }
    }
}
