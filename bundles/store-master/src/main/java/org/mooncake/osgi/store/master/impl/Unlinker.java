package org.mooncake.osgi.store.master.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import org.mooncake.osgi.store.spi.eviction.Candidates;

/**
 * Takes one pass's victims out of the lease order (and their blocks out of the room search's
 * listing) on a second thread while the pass goes on claiming and telling the observers. It needs nothing the pass needs: readers of the lease
 * order already skip claimed entries, and the chunks that hold them are purged under their own
 * locks. (Moving the observers' calls here as well was slower: the pass then had too little left
 * to do beside this thread.)
 *
 * <p>Threads: the pass's thread {@link #add adds} and {@link #close closes}; one virtual thread
 * per pass purges, in batches sorted by lease, so that victims in one chunk are purged together.
 * {@link #close} returns once every victim is purged, so a round leaves no claimed entry behind
 * in the index.
 */
final class Unlinker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Unlinker.class.getName());
    /** Large enough that a hand-over costs nothing beside the removals, small enough to start early. */
    private static final int BATCH = 2048;
    private static final List<IndexEntry> END = List.of();

    private final Consumer<List<IndexEntry>> purge;
    private final BlockingQueue<List<IndexEntry>> batches = new LinkedBlockingQueue<>();
    private final Thread worker;
    private List<IndexEntry> batch = new ArrayList<>(BATCH);

    /**
     * {@code purge} is the evictor's (the lease orders' {@link CandidateIndex#purge}, then the room
     * search's listing), or a stand-in in tests; it gets sorted batches.
     */
    Unlinker(Consumer<List<IndexEntry>> purge) {
        this.purge = purge;
        this.worker = Thread.ofVirtual().name("eviction-unlink").start(this::unlinkUntilEnd);
    }

    /** Queues a claimed victim's entry. Pass thread only. */
    void add(IndexEntry e) {
        batch.add(e);
        if (batch.size() == BATCH) {
            batches.add(batch);
            batch = new ArrayList<>(BATCH);
        }
    }

    /** Waits until every entry added is unlinked. Pass thread only. */
    @Override
    public void close() {
        batches.add(batch);
        batches.add(END);
        batch = new ArrayList<>();
        boolean interrupted = false;
        while (worker.isAlive()) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                interrupted = true; // the round finishes its bookkeeping first
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void unlinkUntilEnd() {
        try {
            for (List<IndexEntry> b = batches.take(); b != END; b = batches.take()) {
                b.sort(Candidates.LEASE_ORDER);
                purge.accept(b);
            }
        } catch (InterruptedException e) {
            // nobody else holds this thread; if someone interrupts it, the rest stay in the lease
            // order as claimed entries, which every plan skips
            LOG.log(Level.ERROR, "eviction unlinker interrupted; claimed entries left in the index", e);
        }
    }
}
