package org.mooncake.osgi.policy.costaware;

import java.util.concurrent.atomic.LongAdder;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * Hit density learned online, in the manner of LHD: for each data type, hit class (reads so far:
 * 0, 1, 2, 3+) and age (time since the last access, in half-octave buckets) it counts the events
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
    static final int AGE_BUCKETS = 64;
    private static final int TYPES = ObjectDataType.values().length;
    private static final int CELLS = TYPES * HIT_CLASSES * AGE_BUCKETS;
    private static final double[] MID_AGE = new double[AGE_BUCKETS];

    static {
        for (int b = 0; b < AGE_BUCKETS; b++) {
            MID_AGE[b] = Math.pow(2, (b + 0.5) / 2) - 1;
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
    private long events;

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

    static int ageBucket(long ageMs) {
        double b = 2 * (Math.log1p(Math.max(0, ageMs)) / Math.log(2));
        return (int) Math.min(AGE_BUCKETS - 1, b);
    }

    static int hitClass(long hitCount) {
        return (int) Math.min(HIT_CLASSES - 1, Math.max(0, hitCount));
    }

    private static int cell(ObjectDataType type, int hitClass, int bucket) {
        return (type.ordinal() * HIT_CLASSES + hitClass) * AGE_BUCKETS + bucket;
    }

    void recordHit(ObjectDataType type, long hitsBefore, long idleMs) {
        hits[cell(type, hitClass(hitsBefore), ageBucket(idleMs))].increment();
    }

    void recordEviction(ObjectDataType type, long hitCount, long idleMs) {
        evictions[cell(type, hitClass(hitCount), ageBucket(idleMs))].increment();
    }

    /** An evicted key came back after {@code idleMs}; it had been evicted when idle {@code idleAtEvictionMs}. */
    void recordReturn(ObjectDataType type, long hitCount, long idleMs, long idleAtEvictionMs) {
        returns[cell(type, hitClass(hitCount), ageBucket(idleMs))].increment();
        takenBack[cell(type, hitClass(hitCount), ageBucket(idleAtEvictionMs))].increment();
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
        rebuild(priorEvents);
    }

    /** Expected hits per ms held, for an object of this type and hit count idle for {@code idleMs}. */
    double density(ObjectDataType type, long hitCount, long idleMs) {
        return density[cell(type, hitClass(hitCount), ageBucket(idleMs))];
    }

    private void rebuild(double prior) {
        double[] global = new double[AGE_BUCKETS];
        double[] globalEnds = new double[AGE_BUCKETS];
        double[] globalHits = new double[AGE_BUCKETS];
        for (int i = 0; i < CELLS; i++) {
            globalHits[i % AGE_BUCKETS] += smoothedHits[i];
            globalEnds[i % AGE_BUCKETS] += smoothedEnds[i];
        }
        double[] ageOnly = new double[AGE_BUCKETS];
        for (int a = 0; a < AGE_BUCKETS; a++) {
            ageOnly[a] = 1 / (MID_AGE[a] + 1);
        }
        densities(globalHits, globalEnds, 0, ageOnly, prior, global);
        for (int t = 0; t < TYPES; t++) {
            double[] typeHits = new double[AGE_BUCKETS];
            double[] typeEnds = new double[AGE_BUCKETS];
            for (int h = 0; h < HIT_CLASSES; h++) {
                for (int b = 0; b < AGE_BUCKETS; b++) {
                    int i = (t * HIT_CLASSES + h) * AGE_BUCKETS + b;
                    typeHits[b] += smoothedHits[i];
                    typeEnds[b] += smoothedEnds[i];
                }
            }
            double[] typeDensity = new double[AGE_BUCKETS];
            densities(typeHits, typeEnds, 0, global, prior, typeDensity);
            for (int h = 0; h < HIT_CLASSES; h++) {
                int base = (t * HIT_CLASSES + h) * AGE_BUCKETS;
                double[] out = new double[AGE_BUCKETS];
                densities(smoothedHits, smoothedEnds, base, typeDensity, prior, out);
                System.arraycopy(out, 0, density, base, AGE_BUCKETS);
            }
        }
    }

    /**
     * Hit density at each age from one class's events ({@code base} offsets into the arrays),
     * blended towards {@code fallback} when the class saw fewer than about {@code prior} events
     * beyond that age.
     */
    private static void densities(double[] hitsAt, double[] endsAt, int base, double[] fallback, double prior,
            double[] out) {
        double hitsBeyond = 0;
        double endsBeyond = 0;
        double ageSumBeyond = 0;
        for (int a = AGE_BUCKETS - 1; a >= 0; a--) {
            hitsBeyond += hitsAt[base + a];
            endsBeyond += endsAt[base + a];
            ageSumBeyond += endsAt[base + a] * MID_AGE[a];
            double remaining = Math.max(endsBeyond, ageSumBeyond - endsBeyond * MID_AGE[a]);
            double own = remaining > 0 ? hitsBeyond / remaining : 0;
            double w = endsBeyond / (endsBeyond + prior);
            out[a] = w * own + (1 - w) * fallback[a];
        }
    }
}
