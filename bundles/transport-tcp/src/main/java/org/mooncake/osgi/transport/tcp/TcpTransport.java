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

import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.HugePages;
import org.mooncake.osgi.store.spi.metrics.Metric;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
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
 *
 * <p>Every request carries the master's grant for it ({@link TransferRequest#grant}); a segment
 * exposed with a {@link GrantKey} serves only requests whose grant permits them
 * ({@code grants.checked}). With {@code tls.*} every connection is TLS 1.3 with certificates of
 * the cluster CA, both ways (docs/security.md, "Data path").
 */
@Component(service = {Transport.class, MetricSource.class}, property = Transport.PROTOCOL_PROPERTY + "=" + TcpTransport.PROTOCOL,
        configurationPid = TcpTransport.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TcpTransport.Config.class)
public final class TcpTransport implements Transport, MetricSource, AutoCloseable {
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

        @AttributeDefinition(description = "Check the master's grant on every request to a segment mounted with a "
                + "grant key (false: serve any request that reaches the port, as before grants; only where every "
                + "peer that can reach it is trusted)")
        boolean grants_checked() default true;

        @AttributeDefinition(description = "PKCS12 keystore with this process's key and certificate, signed by the "
                + "cluster CA; with tls.truststore: every connection is TLS 1.3 with a client certificate. Empty: plain TCP")
        String tls_keystore() default "";

        @AttributeDefinition(description = "PKCS12 truststore with the cluster CA certificate; peers' certificates "
                + "must chain to it")
        String tls_truststore() default "";

        @AttributeDefinition(description = "Password of the keystore and the truststore",
                type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
        String tls_password() default "";

        @AttributeDefinition(description = "Whether the stores above make the data path TLS; false keeps it plain TCP "
                + "(a cluster profile passes the master RPC's stores here and lets --set data.tls=false choose speed)")
        boolean tls_enabled() default true;
    }

    /** See {@code spin_wait_us}: 50 us halved small round trips on a 2-vCPU VM (docs/benchmarks.md). */
    public static final long DEFAULT_SPIN_WAIT_US = 50;

    /** Never started: asks whether memory may be used off the caller's thread. */
    private static final Thread OTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    /** Settings outside ConfigAdmin (tests, embedding): loopback on a free port, the default spin. */
    public static Config loopback(int connectionsPerPeer, int chunkBytes, long ioTimeoutMs) {
        return loopback(connectionsPerPeer, chunkBytes, ioTimeoutMs, DEFAULT_SPIN_WAIT_US);
    }

    /** Settings outside ConfigAdmin (tests, embedding): loopback on a free port, grants checked, plain TCP. */
    public static Config loopback(int connectionsPerPeer, int chunkBytes, long ioTimeoutMs, long spinWaitUs) {
        return config(new Settings("127.0.0.1", 0, "", connectionsPerPeer, chunkBytes, ioTimeoutMs, spinWaitUs, true,
                "", "", ""));
    }

    /** {@code c} with {@code grants.checked} set to {@code checked}. */
    public static Config withGrantsChecked(Config c, boolean checked) {
        Settings s = Settings.of(c);
        return config(new Settings(s.bindAddress(), s.port(), s.advertisedHost(), s.connectionsPerPeer(), s.chunkBytes(),
                s.ioTimeoutMs(), s.spinWaitUs(), checked, s.tlsKeystore(), s.tlsTruststore(), s.tlsPassword()));
    }

    /** {@code c} with TLS from these PKCS12 stores ({@code tls.keystore}, {@code tls.truststore}, {@code tls.password}). */
    public static Config withTls(Config c, String keystore, String truststore, String password) {
        Settings s = Settings.of(c);
        return config(new Settings(s.bindAddress(), s.port(), s.advertisedHost(), s.connectionsPerPeer(), s.chunkBytes(),
                s.ioTimeoutMs(), s.spinWaitUs(), s.grantsChecked(), keystore, truststore, password));
    }

    private static Config config(Settings s) {
        return new Config() {
            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return Config.class;
            }

            @Override
            public String bind_address() {
                return s.bindAddress();
            }

            @Override
            public int port() {
                return s.port();
            }

            @Override
            public String advertised_host() {
                return s.advertisedHost();
            }

            @Override
            public int connections_per_peer() {
                return s.connectionsPerPeer();
            }

            @Override
            public int chunk_bytes() {
                return s.chunkBytes();
            }

            @Override
            public long io_timeout_ms() {
                return s.ioTimeoutMs();
            }

            @Override
            public long spin_wait_us() {
                return s.spinWaitUs();
            }

            @Override
            public boolean grants_checked() {
                return s.grantsChecked();
            }

            @Override
            public String tls_keystore() {
                return s.tlsKeystore();
            }

            @Override
            public String tls_truststore() {
                return s.tlsTruststore();
            }

            @Override
            public String tls_password() {
                return s.tlsPassword();
            }

            @Override
            public boolean tls_enabled() {
                return true;
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
            long ioTimeoutMs, long spinWaitUs, boolean grantsChecked, String tlsKeystore, String tlsTruststore,
            String tlsPassword) {
        Settings {
            if (port < 0 || port > 65535 || connectionsPerPeer < 1 || chunkBytes < 4096 || ioTimeoutMs <= 0
                    || spinWaitUs < 0 || spinWaitUs > 10_000) {
                throw new IllegalArgumentException("port must be 0-65535, connections_per_peer >= 1, "
                        + "chunk_bytes >= 4096, io_timeout_ms > 0, spin_wait_us 0-10000");
            }
            tlsKeystore = tlsKeystore == null ? "" : tlsKeystore;
            tlsTruststore = tlsTruststore == null ? "" : tlsTruststore;
            tlsPassword = tlsPassword == null ? "" : tlsPassword;
        }

        /** The TLS these settings name, its stores read now (null: plain TCP); IllegalArgumentException if unusable. */
        DataPathTls tls() {
            return DataPathTls.of(tlsKeystore, tlsTruststore, tlsPassword);
        }

        static Settings of(Config c) {
            return new Settings(c.bind_address(), c.port(), c.advertised_host(), c.connections_per_peer(),
                    c.chunk_bytes(), c.io_timeout_ms(), c.spin_wait_us(), c.grants_checked(),
                    c.tls_enabled() ? c.tls_keystore() : "", c.tls_enabled() ? c.tls_truststore() : "", c.tls_password());
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
            if (grantsChecked != o.grantsChecked) {
                changed.add("grants.checked");
            }
            if (!tlsKeystore.equals(o.tlsKeystore) || !tlsTruststore.equals(o.tlsTruststore)
                    || !tlsPassword.equals(o.tlsPassword)) {
                changed.add("tls.*");
            }
            return changed;
        }
    }

    private final Settings settings;
    /** TLS on every connection, both ways; null: plain TCP. */
    private final DataPathTls tls;

    @Activate
    public TcpTransport(Config c) throws IOException {
        this(c, System::currentTimeMillis);
    }

    /** With {@code clockMs} as this node's wall clock, against which grants expire (tests). */
    TcpTransport(Config c, java.util.function.LongSupplier clockMs) throws IOException {
        this.settings = Settings.of(c);
        this.tls = settings.tls();
        this.spinNanos = TimeUnit.MICROSECONDS.toNanos(settings.spinWaitUs());
        this.server = new SegmentServer(new InetSocketAddress(settings.bindAddress(), settings.port()),
                settings.chunkBytes(), spinNanos, settings.grantsChecked(), clockMs, tls == null ? null : tls.context());
        String host = settings.advertisedHost().isBlank() ? settings.bindAddress() : settings.advertisedHost();
        this.advertised = host + ":" + server.port();
        LOG.log(Level.INFO, "tcp transport serving segments at {0} ({1}; grants {2})", advertised,
                tls == null ? "plain TCP" : tls, settings.grantsChecked() ? "checked" : "NOT checked (grants.checked=false)");
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

    /** Served to any request that reaches it: for segments whose master signs no grants. */
    @Override
    public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
        return expose(segmentName, memory, null);
    }

    /**
     * Served only to requests whose grant, signed with {@code grantKey}, permits them (unless
     * {@code grants.checked} is false); null: as {@link #expose(String, MemorySegment)}.
     */
    @Override
    public SegmentEndpoint expose(String segmentName, MemorySegment memory, GrantKey grantKey) {
        server.expose(segmentName, memory, grantKey);
        return new SegmentEndpoint(PROTOCOL, advertised, segmentName);
    }

    /**
     * {@code mooncake_tcp_requests_denied_total{reason}}: requests to segments that check grants
     * answered ACCESS_DENIED, by reason ({@code no_grant}, {@code forged}, {@code expired},
     * {@code wrong_operation}, {@code out_of_range}); {@code mooncake_tcp_tls_handshake_failures_total}.
     */
    @Override
    public List<Metric> metrics() {
        List<Metric.Sample> denied = new ArrayList<>();
        server.denied().forEach((reason, n) -> denied.add(Metric.Sample.of(java.util.Map.of("reason", reason), n)));
        return List.of(new Metric("mooncake_tcp_requests_denied_total", "Requests to this node's segments refused for "
                + "their grant (ACCESS_DENIED), by reason", Metric.Type.COUNTER, denied),
                Metric.counter("mooncake_tcp_tls_handshake_failures_total",
                        "Connections to this node's segment server whose TLS handshake failed", server.handshakeFailures()));
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
                peer.transfer(op, r.remote().segmentName(), r.remoteOffset() + at, part, r.grant());
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

    /** Done when every chunk is; else failed with the first error, in doubt when any chunk's WRITE is. */
    private static TransferStatus await(List<Future<?>> chunks, long bytes) {
        String error = null;
        boolean inDoubt = false;
        for (Future<?> f : chunks) {
            try {
                f.get();
            } catch (Exception e) {
                Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
                        ? e.getCause() : e;
                error = error != null ? error : cause.toString();
                inDoubt |= cause instanceof InDoubtException;
            }
        }
        return error == null ? TransferStatus.done(bytes)
                : inDoubt ? TransferStatus.failedInDoubt(error) : TransferStatus.failed(error);
    }

    private PeerConnections peer(String address) {
        return peers.computeIfAbsent(address, a -> {
            int colon = a.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("tcp address must be host:port, was " + a);
            }
            return new PeerConnections(new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))),
                    settings.connectionsPerPeer(), settings.ioTimeoutMs(), spinNanos, tls == null ? null : tls.context());
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
