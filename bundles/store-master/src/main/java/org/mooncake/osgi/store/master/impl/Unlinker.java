package org.mooncake.osgi.store.master.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import org.mooncake.osgi.store.spi.eviction.Candidates;

/**
 * Takes one pass's victims out of the room search's listing and out of the lease order on a
 * second thread, while the pass goes on claiming and telling the observers.
 *
 * <p>Two jobs, with different deadlines:
 * <ul>
 * <li><b>unlist</b> (the victims' blocks out of the room search's listing): must be done before the
 * pass frees the blocks, since afterwards a new block could be listed at the same offset.
 * {@link #close} waits for it.
 * <li><b>purge</b> (claimed entries out of the lease order): only saves readers from skipping
 * them, since every reader of the lease order already skips claimed entries. It starts once the
 * pass has ended and every batch is unlisted, and goes on after {@link #close} has returned, so
 * the round does not wait for it (for a room's 29,000 victims at 10^6 objects it was 10–14 ms of
 * a round). Purging between batches while the pass ran would delay the next batch's unlisting.
 * {@link #awaitPurged} waits for it. A later pass of the same round does not: its unlinker is
 * handed this one as its predecessor and purges only after it, so purges never run side by side
 * and awaiting the last one awaits them all. The evictor awaits the last at the start of a round,
 * so at most one round's purges are ever outstanding.
 * </ul>
 *
 * <p>Threads: the pass's thread {@link #add adds} and {@link #close closes}; one virtual thread
 * per pass does both jobs, unlisting batch by batch and purging all the pass's victims at once,
 * sorted by lease, so that each chunk of the lease order that held some is copied once. (Moving
 * the observers' calls here as well was slower: the pass then had too little left to do beside
 * this thread.)
 */
final class Unlinker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Unlinker.class.getName());
    /** Large enough that a hand-over costs nothing beside the removals, small enough to start early. */
    private static final int BATCH = 2048;
    private static final Batch END = new Batch();

    private final Consumer<Batch> unlist;
    private final Consumer<List<IndexEntry>> purge;
    /**
     * Purges before this one; null when none may be outstanding, and once it has purged (so no
     * chain of rounds is kept). The worker's after the constructor.
     */
    private Unlinker predecessor;
    private final BlockingQueue<Batch> batches = new LinkedBlockingQueue<>();
    private final CountDownLatch unlisted = new CountDownLatch(1);
    private final Thread worker;
    private Batch batch = new Batch();

    /**
     * Victims, with where each single-replica one is listed (its segment, null for the others, and
     * offset), read by the pass while it has the entry in cache: read on this thread instead, that
     * was a cache miss per victim, most of the time it spent unlisting.
     */
    static final class Batch {
        final List<IndexEntry> entries = new ArrayList<>(BATCH);
        final Segment[] segments = new Segment[BATCH];
        final long[] offsets = new long[BATCH];

        void add(IndexEntry e) {
            int i = entries.size();
            segments[i] = e.replicaCount() == 1 ? e.firstSegment : null;
            offsets[i] = e.firstOffset;
            entries.add(e);
        }

        int size() {
            return entries.size();
        }
    }

    /**
     * {@code unlist} and {@code purge} are the evictor's (the room search's listing, then the lease
     * orders' {@link CandidateIndex#purge}), or stand-ins in tests: {@code unlist} gets batches as
     * they come, {@code purge} every victim at once, sorted by lease, once all are unlisted.
     */
    Unlinker(Consumer<Batch> unlist, Consumer<List<IndexEntry>> purge) {
        this(unlist, purge, null);
    }

    /** As above, purging only once {@code predecessor} (if not null) has purged. */
    Unlinker(Consumer<Batch> unlist, Consumer<List<IndexEntry>> purge, Unlinker predecessor) {
        this.unlist = unlist;
        this.purge = purge;
        this.predecessor = predecessor;
        this.worker = Thread.ofVirtual().name("eviction-unlink").start(this::work);
    }

    /** Queues a claimed victim's entry. Pass thread only. */
    void add(IndexEntry e) {
        batch.add(e);
        if (batch.size() == BATCH) {
            batches.add(batch);
            batch = new Batch();
        }
    }

    /** Waits until every entry added is unlisted; its purge may still be under way. Pass thread only. */
    @Override
    public void close() {
        batches.add(batch);
        batches.add(END);
        batch = new Batch();
        boolean interrupted = false;
        while (unlisted.getCount() > 0) {
            try {
                unlisted.await();
            } catch (InterruptedException e) {
                interrupted = true; // the round finishes its bookkeeping first
            }
        }
        reassert(interrupted);
    }

    /** Waits until every entry added is purged as well. Any thread, after {@link #close}. */
    void awaitPurged() {
        boolean interrupted = false;
        while (worker.isAlive()) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        reassert(interrupted);
    }

    private static void reassert(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void work() {
        List<IndexEntry> toPurge = new ArrayList<>();
        try {
            for (Batch b = batches.take(); b != END; b = batches.take()) {
                unlist.accept(b);
                toPurge.addAll(b.entries);
            }
        } catch (InterruptedException e) {
            // nobody else holds this thread; if someone interrupts it, the rest stay in the lease
            // order as claimed entries, which every reader skips, and in the room search's listing,
            // which checks the owners of what it picks
            LOG.log(Level.ERROR, "eviction unlinker interrupted; claimed entries left in the index", e);
        } finally {
            unlisted.countDown();
        }
        // one sorted purge: each chunk of the lease order that held victims is copied once
        toPurge.sort(Candidates.LEASE_ORDER);
        if (predecessor != null) {
            predecessor.awaitPurged();
            predecessor = null;
        }
        purge.accept(toPurge);
    }
}
