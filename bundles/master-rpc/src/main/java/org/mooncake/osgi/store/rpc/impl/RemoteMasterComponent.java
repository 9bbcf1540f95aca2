package org.mooncake.osgi.store.rpc.impl;

import java.net.InetSocketAddress;
import java.util.Dictionary;
import java.util.Hashtable;

import org.mooncake.osgi.store.master.MasterService;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * In a process without a master (storage node, pure client): registers the remote master as the
 * {@link MasterService} the embedded client uses, marked {@value RemoteMasterService#REMOTE_PROPERTY}.
 */
@Component(service = {}, immediate = true, configurationPid = RemoteMasterComponent.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = RemoteMasterComponent.Config.class)
public final class RemoteMasterComponent {
    public static final String PID = "org.mooncake.osgi.store.rpc.client";

    @ObjectClassDefinition(name = "Mooncake remote master")
    public @interface Config {
        @AttributeDefinition(description = "host:port of the master's RPC server")
        String master_address();

        @AttributeDefinition(description = "Timeout of every master call, ms (sent as the request's timeoutMs; the master judges it on its own clock)")
        long timeout_ms() default 5000;

        @AttributeDefinition(description = "Largest frame accepted, bytes")
        int max_frame_bytes() default 16 << 20;

        @AttributeDefinition(description = "PKCS12 keystore with this process's key and certificate (its "
                + "identity: CN, role and tenants), signed by the cluster CA; empty: no TLS")
        String tls_keystore() default "";

        @AttributeDefinition(description = "PKCS12 truststore with the cluster CA certificate; the master's "
                + "certificate must chain to it and carry the master role")
        String tls_truststore() default "";

        @AttributeDefinition(description = "Password of the keystore and the truststore",
                type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
        String tls_password() default "";

        @AttributeDefinition(description = "Talk to the master without TLS (it must serve without TLS too). "
                + "Without TLS configured and without this, the component refuses to start")
        boolean tls_insecure() default false;

        @AttributeDefinition(description = "File whose first line is this process's access token, sent at HELLO: a "
                + "master with auth.tokens.file takes this process's identity from it (then TLS is not required; "
                + "without TLS the token crosses the network in clear). Empty: none. Read at start")
        String auth_token_file() default "";
    }

    /** A configuration, read and checked: a broken one fails here, before anything changes. */
    record Settings(String host, int port, long timeoutMs, int maxFrameBytes, ClusterTls tls, String token) {
        static Settings of(Config c) {
            String a = c.master_address();
            int colon = a == null ? -1 : a.lastIndexOf(':');
            if (colon <= 0 || c.timeout_ms() <= 0) {
                throw new IllegalArgumentException("master_address must be host:port and timeout_ms > 0, was " + a);
            }
            String token = token(c.auth_token_file());
            return new Settings(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1)), c.timeout_ms(),
                    c.max_frame_bytes(), ClusterTls.of(c.tls_keystore(), c.tls_truststore(), c.tls_password(),
                            c.tls_insecure() || token != null, PID), token);
        }

        /** The token in {@code file}'s first line; null for no file; a clear error for one unreadable or empty. */
        static String token(String file) {
            if (file == null || file.isBlank()) {
                return null;
            }
            try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of(file))) {
                String first = lines.findFirst().map(String::strip).orElse("");
                if (first.isEmpty()) {
                    throw new IllegalArgumentException("auth.token.file " + file + " holds no token");
                }
                return first;
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                throw new IllegalArgumentException("auth.token.file " + file + " cannot be read: " + e.getMessage());
            }
        }

        /** Never prints the token. */
        @Override
        public String toString() {
            return "Settings[" + address() + ", timeout " + timeoutMs + " ms, " + (tls == null ? "plain" : "TLS")
                    + (token == null ? "" : ", with a token") + "]";
        }

        String address() {
            return host + ":" + port;
        }
    }

    private static final System.Logger LOG = System.getLogger(RemoteMasterComponent.class.getName());
    private final Settings settings;
    private final RemoteMasterService remote;
    private final ServiceRegistration<MasterService> registration;

    @Activate
    public RemoteMasterComponent(Config c, BundleContext context) {
        this.settings = refusedLoudly(() -> Settings.of(c));
        remote = new RemoteMasterService(new InetSocketAddress(settings.host(), settings.port()), settings.timeoutMs(),
                settings.maxFrameBytes(), settings.tls() == null ? null : settings.tls().context())
                .withToken(settings.token());
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(RemoteMasterService.REMOTE_PROPERTY, true);
        props.put("mooncake.master.address", settings.address());
        registration = context.registerService(MasterService.class, remote, props);
    }

    /**
     * A changed configuration is read at the next start only: a restart withdraws this remote
     * master, and with it the client using it and its segment, so a broken file, which DS would
     * otherwise answer with a restart that fails, is refused, and a valid one is logged with how
     * to apply it (pointing a node at another master empties it anyway).
     */
    @Modified
    void modified(Config c) {
        Settings next;
        try {
            next = Settings.of(c);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "rejected remote master configuration, still using {0}: {1}",
                    settings.address(), e.getMessage());
            return;
        }
        if (!next.equals(settings)) {
            LOG.log(System.Logger.Level.WARNING, "remote master: {0} applies when bundle org.mooncake.osgi.master.rpc "
                    + "restarts; the restart also restarts the client using it, which withdraws its segment", next);
        }
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
        remote.close();
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
