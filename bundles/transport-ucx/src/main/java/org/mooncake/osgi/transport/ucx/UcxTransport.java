package org.mooncake.osgi.transport.ucx;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * One-sided READ/WRITE through UCX's ucp API (libucp.so.0, bound with FFM): shared memory on one
 * host, TCP or RDMA across hosts, whichever {@code ucx.tls} allows and the two workers negotiate.
 * One UCP context and worker per transport, progressed by one thread ({@link Worker}); requests are
 * issued on the submitter's thread (under the worker's lock) and, where they complete within the
 * calls (shared memory), finished there too; an endpoint per peer worker, remote keys per segment,
 * and every request with a timeout.
 *
 * <p><b>Segment memory.</b> {@link #allocateSegment} lets UCX allocate (ucp_mem_map ALLOCATE: a
 * POSIX shared-memory object where posix is configured): peers on the host then read and write it
 * one-sided, by copying through their own mapping, without this process's worker. Memory allocated
 * elsewhere and {@link #expose exposed} here is registered instead, and UCX 1.13 can only serve it
 * by software RMA over shared memory (this worker makes each copy) - about half the throughput
 * (README). Memory UCX allocated stays mapped until the client's arena closes, even after this
 * transport closes: the client may still serve it through other transports; UCX frees it then.
 *
 * <p><b>Addresses.</b> An endpoint address ({@link UcxAddress}) carries the owner's worker address,
 * the segment's base, size and packed remote key, and a control word that withdrawing zeroes:
 * peers check it after every transfer, so a withdrawn segment fails requests (UCX itself would let
 * a stale key read and write).
 */
@Component(service = {Transport.class, MetricSource.class}, immediate = true,
        property = Transport.PROTOCOL_PROPERTY + "=" + UcxTransport.PROTOCOL, configurationPid = UcxTransport.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = UcxTransport.Config.class)
public final class UcxTransport implements Transport, MetricSource, AutoCloseable {
    public static final String PROTOCOL = "ucx";
    public static final String PID = "org.mooncake.osgi.transport.ucx";
    private static final System.Logger LOG = System.getLogger(UcxTransport.class.getName());
    private static final AtomicBoolean UNAVAILABLE_LOGGED = new AtomicBoolean();
    /** Copies back into heap memory and READ checksums of batches the worker thread completed run here, never on it. */
    private static final ExecutorService FINISHER = Executors.newVirtualThreadPerTaskExecutor();

    @ObjectClassDefinition(name = "Mooncake UCX transport")
    public @interface Config {
        @AttributeDefinition(description = "UCX transports (UCX_TLS), e.g. posix,self or tcp or rc; empty: UCX's "
                + "default. One that is not available fails the transport")
        String ucx_tls() default "";

        @AttributeDefinition(description = "A request not done within this many ms fails (its endpoint is closed)")
        long request_timeout_ms() default 10_000;

        @AttributeDefinition(description = "Segments this transport allocates are allocated by UCX (one-sided over "
                + "shared memory); false: ordinary memory, which UCX serves by software RMA")
        boolean allocate_segments() default true;
    }

    /** Settings outside ConfigAdmin (tests, embedding). */
    public static Config with(String tls, long requestTimeoutMs, boolean allocateSegments) {
        return new Config() {
            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return Config.class;
            }

            @Override
            public String ucx_tls() {
                return tls;
            }

            @Override
            public long request_timeout_ms() {
                return requestTimeoutMs;
            }

            @Override
            public boolean allocate_segments() {
                return allocateSegments;
            }
        };
    }

    /** Settings outside ConfigAdmin: {@code tls}, the default timeout, segments allocated by UCX. */
    public static Config with(String tls) {
        return with(tls, 10_000, true);
    }

    /** Whether UCX can be used in this process (libucp.so.0 loaded). */
    public static boolean available() {
        return Ucx.available();
    }

    /** Why UCX cannot be used here, naming the package to install; null when it can. */
    public static String unavailableReason() {
        return Ucx.unavailableReason();
    }

    private final String tls;
    private final boolean allocateSegments;
    private final UcxMetrics metrics = new UcxMetrics();
    private final Engine engine;
    private final Worker worker;
    private final ConcurrentMap<String, UcxAddress> decoded = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Integer> costs = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Starts UCX; throws (naming what is missing) when libucp or a configured transport is not here. */
    @Activate
    public UcxTransport(Config c) {
        if (!Ucx.available()) {
            if (UNAVAILABLE_LOGGED.compareAndSet(false, true)) {
                LOG.log(Level.ERROR, "ucx transport not started: {0}", Ucx.unavailableReason());
            }
            throw new IllegalStateException(Ucx.unavailableReason());
        }
        if (c.request_timeout_ms() <= 0) {
            throw new IllegalArgumentException("request_timeout_ms must be > 0");
        }
        this.tls = c.ucx_tls() == null ? "" : c.ucx_tls().trim();
        this.allocateSegments = c.allocate_segments();
        this.engine = new Engine(metrics, this::decode, c.request_timeout_ms());
        this.worker = new Worker(tls, engine);
        worker.start();
        LOG.log(Level.INFO, "ucx transport started: ucx.tls={0}, transports {1}", tls.isEmpty() ? "(UCX default)" : tls,
                worker.resources.resources);
    }

    /** A changed configuration applies at the next start: a restart withdraws the segments this transport serves. */
    @Modified
    void modified(Config c) {
        if (!c.ucx_tls().trim().equals(tls) || c.allocate_segments() != allocateSegments) {
            LOG.log(Level.WARNING, "ucx transport: the new configuration applies when the transport restarts "
                    + "(restart bundle org.mooncake.osgi.transport.ucx); the restart withdraws the segments it serves");
        }
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    /** The UCX transports this transport's context has ("posix", "self", "tcp"). */
    public List<String> transports() {
        return List.copyOf(worker.resources.resources);
    }

    /** Peer → the UCX transports ("posix/memory", "tcp/lo") its endpoint's lanes use, for endpoints open now. */
    public Map<String, List<String>> negotiated() {
        return new TreeMap<>(engine.peers.negotiated);
    }

    /**
     * Memory UCX allocates (see the class comment), or with {@code allocate_segments=false} the
     * default off-heap memory. Freed when {@code arena} closes, after a grace period if it was
     * served: a peer's request in flight still finds memory.
     */
    @Override
    public MemorySegment allocateSegment(String segmentName, long sizeBytes, Arena arena) {
        if (!allocateSegments || sizeBytes == 0) { // UCX maps nothing for 0 bytes (a shared dummy handle)
            return Transport.super.allocateSegment(segmentName, sizeBytes, arena);
        }
        Exposures.Allocation a = worker.call(() -> engine.exposures.allocate(sizeBytes));
        return MemorySegment.ofAddress(a.address()).reinterpret(sizeBytes, arena, ignored -> release(a));
    }

    private void release(Exposures.Allocation a) {
        if (!worker.execute(() -> engine.exposures.release(a))) {
            worker.context.unmap(a.memh()); // the worker is gone: nobody else uses the context
            worker.context.release();
        }
    }

    @Override
    public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
        if (closed) {
            throw new IllegalStateException("the ucx transport is closed");
        }
        return worker.call(() -> engine.exposures.expose(segmentName, memory));
    }

    @Override
    public void withdraw(String segmentName) {
        if (!closed) {
            worker.call(() -> {
                engine.exposures.withdraw(segmentName);
                return null;
            });
        }
    }

    private UcxAddress decode(String address) {
        UcxAddress a = decoded.get(address);
        if (a == null) {
            a = UcxAddress.decode(address);
            decoded.put(address, a);
        }
        return a;
    }

    @Override
    public boolean canReach(SegmentEndpoint endpoint) {
        if (!PROTOCOL.equals(endpoint.protocol())) {
            return false;
        }
        try {
            return decode(endpoint.address()).sameHost() || worker.resources.network();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Just behind shm on one host over shared memory, RDMA's level over RDMA, above tcp over TCP (README). */
    @Override
    public int cost(SegmentEndpoint endpoint) {
        return costs.computeIfAbsent(endpoint.address(), address -> {
            try {
                return worker.resources.cost(decode(address).sameHost());
            } catch (IllegalArgumentException e) {
                return Integer.MAX_VALUE;
            }
        });
    }

    @Override
    public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
        if (batch.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        if (closed) {
            return CompletableFuture.completedFuture(
                    batch.stream().map(r -> TransferStatus.failed("the ucx transport is closed")).toList());
        }
        Batch b = new Batch(batch, engine.transfers.deadline());
        if (!worker.lockOpen()) {
            return CompletableFuture.completedFuture(
                    batch.stream().map(r -> TransferStatus.failed("the ucx transport is closed")).toList());
        }
        List<Op> rest;
        try {
            // copied on this thread where the segment is mapped here (shared memory UCX allocated)
            rest = engine.transfers.copyHere(b);
        } finally {
            worker.unlock();
        }
        if (!rest.isEmpty()) {
            for (Op op : rest) {
                op.prepare(); // bounce buffers and WRITE checksums, on this thread
            }
            if (!worker.execute(() -> engine.transfers.issue(rest))) {
                for (Op op : rest) {
                    op.failed = TransferStatus.failed("the ucx transport is closed");
                    b.opDone();
                }
            }
        }
        if (b.moved.isDone()) {
            return CompletableFuture.completedFuture(b.finish());
        }
        if (b.confined) {
            // memory of the caller's confined arena: moved, copied and checksummed before we return
            b.moved.join();
            return CompletableFuture.completedFuture(b.finish());
        }
        // left in flight: never completed on the worker thread, a caller's stage that blocks (or
        // submits and joins) there would stall every transfer
        return b.moved.thenApplyAsync(ignored -> b.finish(), FINISHER);
    }

    @Override
    public List<Metric> metrics() {
        return metrics.metrics(closed ? 0 : exposedCount());
    }

    private int exposedCount() {
        try {
            return worker.call(() -> engine.exposures.exposedCount());
        } catch (IllegalStateException closedMeanwhile) {
            return 0;
        }
    }

    /** Fails what is in flight, withdraws every segment, closes endpoints, destroys the worker (and the context, once unused). */
    @Deactivate
    @Override
    public void close() {
        closed = true;
        worker.stop();
    }
}
