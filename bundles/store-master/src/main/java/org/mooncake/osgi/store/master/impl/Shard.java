package org.mooncake.osgi.store.master.impl;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * A slice of the metadata; every read or write of its objects holds the shard's lock, except
 * the eviction round, which takes its victims without it (see {@link IndexEntry#claim}).
 *
 * <p>The shard is its own lock (a mutex on {@link AbstractQueuedSynchronizer}, as in its
 * documentation) rather than holding a {@code ReentrantLock}: two objects fewer per shard, and
 * fewer cache misses for whoever walks many shards. Not reentrant: no code path takes a shard
 * lock it holds, and one that tried would fail at once.
 */
final class Shard extends AbstractQueuedSynchronizer {
    private static final long serialVersionUID = 1L;

    final transient KeyTable objects = new KeyTable();
    /**
     * The objects with a put in progress, most recent first, linked through the objects
     * themselves: a put's start and end swap a few pointers under the lock they hold anyway,
     * where a concurrent map of pending keys cost two hash updates. Read by the sweep of
     * abandoned puts.
     */
    transient ObjectMeta pendingHead;

    /** {@code m} has a put in progress now. Caller holds the lock. */
    void pendingStarted(ObjectMeta m) {
        m.pendingPrev = null;
        m.pendingNext = pendingHead;
        if (pendingHead != null) {
            pendingHead.pendingPrev = m;
        }
        pendingHead = m;
    }

    /** {@code m}'s put, listed by {@link #pendingStarted}, is over. Caller holds the lock. */
    void pendingEnded(ObjectMeta m) {
        if (m.pendingPrev != null) {
            m.pendingPrev.pendingNext = m.pendingNext;
        } else {
            pendingHead = m.pendingNext;
        }
        if (m.pendingNext != null) {
            m.pendingNext.pendingPrev = m.pendingPrev;
        }
        m.pendingPrev = null;
        m.pendingNext = null;
    }

    void lock() {
        if (!compareAndSetState(0, 1)) {
            if (getExclusiveOwnerThread() == Thread.currentThread()) {
                throw new IllegalStateException("shard lock taken twice by one thread");
            }
            acquire(1);
        }
        setExclusiveOwnerThread(Thread.currentThread());
    }

    void unlock() {
        release(1);
    }

    @Override
    protected boolean tryAcquire(int ignored) {
        return compareAndSetState(0, 1);
    }

    @Override
    protected boolean tryRelease(int ignored) {
        if (getState() == 0 || getExclusiveOwnerThread() != Thread.currentThread()) {
            throw new IllegalMonitorStateException("shard lock released by a thread that does not hold it");
        }
        setExclusiveOwnerThread(null);
        setState(0);
        return true;
    }

    @Override
    protected boolean isHeldExclusively() {
        return getExclusiveOwnerThread() == Thread.currentThread();
    }
}
