package org.mooncake.osgi.transport.ucx;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One UCP context and worker, and the thread that drives them. The worker runs in
 * UCS_THREAD_MODE_SERIALIZED: every ucp call on it, and all the Java state beside it ({@link
 * Transfers}, {@link Peers}, {@link Cells}, {@link Exposures}), is made holding {@link #lock}. The
 * worker thread creates both, runs what other threads hand it ({@link #call}, {@link #execute}),
 * issues and progresses every ucp request, and sleeps in {@code poll()} on the worker's event fd
 * once {@code ucp_worker_arm} says nothing is left to do, without the lock. Submitters take the
 * lock only to copy through shared memory UCX mapped for a segment's keys (which the lock keeps
 * mapped; {@link Transfers#copyHere}), and to drop the keys of a segment found withdrawn. Other
 * threads wake it with {@code ucp_worker_signal}, the one call UCX allows without the lock;
 * incoming traffic wakes it through the same fd, which is what lets a process that only owns
 * segments serve software RMA (the target's worker makes the copy).
 */
final class Worker {
    /** Spinning this long before sleeping keeps a reply that is about to arrive from paying a wake-up. */
    private static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** Longest sleep while requests are outstanding: a missed event costs this much, never a hang. */
    private static final int BUSY_POLL_MS = 10;
    private static final int IDLE_POLL_MS = 1000;
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final long STACK = 16L << 20;
    /** A submitter spins this long for the lock before it queues for it. */
    private static final long LOCK_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

    /** What the worker thread runs besides ucp progress: the transfers and owned segments. */
    interface Loop {
        /** Called on the worker thread after the worker is created; its failure fails the start. */
        void opened(Worker w);

        /** After each round of progress; true while requests are outstanding. */
        boolean poll(long now);

        /** The earliest deadline (System.nanoTime) the loop must wake for, or Long.MAX_VALUE. */
        long nextDeadline();

        /** On the worker thread, before the worker is destroyed. */
        void closing();
    }

    private record Delayed(long at, Runnable task) {
    }

    private final String tls;
    private final Loop loop;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Delayed> delayed = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final Object lifecycle = new Object();
    /** Guarded by {@link #lifecycle}: set once the thread takes no more tasks. */
    private boolean stopped;
    private volatile boolean stopping;
    /** Held for every ucp call on the worker and every access to the state beside it. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}: the worker exists and takes requests from submitters. */
    private boolean open;

    /** The UCP context; outlives the worker while memory it allocated is still in use (see {@link Context}). */
    Context context;
    MemorySegment worker = MemorySegment.NULL;
    byte[] address;
    Tls resources;

    Worker(String tls, Loop loop) {
        this.tls = tls;
        this.loop = loop;
        // UCX expects a C thread's stack (8 MiB): its wire-up keeps large arrays on it, more than a
        // JVM thread's default 1 MiB, and an overflow in native code ends the JVM
        this.thread = Thread.ofPlatform().daemon().name("ucx-worker-" + THREADS.incrementAndGet()).stackSize(STACK)
                .unstarted(this::run);
    }

    /** Starts the thread and waits until the context and worker exist; throws what failed. */
    void start() {
        thread.start();
        try {
            ready.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while UCX started", e);
        }
    }

    boolean onWorkerThread() {
        return Thread.currentThread() == thread;
    }

    /**
     * Takes {@link #lock} on the calling thread (spinning briefly first: the worker thread holds it
     * only for rounds of progress); false, without it, when the worker is closed.
     */
    boolean lockOpen() {
        if (!lock.tryLock()) {
            long until = System.nanoTime() + LOCK_SPIN_NANOS;
            boolean locked = false;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait();
                if (lock.tryLock()) {
                    locked = true;
                    break;
                }
            }
            if (!locked) {
                lock.lock();
            }
        }
        if (!open) {
            lock.unlock();
            return false;
        }
        return true;
    }

    void unlock() {
        lock.unlock();
    }

    /** Runs {@code task} on the worker thread, later; false when the worker has stopped. */
    boolean execute(Runnable task) {
        synchronized (lifecycle) {
            if (stopped) {
                return false;
            }
            tasks.add(task);
        }
        wake();
        return true;
    }

    /** Runs {@code task} on the worker thread at {@code at} (System.nanoTime) or later; only from the worker thread. */
    void schedule(long at, Runnable task) {
        delayed.add(new Delayed(at, task));
    }

    /** Runs {@code task} on the worker thread and returns its result; throws what it threw. */
    <T> T call(Callable<T> task) {
        if (onWorkerThread()) {
            try {
                return task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        boolean queued = execute(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        if (!queued) {
            throw new IllegalStateException("the ucx transport is closed");
        }
        try {
            return result.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Wakes the thread; one signal covers every task queued until it runs them. */
    void wake() {
        if (signalled.compareAndSet(false, true)) {
            synchronized (lifecycle) {
                if (!worker.equals(MemorySegment.NULL)) {
                    Ucx.signal(worker);
                }
            }
        }
    }

    /** Stops the thread after it has run {@link Loop#closing}, and waits for it. */
    void stop() {
        stopping = true;
        wake();
        if (!onWorkerThread()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        lock.lock();
        try {
            open();
            loop.opened(this);
            open = true;
            ready.complete(null);
        } catch (Throwable t) {
            closeWorker();
            if (context != null) {
                context.release();
            }
            synchronized (lifecycle) {
                stopped = true;
            }
            ready.completeExceptionally(t);
            return;
        } finally {
            lock.unlock();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = Libc.pollIn(Ucx.eventFd(worker), arena);
            long idleSince = 0;
            while (true) {
                int sleep; // < 0: spin
                lock.lock();
                try {
                    signalled.set(false);
                    runTasks();
                    if (stopping) {
                        break;
                    }
                    boolean progressed = false;
                    while (Ucx.progress(worker) != 0) {
                        progressed = true;
                    }
                    long now = System.nanoTime();
                    runDue(now);
                    boolean outstanding = loop.poll(now);
                    if (progressed || !tasks.isEmpty()) {
                        idleSince = 0;
                        continue;
                    }
                    if (outstanding && idleSince == 0) {
                        idleSince = now;
                    }
                    if (outstanding && now - idleSince < SPIN_NANOS) {
                        sleep = -1;
                    } else {
                        idleSince = 0;
                        if (Ucx.arm(worker) == Ucx.ERR_BUSY || !tasks.isEmpty()) {
                            continue; // events arrived (or a task came in) while arming: not a time to sleep
                        }
                        sleep = sleepMs(now, outstanding);
                    }
                } finally {
                    lock.unlock();
                }
                // without the lock: submitters copy meanwhile
                if (sleep < 0) {
                    Thread.onSpinWait();
                } else {
                    Libc.poll(pollfd, sleep);
                }
            }
        } finally {
            shutdown();
        }
    }

    private int sleepMs(long now, boolean outstanding) {
        long until = Math.min(loop.nextDeadline(), delayed.isEmpty() ? Long.MAX_VALUE : delayed.peek().at);
        long ms = until == Long.MAX_VALUE ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(until - now) + 1;
        return (int) Math.max(0, Math.min(ms, outstanding ? BUSY_POLL_MS : IDLE_POLL_MS));
    }

    private void runTasks() {
        for (Runnable t; (t = tasks.poll()) != null;) {
            t.run();
        }
    }

    private void runDue(long now) {
        while (!delayed.isEmpty() && delayed.peek().at - now <= 0) {
            delayed.poll().task.run();
        }
    }

    private void shutdown() {
        lock.lock();
        try {
            open = false; // from here on, submitters do not issue
            synchronized (lifecycle) {
                stopped = true; // and execute() refuses: the last tasks run now
            }
            runTasks();
            for (Delayed d; (d = delayed.poll()) != null;) {
                d.task.run(); // delayed for peers' sake: with the worker going, nobody can reach the memory
            }
            try {
                loop.closing();
            } finally {
                closeWorker();
                context.release();
            }
        } finally {
            lock.unlock();
        }
    }

    private void closeWorker() {
        synchronized (lifecycle) {
            if (!worker.equals(MemorySegment.NULL)) {
                ClosedWorkers.closed(address);
                Ucx.workerDestroy(worker);
                worker = MemorySegment.NULL;
            }
        }
    }

    /** ucp_config_read, TLS, ucp_init (RMA | WAKEUP), the TLS check, ucp_worker_create. */
    private void open() {
        // asked for something this host lacks, ucp_init may fail, and UCX 1.13's failure path
        // corrupts the process (the JVM crashed later, with its class-data mapping gone): so what
        // a context with every transport has is checked first, and ucp_init never fails here
        List<String> unavailable = Probe.resources().missing(tls);
        if (!unavailable.isEmpty()) {
            throw new IllegalStateException(tlsUnavailable(unavailable, "UCX has no such resource"));
        }
        MemorySegment ctx;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment configOut = a.allocate(ADDRESS);
            Ucx.check(Ucx.configRead(configOut), "ucp_config_read");
            MemorySegment config = configOut.get(ADDRESS, 0);
            MemorySegment ctxOut = a.allocate(ADDRESS);
            byte status;
            try {
                if (!tls.isBlank()) {
                    Ucx.check(Ucx.configModify(config, a.allocateFrom("TLS"), a.allocateFrom(tls.trim())),
                            "UCX_TLS=" + tls);
                }
                MemorySegment params = a.allocate(Ucx.PARAMS_SIZE);
                params.set(JAVA_LONG, 0, Ucx.PARAM_FIELD_FEATURES);
                params.set(JAVA_LONG, 8, Ucx.FEATURE_RMA | Ucx.FEATURE_WAKEUP);
                status = Ucx.init(params, config, ctxOut);
            } finally {
                Ucx.configRelease(config);
            }
            if (status != Ucx.OK) {
                throw new IllegalStateException(tlsUnavailable(null, "ucp_init: " + Ucx.describe(status)));
            }
            ctx = ctxOut.get(ADDRESS, 0);
            context = new Context(ctx);
            resources = Tls.of(Ucx.contextInfo(ctx));
            List<String> missing = resources.missing(tls);
            if (!missing.isEmpty()) {
                throw new IllegalStateException(tlsUnavailable(missing, "this context has " + resources.resources));
            }
            MemorySegment wp = a.allocate(Ucx.WORKER_PARAMS_SIZE);
            wp.set(JAVA_LONG, 0, Ucx.WORKER_PARAM_FIELD_THREAD_MODE);
            wp.set(JAVA_INT, 8, Ucx.THREAD_MODE_SERIALIZED);
            MemorySegment workerOut = a.allocate(ADDRESS);
            Ucx.check(Ucx.workerCreate(ctx, wp, workerOut), "ucp_worker_create");
            synchronized (lifecycle) {
                worker = workerOut.get(ADDRESS, 0);
            }
            address = Ucx.workerAddress(worker);
        }
    }

    /** UCX quietly drops transports it does not have; we fail, naming what this host offers. */
    private String tlsUnavailable(List<String> missing, String detail) {
        return "UCX transport(s) " + (missing == null ? tls : String.join(",", missing)) + " asked for (ucx.tls="
                + tls + ") not available here (" + detail + "); this host offers " + Probe.offered()
                + " (see ucx_info -d)";
    }

    /**
     * A UCP context, cleaned up when both the worker and every segment UCX allocated in it are
     * gone: a segment the client still uses (another transport may be serving it) must stay
     * mapped after this transport closes.
     */
    static final class Context {
        final MemorySegment handle;
        private int users = 1;

        Context(MemorySegment handle) {
            this.handle = handle;
        }

        synchronized void retain() {
            users++;
        }

        /** Unmaps {@code memh} (outside the worker thread only once the worker is gone), then releases. */
        synchronized void unmap(MemorySegment memh) {
            Ucx.memUnmap(handle, memh);
        }

        synchronized void release() {
            if (--users == 0) {
                Ucx.cleanup(handle);
            }
        }
    }
}
