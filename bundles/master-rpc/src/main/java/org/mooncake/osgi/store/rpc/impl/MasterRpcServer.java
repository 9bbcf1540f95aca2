package org.mooncake.osgi.store.rpc.impl;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.security.cert.X509Certificate;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Serves the local master to clients in other processes. One virtual thread per connection;
 * its requests run in order, so TCP flow control is the back-pressure. The first request of a
 * connection must be {@code HELLO} with the protocol version. A malformed frame ends its
 * connection; a bad request gets an error response; neither touches other connections.
 * <p>
 * With TLS (the {@code tls.*} properties) every connection is TLS 1.3 with a client certificate
 * of the cluster CA; with {@code auth.tokens.file} a connection may instead present a token as
 * HELLO's second argument. Either identity ({@link PeerIdentity}, settled at HELLO by
 * {@link Admission}) bounds what the connection may do ({@link GuardedMaster}), and holds at most
 * {@code max.connections.per.identity} connections ({@link ConnectionQuota}); with neither
 * ({@code tls.insecure=true}) anyone who reaches the port may do anything, which is why the
 * default bind address is loopback.
 */
@Component(service = MasterRpcServer.class, immediate = true, configurationPid = MasterRpcServer.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = MasterRpcServer.Config.class)
public final class MasterRpcServer implements AutoCloseable {
    public static final String PID = "org.mooncake.osgi.store.rpc.server";
    private static final System.Logger LOG = System.getLogger(MasterRpcServer.class.getName());

    @ObjectClassDefinition(name = "Mooncake master RPC server")
    public @interface Config {
        @AttributeDefinition(description = "Address to bind (loopback unless set: a reachable address "
                + "should come with TLS)")
        String bind_address() default "127.0.0.1";

        @AttributeDefinition(description = "TCP port (upstream's rpc port); 0 picks a free one")
        int port() default 50051;

        @AttributeDefinition(description = "Largest frame accepted, bytes")
        int max_frame_bytes() default 16 << 20;

        @AttributeDefinition(description = "Most keys (or completions) one batch request may carry; a longer "
                + "batch is refused with INVALID_PARAMS before the master does any work")
        int max_batch_keys() default MasterOps.DEFAULT_MAX_BATCH;

        @AttributeDefinition(description = "A frame must arrive whole within this many ms of its first byte: "
                + "a peer that trickles bytes (a slowloris) is cut off")
        int frame_timeout_ms() default 30_000;

        @AttributeDefinition(description = "A connection that sends nothing for this many ms is closed "
                + "(0: never); clients heartbeat far more often and reconnect when they need to")
        int idle_timeout_ms() default 600_000;

        @AttributeDefinition(description = "PKCS12 keystore with this master's key and certificate (role master), "
                + "signed by the cluster CA; empty: no TLS")
        String tls_keystore() default "";

        @AttributeDefinition(description = "PKCS12 truststore with the cluster CA certificate; "
                + "client certificates must chain to it")
        String tls_truststore() default "";

        @AttributeDefinition(description = "Password of the keystore and the truststore",
                type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
        String tls_password() default "";

        @AttributeDefinition(description = "Serve without TLS: anyone who reaches the port may act as any "
                + "client and tenant. Without TLS configured and without this, the server refuses to start")
        boolean tls_insecure() default false;

        @AttributeDefinition(description = "File of shared-secret access tokens, lines 'TOKEN tenant=NAME "
                + "role=client|node|admin' (docs/security.md); a client presents its token as HELLO's second "
                + "argument and is then who the line says. Set: a connection without a client certificate needs a "
                + "token, and the server starts without TLS. Empty: no tokens")
        String auth_tokens_file() default "";

        @AttributeDefinition(description = "Most connections one authenticated identity (certificate CN or token "
                + "name) may hold at once; the next is refused at HELLO with ACCESS_DENIED")
        int max_connections_per_identity() default 64;
    }

    /** How long a connection has to complete its TLS handshake. */
    static final int HANDSHAKE_TIMEOUT_MS = 10_000;

    private final MasterService master;
    private final ServerSocket server;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final ClientIdOwners owners = new ClientIdOwners();
    private final ConnectionQuota quota;
    private final Thread acceptor;
    private volatile boolean closed;

    /** A configuration, read and checked: a broken one fails here, before anything changes. */
    record Settings(String bindAddress, int port, int maxFrameBytes, int maxBatchKeys, FrameTimeouts timeouts,
            ClusterTls tls, AccessTokens tokens, int maxConnectionsPerIdentity) {
        Settings {
            if (port < 0 || port > 65535 || maxFrameBytes < 1024 || maxBatchKeys < 1) {
                throw new IllegalArgumentException("port must be 0-65535, max_frame_bytes >= 1024 and max_batch_keys >= 1");
            }
            if (maxConnectionsPerIdentity < 1) {
                throw new IllegalArgumentException("max.connections.per.identity must be at least 1");
            }
        }

        static Settings of(Config c) {
            String tokenFile = c.auth_tokens_file() == null ? "" : c.auth_tokens_file().strip();
            AccessTokens tokens = tokenFile.isEmpty() ? null : AccessTokens.read(java.nio.file.Path.of(tokenFile));
            // tokens authenticate without TLS: an operator's choice, not an omission
            return new Settings(c.bind_address(), c.port(), c.max_frame_bytes(), c.max_batch_keys(),
                    new FrameTimeouts(c.idle_timeout_ms(), c.frame_timeout_ms()),
                    ClusterTls.of(c.tls_keystore(), c.tls_truststore(), c.tls_password(),
                            c.tls_insecure() || tokens != null, PID),
                    tokens, c.max_connections_per_identity());
        }
    }

    private final Settings settings;

    @Activate
    public MasterRpcServer(Config c, @Reference(target = "(!(" + RemoteMasterService.REMOTE_PROPERTY + "=true))")
            MasterService master) throws IOException {
        this.settings = refusedLoudly(() -> Settings.of(c));
        this.master = master;
        this.quota = new ConnectionQuota(settings.maxConnectionsPerIdentity());
        this.server = serverSocket(settings.tls());
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(settings.bindAddress(), settings.port()), 256);
        acceptor = Thread.ofPlatform().daemon().name("mooncake-rpc-accept").start(this::accept);
        LOG.log(Level.INFO, "master RPC on {0}:{1}, {2}", settings.bindAddress(), String.valueOf(port()),
                (settings.tls() == null ? "without TLS" : settings.tls().toString())
                        + (settings.tokens() != null ? ", " + settings.tokens() : settings.tls() == null ? " (tls.insecure)" : ""));
    }

    private static ServerSocket serverSocket(ClusterTls tls) throws IOException {
        if (tls == null) {
            return new ServerSocket();
        }
        SSLContext ctx = tls.context();
        SSLServerSocket s = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket();
        s.setSSLParameters(ClusterTls.parameters(ctx, true));
        return s;
    }

    /**
     * A changed configuration is read at the next start only. DS would otherwise restart the
     * server for any change, and for a broken file leave none: every remote client would lose the
     * master, and after {@code client.ttl.ms} the master would drop their segments and objects.
     * So a broken file is refused, and a valid one is logged with how to apply it.
     */
    @Modified
    void modified(Config c) {
        Settings next;
        try {
            next = Settings.of(c);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rejected master RPC configuration, still serving on port {0}: {1}",
                    String.valueOf(port()), e.getMessage());
            return;
        }
        if (!next.equals(settings)) {
            LOG.log(Level.WARNING, "master RPC: {0} applies when bundle org.mooncake.osgi.master.rpc restarts "
                    + "(clients reconnect; the master keeps its objects)", next);
        }
    }

    /** What runs now (tests). */
    Settings settings() {
        return settings;
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                if (closed) {
                    s.close(); // accepted while closing: nobody will serve it
                    return;
                }
                s.setTcpNoDelay(true);
                connections.add(s);
                Thread.ofVirtual().name("mooncake-rpc-conn").start(() -> serve(s));
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.log(Level.WARNING, "accept failed: {0}", e.toString());
                }
            }
        }
    }

    /** The identity in the client certificate, after the TLS handshake; null in plain text. */
    private static PeerIdentity certified(Socket s) throws IOException {
        if (!(s instanceof SSLSocket tls)) {
            return null;
        }
        s.setSoTimeout(HANDSHAKE_TIMEOUT_MS); // a peer that never finishes its handshake holds nothing for long
        tls.startHandshake();
        s.setSoTimeout(0);
        PeerIdentity who;
        try {
            who = PeerIdentity.of((X509Certificate) tls.getSession().getPeerCertificates()[0]);
        } catch (IllegalArgumentException e) {
            throw new IOException("refused a client certificate: " + e.getMessage());
        }
        return who;
    }

    private void serve(Socket s) {
        try (s; Admission who = new Admission(certified(s), settings.tokens(), quota)) {
            serve(s, who);
        } catch (EOFException | SocketException e) {
            // the client went away
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing an RPC connection from {0}: {1}", s.getRemoteSocketAddress(), e.getMessage());
        } finally {
            connections.remove(s);
        }
    }

    private void serve(Socket s, Admission who) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
            boolean greeted = false;
            int version = 0;
            MasterService master = null; // the master as this connection's identity may use it, once admitted
            while (true) {
                Messages.Request req = Messages.CBOR.readValue(settings.timeouts().read(s, in, settings.maxFrameBytes()),
                        Messages.Request.class);
                long readAtNanos = System.nanoTime(); // a request's timeoutMs counts from here
                if (req == null) {
                    throw new Frames.BadFrame("a frame whose body is CBOR null, not a request");
                }
                Messages.Response resp;
                if (!greeted) {
                    resp = admitted(hello(req), req, who);
                    master = who.master(this.master, owners);
                    greeted = resp.code() == 0;
                    version = greeted ? resp.result().asInt() : 0;
                    resp = greeted ? resp.withMaxBatchKeys(settings.maxBatchKeys()) : resp;
                } else {
                    resp = handle(req, RequestDeadline.of(req, readAtNanos), version, master, settings.maxBatchKeys());
                }
                Frames.write(out, Messages.CBOR.writeValueAsBytes(resp.at(System.currentTimeMillis())));
                if (!greeted) {
                    return;
                }
            }
        }
    }

    /**
     * A HELLO the version check accepted, answered ACCESS_DENIED when the connection's credentials
     * do not admit it ({@link Admission}); the connection then closes like any refused HELLO.
     */
    private static Messages.Response admitted(Messages.Response hello, Messages.Request req, Admission who) {
        if (hello.code() != 0) {
            return hello;
        }
        try {
            who.admit(req.args());
            return hello;
        } catch (StoreException e) {
            return error(req.id(), e);
        }
    }

    private static Messages.Response hello(Messages.Request req) {
        if (!"HELLO".equals(req.op())) {
            return error(req.id(), new StoreException(ErrorCode.INVALID_PARAMS, "the first request must be HELLO"));
        }
        JsonNode v = req.args() != null && req.args().isArray() && req.args().size() > 0 ? req.args().get(0) : null;
        if (v == null || !v.canConvertToInt() || v.asInt() < Frames.OLDEST_SERVED_VERSION
                || v.asInt() > Frames.PROTOCOL_VERSION) {
            return error(req.id(), new StoreException(ErrorCode.INVALID_VERSION, "protocol version " + v
                    + " is not served; this master speaks " + Frames.OLDEST_SERVED_VERSION + " to "
                    + Frames.PROTOCOL_VERSION));
        }
        // the client's version: it is answered in that version's terms
        return new Messages.Response(req.id(), 0, null, Messages.CBOR.valueToTree(v.asInt()));
    }

    private static Messages.Response handle(Messages.Request req, RequestDeadline deadline, int version,
            MasterService master, int maxBatch) {
        try {
            if (deadline.passed()) {
                throw new StoreException(ErrorCode.RPC_FAIL, "deadline passed before the master got to it");
            }
            MasterOps.Op op = MasterOps.Op.named(req.op());
            Object result = op.handler.run(master, new MasterOps.Args(req.args(), maxBatch));
            if (version < 3) {
                result = OlderClients.inVersion2(result);
            }
            return new Messages.Response(req.id(), 0, null, Messages.CBOR.valueToTree(result));
        } catch (StoreException e) {
            return error(req.id(), e);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "master operation " + req.op() + " failed", e);
            return error(req.id(), new StoreException(ErrorCode.INTERNAL_ERROR, e.toString()));
        }
    }

    private static Messages.Response error(long id, StoreException e) {
        return new Messages.Response(id, e.errorCode().code(), e.detail(), null);
    }

    @Deactivate
    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Socket s : connections) {
            s.close();
        }
    }

    /** A configuration refused at activation is logged with its reason before DS reports the failure. */
    private static Settings refusedLoudly(java.util.function.Supplier<Settings> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "not started: " + e.getMessage());
            throw e;
        }
    }
}
