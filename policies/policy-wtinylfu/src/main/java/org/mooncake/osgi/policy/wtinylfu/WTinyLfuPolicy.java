package org.mooncake.osgi.policy.wtinylfu;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

import org.mooncake.osgi.store.spi.eviction.AccessObserver;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;
import org.osgi.service.component.annotations.Component;

/**
 * A reference to judge other policies by: Caffeine's size-aware W-TinyLFU (a count-min frequency
 * sketch with aging, a 1% admission window, a segmented LRU main space of probation and
 * protected, hill climbing of the window's size), objects weighed by their size. Ranked below
 * every other policy, so that it plans only when named ({@code eviction.policy=w-tinylfu}).
 *
 * <p>The SPI plans victims in rounds and tells no misses, so admission is emulated: the objects
 * written since the last round that overflow the window are W-TinyLFU's newcomers, and a
 * newcomer that loses the frequency duel against probation's LRU object is handed out as a
 * victim before it (see {@link VictimWalk}). A write-back after a miss counts as the miss.
 *
 * <p>The master's events are queued without a lock and applied on the eviction thread when a
 * round plans, or by the observer that finds 4,096 queued if no one else is applying them
 * (Caffeine's buffers and maintenance, with no event dropped). Pass 1 plans unpinned objects in
 * W-TinyLFU's order; objects the policy does not know (a store filled before it was bound)
 * follow in lease order. Pass 2 adds soft-pinned objects after every unpinned one, in the space's
 * LRU order. Immediate: what it has counted lives as long as the bundle.
 */
@Component(service = EvictionPolicy.class, immediate = true,
        property = {EvictionPolicy.NAME_PROPERTY + "=" + WTinyLfuPolicy.NAME, "service.ranking:Integer=" + WTinyLfuPolicy.RANKING})
public final class WTinyLfuPolicy implements EvictionPolicy, AccessObserver {
    public static final String NAME = "w-tinylfu";
    /** Below every other policy's (lease-lru's is 0). */
    public static final int RANKING = -10;
    static final int DRAIN_THRESHOLD = 4096;
    /** A round's first plan asks for this share more than the target: victims the master may find taken. */
    static final double PLAN_SLACK = 0.125;

    private enum Kind {
        WRITTEN, HIT, EVICTED
    }

    private record Event(Kind kind, CandidateView view) {
    }

    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    private final Space space = new Space();
    private final SplittableRandom random = new SplittableRandom(0x5eed);
    private long planId;
    /** The last plan's victims and how many of them the master pulled; guarded by the lock. */
    private PlanIterator lastPlan;
    private long admitted;
    private long refused;
    private volatile Map<String, Double> learned = Map.of();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        Map<String, Double> l = learned;
        return String.format(Locale.ROOT, "%s window=%.2f%% protected=%.2f%% objects=%.0f admitted=%.0f refused=%.0f",
                NAME, 100 * l.getOrDefault("window_share", Space.INITIAL_WINDOW_SHARE),
                100 * l.getOrDefault("protected_share", Space.PROTECTED_SHARE_OF_MAIN * (1 - Space.INITIAL_WINDOW_SHARE)),
                l.getOrDefault("objects_tracked", 0.0), l.getOrDefault("newcomers_admitted", 0.0),
                l.getOrDefault("newcomers_refused", 0.0));
    }

    /** The window's and protected's shares of the bytes kept, objects tracked, newcomers admitted and refused, sketch halvings. */
    @Override
    public Map<String, Double> learned() {
        return learned;
    }

    // ---- events: any thread, never waits ----

    @Override
    public void hit(CandidateView object, long previousAccessMs, long nowMs) {
        queue(Kind.HIT, object);
    }

    @Override
    public void written(CandidateView object, long nowMs) {
        queue(Kind.WRITTEN, object);
    }

    @Override
    public void evicted(CandidateView object, long nowMs) {
        queue(Kind.EVICTED, object);
    }

    private void queue(Kind kind, CandidateView view) {
        events.add(new Event(kind, view));
        if (queued.incrementAndGet() >= DRAIN_THRESHOLD && lock.tryLock()) {
            try {
                drain();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Applies the queued events in order, then Caffeine's maintenance. Holds the lock. */
    private void drain() {
        for (Event e; (e = events.poll()) != null;) {
            queued.decrementAndGet();
            switch (e.kind) {
                case WRITTEN -> space.written(e.view);
                case HIT -> space.hit(e.view);
                case EVICTED -> space.evicted(e.view);
            }
        }
        space.maintain();
        publishLearned();
    }

    private void publishLearned() {
        Map<String, Double> l = new LinkedHashMap<>();
        if (space.maximum() > 0) {
            l.put("window_share", space.windowShare());
            l.put("protected_share", space.protectedShare());
        }
        l.put("objects_tracked", (double) space.size());
        l.put("newcomers_admitted", (double) admitted);
        l.put("newcomers_refused", (double) refused);
        l.put("sketch_halvings", (double) space.sketch.resets());
        learned = Map.copyOf(l);
    }

    // ---- planning: the eviction thread ----

    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        long now = request.nowMs();
        Predicate<CandidateView> unpinned = c -> request.eligible(c) && !c.softPinnedAt(now);
        Predicate<CandidateView> pinned = c -> request.eligible(c) && c.softPinnedAt(now);
        lock.lock();
        try {
            drain(); // first: the last plan's victims the master took are gone now
            if (lastPlan != null) {
                lastPlan.settle(space);
            }
            space.resize(request.usedBytes() - request.targetBytes());
            long id = ++planId;
            long wanted = request.targetBytes() + (long) (PLAN_SLACK * request.targetBytes());
            VictimWalk walk = new VictimWalk(space, id, unpinned, random);
            if (request.softPinnedAllowed()) {
                walk.inOrder(Long.MAX_VALUE); // pass 1 had its duels: what is left of the unpinned, all of it
            } else {
                walk.withAdmission(wanted);
                admitted += walk.admitted;
                refused += walk.refused;
                publishLearned();
            }
            List<Iterator<CandidateView>> parts = new ArrayList<>();
            lastPlan = new PlanIterator(walk.victims, this, space, id, unpinned, request.targetBytes());
            parts.add(lastPlan);
            parts.add(Candidates.eligibleInLeaseOrder(request.groups(), request, c -> !c.softPinnedAt(now)));
            if (request.softPinnedAllowed()) {
                parts.add(new PlanIterator(new VictimWalk(space, id, pinned, random).inOrder(Long.MAX_VALUE).victims,
                        this, space, id, pinned, 0));
                parts.add(Candidates.eligibleInLeaseOrder(request.groups(), request, c -> c.softPinnedAt(now)));
            }
            return Candidates.concat(parts);
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code action} under the policy's lock: a plan's later chunks. */
    void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }
}
