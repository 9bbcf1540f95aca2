package org.mooncake.osgi.store.master.impl;

import java.util.regex.Pattern;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

/**
 * A key as a caller's regular expression reads it, within a time budget shared by every key of
 * one request: java.util.regex cannot be interrupted, but it reads its input through
 * {@link #charAt}, so a pattern that backtracks without end runs into the budget there and the
 * request is refused with INVALID_PARAMS instead of holding the master's shard locks.
 */
final class BoundedInput implements CharSequence {
    /** Reads between two looks at the clock: nanoTime costs about as much as a few hundred reads. */
    private static final int READS_PER_CHECK = 1024;

    /** The time one request may spend matching; shared by the keys it matches. */
    static final class Budget {
        private final long deadline;
        private int reads;

        Budget(long nanos) {
            this.deadline = System.nanoTime() + nanos;
        }

        void spend(Pattern pattern) {
            if (++reads % READS_PER_CHECK == 0 && System.nanoTime() - deadline > 0) {
                throw new StoreException(ErrorCode.INVALID_PARAMS,
                        "pattern " + pattern + " took too long to match; nothing was removed");
            }
        }
    }

    private final CharSequence text;
    private final Budget budget;
    private final Pattern pattern;

    BoundedInput(CharSequence text, Budget budget, Pattern pattern) {
        this.text = text;
        this.budget = budget;
        this.pattern = pattern;
    }

    @Override
    public char charAt(int index) {
        budget.spend(pattern);
        return text.charAt(index);
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return new BoundedInput(text.subSequence(start, end), budget, pattern);
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
