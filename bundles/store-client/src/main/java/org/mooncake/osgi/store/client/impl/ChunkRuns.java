package org.mooncake.osgi.store.client.impl;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.mooncake.osgi.store.api.RangeCopy;

/**
 * What a ranged read moves: the runs of whole checksum chunks its ranges touch, merged where
 * they meet, so each chunk travels once and can be verified. Pure functions.
 */
final class ChunkRuns {
    private ChunkRuns() {
    }

    /** Object bytes {@code [from, from + length)}, starting on a chunk boundary. */
    record Run(long from, long length) {
        long end() {
            return from + length;
        }
    }

    /**
     * The runs covering {@code ranges} of an object of {@code size} bytes in chunks of {@code
     * chunkBytes} (the object's size for one checked whole), in object order. Ranges are within
     * the object (checked by the caller).
     */
    static List<Run> covering(List<RangeCopy> ranges, long size, long chunkBytes) {
        List<long[]> spans = new ArrayList<>(ranges.size());
        for (RangeCopy r : ranges) {
            spans.add(new long[] {r.objectOffset() / chunkBytes, (r.objectOffset() + r.length() - 1) / chunkBytes});
        }
        spans.sort(Comparator.comparingLong(s -> s[0]));
        List<Run> runs = new ArrayList<>();
        long first = -1;
        long last = -1;
        for (long[] s : spans) {
            if (first >= 0 && s[0] <= last + 1) {
                last = Math.max(last, s[1]);
                continue;
            }
            if (first >= 0) {
                runs.add(run(first, last, size, chunkBytes));
            }
            first = s[0];
            last = s[1];
        }
        runs.add(run(first, last, size, chunkBytes));
        return runs;
    }

    private static Run run(long firstChunk, long lastChunk, long size, long chunkBytes) {
        long from = firstChunk * chunkBytes;
        return new Run(from, Math.min(size, (lastChunk + 1) * chunkBytes) - from);
    }

    /** Copies range {@code r} from the run that holds it ({@code moved.get(i)} holds {@code runs.get(i)}). */
    static void copy(RangeCopy r, List<Run> runs, List<MemorySegment> moved, MemorySegment target) {
        for (int i = 0; i < runs.size(); i++) {
            Run run = runs.get(i);
            if (r.objectOffset() >= run.from() && r.objectOffset() + r.length() <= run.end()) {
                MemorySegment.copy(moved.get(i), r.objectOffset() - run.from(), target, r.targetOffset(), r.length());
                return;
            }
        }
        throw new IllegalStateException("no run holds " + r); // covering() made one for every range
    }
}
