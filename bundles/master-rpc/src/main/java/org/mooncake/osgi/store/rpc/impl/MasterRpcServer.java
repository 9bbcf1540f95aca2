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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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
 */
@Component(service = MasterRpcServer.class, immediate = true, configurationPid = MasterRpcServer.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = MasterRpcServer.Config.class)
public final class MasterRpcServer implements AutoCloseable {
    public static final String PID = "org.mooncake.osgi.store.rpc.server";
    private static final System.Logger LOG = System.getLogger(MasterRpcServer.class.getName());

    @ObjectClassDefinition(name = "Mooncake master RPC server")
    public @interface Config {
        @AttributeDefinition(description = "Address to bind")
        String bind_address() default "0.0.0.0";

        @AttributeDefinition(description = "TCP port (upstream's rpc port); 0 picks a free one")
        int port() default 50051;

        @AttributeDefinition(description = "Largest frame accepted, bytes")
        int max_frame_bytes() default 16 << 20;
    }

    private final MasterService master;
    private final ServerSocket server;
    private final int maxFrame;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    /** A configuration, read and checked: a broken one fails here, before anything changes. */
    record Settings(String bindAddress, int port, int maxFrameBytes) {
        Settings {
            if (port < 0 || port > 65535 || maxFrameBytes < 1024) {
                throw new IllegalArgumentException("port must be 0-65535 and max_frame_bytes >= 1024");
            }
        }

        static Settings of(Config c) {
            return new Settings(c.bind_address(), c.port(), c.max_frame_bytes());
        }
    }

    private final Settings settings;

    @Activate
    public MasterRpcServer(Config c, @Reference(target = "(!(" + RemoteMasterService.REMOTE_PROPERTY + "=true))")
            MasterService master) throws IOException {
        this.settings = Settings.of(c);
        this.master = master;
        this.maxFrame = settings.maxFrameBytes();
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(settings.bindAddress(), settings.port()), 256);
        acceptor = Thread.ofPlatform().daemon().name("mooncake-rpc-accept").start(this::accept);
        LOG.log(Level.INFO, "master RPC on {0}:{1}", settings.bindAddress(), String.valueOf(port()));
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

    private void serve(Socket s) {
        try (s; DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()))) {
            boolean greeted = false;
            int version = 0;
            while (true) {
                Messages.Request req = Messages.CBOR.readValue(Frames.read(in, maxFrame), Messages.Request.class);
                Messages.Response resp;
                if (!greeted) {
                    resp = hello(req);
                    greeted = resp.code() == 0;
                    version = greeted ? resp.result().asInt() : 0;
                } else {
                    resp = handle(req, version);
                }
                Frames.write(out, Messages.CBOR.writeValueAsBytes(resp));
                if (!greeted) {
                    return;
                }
            }
        } catch (EOFException | SocketException e) {
            // the client went away
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing an RPC connection: {0}", e.getMessage());
        } finally {
            connections.remove(s);
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

    private Messages.Response handle(Messages.Request req, int version) {
        try {
            if (req.deadlineMs() > 0 && System.currentTimeMillis() > req.deadlineMs()) {
                throw new StoreException(ErrorCode.RPC_FAIL, "deadline passed before the master got to it");
            }
            MasterOps.Op op = MasterOps.Op.named(req.op());
            Object result = op.handler.run(master, new MasterOps.Args(req.args()));
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
}
