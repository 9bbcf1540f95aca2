package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Native 8-byte cells that requests read a segment's control word into; under the worker's lock. */
final class Cells {
    private static final int BLOCK = 4096;
    private final List<MemorySegment> blocks = new ArrayList<>();
    private int[] free = new int[0];
    private int freeCount;

    int take() {
        if (freeCount == 0) {
            // freed by the garbage collector with this object: a cell a timed-out request may still fill stays valid
            blocks.add(Arena.ofAuto().allocate(8L * BLOCK, 64));
            free = Arrays.copyOf(free, free.length + BLOCK);
            for (int i = 0; i < BLOCK; i++) {
                free[freeCount++] = blocks.size() * BLOCK - 1 - i;
            }
        }
        int cell = free[--freeCount];
        at(cell).set(JAVA_LONG, 0, 0);
        return cell;
    }

    void give(int cell) {
        free[freeCount++] = cell;
    }

    MemorySegment at(int cell) {
        return blocks.get(cell / BLOCK).asSlice(8L * (cell % BLOCK), 8);
    }

    long get(int cell) {
        return at(cell).get(JAVA_LONG, 0);
    }
}
