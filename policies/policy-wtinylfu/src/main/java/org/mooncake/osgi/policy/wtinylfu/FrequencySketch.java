package org.mooncake.osgi.policy.wtinylfu;

/**
 * How often each key was used lately, approximately: a count-min sketch of 4-bit counters with
 * aging, as Caffeine's {@code FrequencySketch} (TinyLFU, Einziger, Friedman and Manes, 2017). A
 * key's count is the least of its four counters (at most 15), which sit in one 64-byte block of
 * the table. Once {@code 10 x capacity} increments have raised some counter, every counter is
 * halved: popularity fades, so a key hot an hour ago does not keep out what is hot now.
 *
 * <p>Keys are given as their hash ({@code CandidateView.keyHash}), spread again here. Not
 * thread-safe: the policy's lock guards it.
 */
final class FrequencySketch {
    static final int MIN_CAPACITY = 256;
    static final int MAX_COUNT = 15;
    private static final long RESET_MASK = 0x7777_7777_7777_7777L;
    private static final long ONE_MASK = 0x1111_1111_1111_1111L;

    private long[] table;
    private int blockMask;
    private int sampleSize;
    private int additions;
    private long resets;

    FrequencySketch() {
        ensureCapacity(MIN_CAPACITY);
    }

    /**
     * Sizes the table for {@code keys} distinct keys (a power of two of 4-bit counters x 16, at
     * least {@value #MIN_CAPACITY}); growing it forgets every count, as Caffeine's does.
     */
    void ensureCapacity(long keys) {
        int capacity = (int) Math.max(MIN_CAPACITY, Math.min(keys, Integer.MAX_VALUE >>> 1));
        sampleSize = (int) Math.min(10L * capacity, Integer.MAX_VALUE);
        if (table != null && table.length >= capacity) {
            additions = Math.min(additions, sampleSize - 1);
            return;
        }
        table = new long[Integer.highestOneBit(capacity - 1) << 1];
        blockMask = (table.length >>> 3) - 1;
        additions = 0;
    }

    /** Increments after which the counters are halved: the hill climber's sample period too. */
    int sampleSize() {
        return sampleSize;
    }

    /** Times the counters were halved. */
    long resets() {
        return resets;
    }

    /** The estimated uses of the key lately, 0 to {@value #MAX_COUNT}. */
    int frequency(int keyHash) {
        int blockHash = spread(keyHash);
        int counterHash = rehash(blockHash);
        int block = (blockHash & blockMask) << 3;
        int frequency = MAX_COUNT;
        for (int i = 0; i < 4; i++) {
            int h = counterHash >>> (i << 3);
            int index = (h >>> 1) & 15;
            int slot = block + (h & 1) + (i << 1);
            frequency = Math.min(frequency, (int) ((table[slot] >>> (index << 2)) & 0xfL));
        }
        return frequency;
    }

    /** Counts one use of the key; halves every counter once a sample's worth of increments is in. */
    void increment(int keyHash) {
        int blockHash = spread(keyHash);
        int counterHash = rehash(blockHash);
        int block = (blockHash & blockMask) << 3;
        boolean added = false;
        for (int i = 0; i < 4; i++) {
            int h = counterHash >>> (i << 3);
            added |= incrementAt(block + (h & 1) + (i << 1), (h >>> 1) & 15);
        }
        if (added && ++additions == sampleSize) {
            reset();
        }
    }

    private boolean incrementAt(int slot, int index) {
        int offset = index << 2;
        long mask = 0xfL << offset;
        if ((table[slot] & mask) != mask) {
            table[slot] += 1L << offset;
            return true;
        }
        return false;
    }

    /** Halves every counter (aging); the odd counts' lost halves come off the addition count too. */
    private void reset() {
        long odd = 0;
        for (int i = 0; i < table.length; i++) {
            odd += Long.bitCount(table[i] & ONE_MASK);
            table[i] = (table[i] >>> 1) & RESET_MASK;
        }
        additions = (int) Math.max(0, (additions - (odd >>> 2)) >>> 1);
        resets++;
    }

    private static int spread(int x) {
        x ^= x >>> 17;
        x *= 0xed5a_d4bb;
        x ^= x >>> 11;
        x *= 0xac4c_1b51;
        x ^= x >>> 15;
        return x;
    }

    private static int rehash(int x) {
        x *= 0x3184_8bab;
        x ^= x >>> 14;
        return x;
    }
}
