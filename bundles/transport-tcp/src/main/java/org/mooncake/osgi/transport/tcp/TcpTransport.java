package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;

import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.HugePages;
import org.mooncake.osgi.store.spi.transport.TransferOp;
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
 * One-sided READ/WRITE over TCP. The segment owner's server copies between the socket and its
 * off-heap segment directly (no staging buffer); the requester slices each transfer into chunks
 * and spreads them over up to {@code connections_per_peer} connections at once, on virtual threads.
 */
@Component(service = Transport.class, property = Transport.PROTOCOL_PROPERTY + "=" + TcpTransport.PROTOCOL,
        configurationPid = TcpTransport.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TcpTransport.Config.class)
public final class TcpTransport implements Transport, AutoCloseable {
    public static final String PROTOCOL = "tcp";
    public static final String PID = "org.mooncake.osgi.transport.tcp";
    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());

    @ObjectClassDefinition(name = "Mooncake TCP transport")
    public @interface Config {
        @AttributeDefinition(description = "Address the segment server binds")
        String bind_address() default "127.0.0.1";

        @AttributeDefinition(description = "Port of the segment server; 0 picks a free one")
        int port() default 0;

        @AttributeDefinition(description = "Host peers use to reach this process; empty: the bind address")
        String advertised_host() default "";

        @AttributeDefinition(description = "Connections opened to one peer at most")
        int connections_per_peer() default 4;

        @AttributeDefinition(description = "Bytes per slice of a large transfer")
        int chunk_bytes() default 4 << 20;

        @AttributeDefinition(description = "A slice not done within this many ms fails (its connection is closed)")
        long io_timeout_ms() default 30_000;

        @AttributeDefinition(description = "Microseconds a connection polls for its next request or response before "
                + "its thread sleeps (0: never poll); trades CPU for latency, 0-10000")
        long spin_wait_us() default DEFAULT_SPIN_WAIT_US;
    }

    /** See {@code spin_wait_us}: 50 us halved small round trips on a 2-vCPU VM (docs/benchmarks.md). */
    public static final long DEFAULT_SPIN_WAIT_US = 50;

    /** Never started: asks whether memory may be used off the caller's thread. */
    private static final Thread OTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    /** Settings outside ConfigAdmin (tests, embedding): loopback on a free port, the default spin. */
    public static Config loopback(int connectionsPerPeer, int chunkBytes, long ioTimeoutMs) {
        return loopback(connectionsPerPeer, chunkBytes, ioTimeoutMs, DEFAULT_SPIN_WAIT_US);
    }

    /** Settings outside ConfigAdmin (tests, embedding): loopback on a free port. */
    public static Config loopback(int connectionsPerPeer, int chunkBytes, long ioTimeoutMs, long spinWaitUs) {
        return new Config() {
            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return Config.class;
            }

            @Override
            public String bind_address() {
                return "127.0.0.1";
            }

            @Override
            public int port() {
                return 0;
            }

            @Override
            public String advertised_host() {
                return "";
            }

            @Override
            public int connections_per_peer() {
                return connectionsPerPeer;
            }

            @Override
            public int chunk_bytes() {
                return chunkBytes;
            }

            @Override
            public long io_timeout_ms() {
                return ioTimeoutMs;
            }

            @Override
            public long spin_wait_us() {
                return spinWaitUs;
            }
        };
    }

    private final SegmentServer server;
    private final String advertised;
    /** {@code spin_wait_us} in the unit the connections poll in. */
    private final long spinNanos;
    private final ConcurrentMap<String, PeerConnections> peers = new ConcurrentHashMap<>();
    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();

    /** A configuration, read and checked: a broken one fails here, before anything changes. */
    record Settings(String bindAddress, int port, String advertisedHost, int connectionsPerPeer, int chunkBytes,
            long ioTimeoutMs, long spinWaitUs) {
        Settings {
            if (port < 0 || port > 65535 || connectionsPerPeer < 1 || chunkBytes < 4096 || ioTimeoutMs <= 0
                    || spinWaitUs < 0 || spinWaitUs > 10_000) {
                throw new IllegalArgumentException("port must be 0-65535, connections_per_peer >= 1, "
                        + "chunk_bytes >= 4096, io_timeout_ms > 0, spin_wait_us 0-10000");
            }
        }

        static Settings of(Config c) {
            return new Settings(c.bind_address(), c.port(), c.advertised_host(), c.connections_per_peer(),
                    c.chunk_bytes(), c.io_timeout_ms(), c.spin_wait_us());
        }

        /** The properties, by name, that differ from {@code o}. */
        List<String> changesFrom(Settings o) {
            List<String> changed = new ArrayList<>();
            if (!bindAddress.equals(o.bindAddress)) {
                changed.add("bind.address");
            }
            if (port != o.port) {
                changed.add("port");
            }
            if (!advertisedHost.equals(o.advertisedHost)) {
                changed.add("advertised.host");
            }
            if (connectionsPerPeer != o.connectionsPerPeer) {
                changed.add("connections.per.peer");
            }
            if (chunkBytes != o.chunkBytes) {
                changed.add("chunk.bytes");
            }
            if (ioTimeoutMs != o.ioTimeoutMs) {
                changed.add("io.timeout.ms");
            }
            if (spinWaitUs != o.spinWaitUs) {
                changed.add("spin.wait.us");
            }
            return changed;
        }
    }

    private final Settings settings;

    @Activate
    public TcpTransport(Config c) throws IOException {
        this.settings = Settings.of(c);
        this.spinNanos = TimeUnit.MICROSECONDS.toNanos(settings.spinWaitUs());
        this.server = new SegmentServer(new InetSocketAddress(settings.bindAddress(), settings.port()),
                settings.chunkBytes(), spinNanos);
        String host = settings.advertisedHost().isBlank() ? settings.bindAddress() : settings.advertisedHost();
        this.advertised = host + ":" + server.port();
        LOG.log(Level.INFO, "tcp transport serving segments at {0}", advertised);
    }

    /**
     * A changed configuration is read at the next start only. Without this DS would restart the
     * transport for any change, and a client whose segment it serves with it: the segment, and
     * every object in it, would be withdrawn by a tuning change, and a broken file would leave the
     * node with no transport at all. So a broken one is refused, and a valid one is logged with
     * how to apply it.
     */
    @Modified
    void modified(Config c) {
        Settings next;
        try {
            next = Settings.of(c);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rejected tcp transport configuration, still serving at {0} as configured before: {1}",
                    advertised, e.getMessage());
            return;
        }
        List<String> changed = next.changesFrom(settings);
        if (!changed.isEmpty()) {
            LOG.log(Level.WARNING, "tcp transport: {0} changed and applies when the transport restarts (restart bundle "
                    + "org.mooncake.osgi.transport.tcp); the restart withdraws the segments it serves and the objects "
                    + "in them", String.join(", ", changed));
        }
    }

    /** What runs now (tests). */
    Settings settings() {
        return settings;
    }

    /** host:port peers use for this process's segments. */
    public String address() {
        return advertised;
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    /**
     * On transparent huge pages where Linux offers them: the socket copies move megabytes at a
     * time, and a 1 MiB get from a huge-page segment took 0.27–0.35 ms against 0.47–0.49 ms
     * (docs/benchmarks.md).
     */
    @Override
    public MemorySegment allocateSegment(String segmentName, long sizeBytes, Arena arena) {
        return HugePages.allocate(sizeBytes, arena);
    }

    @Override
    public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
        server.expose(segmentName, memory);
        return new SegmentEndpoint(PROTOCOL, advertised, segmentName);
    }

    @Override
    public void withdraw(String segmentName) {
        server.withdraw(segmentName);
    }

    @Override
    public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
        if (workers.isShutdown()) {
            return CompletableFuture.completedFuture(
                    batch.stream().map(r -> TransferStatus.failed("the tcp transport is closed")).toList());
        }
        if (batch.size() == 1 && batch.getFirst().length() <= settings.chunkBytes()) {
            // one small request: moving it on the caller's thread saves two thread hand-offs
            TransferRequest r = batch.getFirst();
            return CompletableFuture.completedFuture(List.of(await(startChunks(r, true), r.length())));
        }
        List<List<Future<?>>> chunks = new ArrayList<>(batch.size());
        for (TransferRequest r : batch) {
            chunks.add(startChunks(r, false));
        }
        java.util.function.Supplier<List<TransferStatus>> collect = () -> {
            List<TransferStatus> out = new ArrayList<>(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                out.add(await(chunks.get(i), batch.get(i).length()));
            }
            return out;
        };
        try {
            return CompletableFuture.supplyAsync(collect, workers);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            return CompletableFuture.completedFuture(collect.get());
        }
    }

    private List<Future<?>> startChunks(TransferRequest r, boolean inline) {
        List<Future<?>> futures = new ArrayList<>();
        PeerConnections peer;
        try {
            peer = peer(r.remote().address());
        } catch (IllegalArgumentException e) {
            futures.add(CompletableFuture.failedFuture(e));
            return futures;
        }
        byte op = r.op() == TransferOp.READ ? Wire.READ : Wire.WRITE;
        // memory of a confined arena may only be touched by its thread: move it from here, in order
        boolean confined = inline || !r.local().isAccessibleBy(OTHER_THREAD);
        for (long off = 0; off < r.length(); off += settings.chunkBytes()) {
            long at = off;
            MemorySegment part = r.local().asSlice(off, Math.min(settings.chunkBytes(), r.length() - off));
            java.util.concurrent.Callable<Void> chunk = () -> {
                peer.transfer(op, r.remote().segmentName(), r.remoteOffset() + at, part);
                return null;
            };
            if (confined) {
                CompletableFuture<Void> done = new CompletableFuture<>();
                try {
                    chunk.call();
                    done.complete(null);
                } catch (Exception e) {
                    done.completeExceptionally(e);
                }
                futures.add(done);
            } else {
                try {
                    futures.add(workers.submit(chunk));
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    futures.add(CompletableFuture.failedFuture(new IOException("the tcp transport is closed")));
                }
            }
        }
        return futures;
    }

    private static TransferStatus await(List<Future<?>> chunks, long bytes) {
        String error = null;
        for (Future<?> f : chunks) {
            try {
                f.get();
            } catch (Exception e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                error = error != null ? error : cause.toString();
            }
        }
        return error == null ? TransferStatus.done(bytes) : TransferStatus.failed(error);
    }

    private PeerConnections peer(String address) {
        return peers.computeIfAbsent(address, a -> {
            int colon = a.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("tcp address must be host:port, was " + a);
            }
            return new PeerConnections(new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))),
                    settings.connectionsPerPeer(), settings.ioTimeoutMs(), spinNanos);
        });
    }

    @Deactivate
    @Override
    public void close() {
        try {
            server.close();
            for (PeerConnections p : peers.values()) {
                p.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            workers.shutdownNow();
        }
    }
}
