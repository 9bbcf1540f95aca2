package org.mooncake.osgi.epd.hidden.impl;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import org.mooncake.osgi.epd.api.LookupOutcome;
import org.mooncake.osgi.store.api.ObjectState;

/**
 * What this process knows of each item of one namespace: being looked up, found readable,
 * being written elsewhere, absent, or being loaded here, and since when. Shared by the two roles
 * of a namespace; any thread. A change wakes {@link #await} callers.
 */
final class ItemStates {
    enum Known {
        LOOKING, READABLE, WRITING, ABSENT, LOADING
    }

    /**
     * {@code writingSinceMs}: when the item was first seen being written elsewhere (0: not);
     * {@code told}: the answer has been given once (an answer is always given once, however
     * short the TTL: else a TTL of 0 would ask again for ever and never answer).
     */
    record Entry(Known state, long sinceMs, long writingSinceMs, boolean told) {
        Entry(Known state, long sinceMs, long writingSinceMs) {
            this(state, sinceMs, writingSinceMs, false);
        }

        boolean answer() {
            return state == Known.READABLE || state == Known.ABSENT || state == Known.WRITING;
        }
    }

    private final Map<String, Entry> items = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final LongSupplier clock;
    private final Settings settings;

    ItemStates(LongSupplier clock, Settings settings) {
        this.clock = clock;
        this.settings = settings;
    }

    Entry get(String item) {
        return items.get(item);
    }

    /**
     * The outcome for {@code item} now; {@code ask} collects the items whose answer is missing
     * or stale, now marked as being looked up.
     */
    LookupOutcome outcome(String item, Collection<String> ask) {
        long now = clock.getAsLong();
        Entry e = items.get(item);
        if (e != null && e.answer() && !e.told) {
            items.replace(item, e, new Entry(e.state, e.sinceMs, e.writingSinceMs, true));
            return outcome(e, now);
        }
        boolean stale = e == null || switch (e.state) {
            case READABLE, ABSENT -> now - e.sinceMs >= settings.lookupTtlMs();
            case WRITING -> now - e.sinceMs >= settings.writingRecheckMs();
            case LOOKING, LOADING -> false;
        };
        if (stale) {
            items.put(item, new Entry(Known.LOOKING, now, e == null ? 0 : e.writingSinceMs));
            ask.add(item);
            return LookupOutcome.PENDING;
        }
        return outcome(e, now);
    }

    private LookupOutcome outcome(Entry e, long now) {
        return switch (e.state) {
            case READABLE -> LookupOutcome.HIT;
            case ABSENT -> LookupOutcome.MISS;
            // another process is encoding it: wait for its save, within reason
            case WRITING -> now - e.writingSinceMs >= settings.writingWaitMaxMs() ? LookupOutcome.MISS
                    : LookupOutcome.PENDING;
            case LOOKING, LOADING -> LookupOutcome.PENDING;
        };
    }

    /** The store's answers for {@code asked}, in order. */
    void answered(List<String> asked, List<ObjectState> states) {
        long now = clock.getAsLong();
        for (int i = 0; i < asked.size(); i++) {
            String item = asked.get(i);
            Entry was = items.get(item);
            long writingSince = was == null ? 0 : was.writingSinceMs;
            items.put(item, switch (states.get(i)) {
                case READABLE -> new Entry(Known.READABLE, now, 0);
                case WRITING -> new Entry(Known.WRITING, now, writingSince == 0 ? now : writingSince);
                case ABSENT -> new Entry(Known.ABSENT, now, 0);
            });
        }
        signal();
    }

    void set(String item, Known state) {
        items.put(item, new Entry(state, clock.getAsLong(), 0));
        signal();
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until {@code item}'s entry is no longer {@code seen}, or {@code timeoutMs} pass. */
    void awaitChange(String item, Entry seen, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        lock.lock();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (items.get(item) != seen || left <= 0) {
                    return;
                }
                changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }
}
