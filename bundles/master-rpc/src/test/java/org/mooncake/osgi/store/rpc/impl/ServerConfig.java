package org.mooncake.osgi.store.rpc.impl;

import java.lang.annotation.Annotation;
import java.nio.file.Path;

/** A {@link MasterRpcServer.Config} as a test writes it; the input limits at their defaults unless {@link #withLimits}. */
record ServerConfig(String bind_address, int port, int max_frame_bytes, String tls_keystore, String tls_truststore,
        String tls_password, boolean tls_insecure, int max_batch_keys, int frame_timeout_ms, int idle_timeout_ms,
        String auth_tokens_file, int max_connections_per_identity) implements MasterRpcServer.Config {

    ServerConfig(String bind_address, int port, int max_frame_bytes, String tls_keystore, String tls_truststore,
            String tls_password, boolean tls_insecure, int max_batch_keys, int frame_timeout_ms, int idle_timeout_ms) {
        this(bind_address, port, max_frame_bytes, tls_keystore, tls_truststore, tls_password, tls_insecure,
                max_batch_keys, frame_timeout_ms, idle_timeout_ms, "", 64);
    }

    ServerConfig(String bind_address, int port, int max_frame_bytes, String tls_keystore, String tls_truststore,
            String tls_password, boolean tls_insecure) {
        this(bind_address, port, max_frame_bytes, tls_keystore, tls_truststore, tls_password, tls_insecure,
                MasterOps.DEFAULT_MAX_BATCH, 30_000, 600_000);
    }

    /** Loopback, plain text (tls.insecure). */
    static ServerConfig plain(int port, int maxFrame) {
        return new ServerConfig("127.0.0.1", port, maxFrame, "", "", "", true);
    }

    /** Loopback, mutual TLS with this keystore and truststore. */
    static ServerConfig tls(Path keystore, Path truststore, String password) {
        return new ServerConfig("127.0.0.1", 0, 1 << 20, keystore.toString(), truststore.toString(), password, false);
    }

    /** The same with these input limits. */
    ServerConfig withLimits(int maxBatchKeys, int frameTimeoutMs, int idleTimeoutMs) {
        return new ServerConfig(bind_address, port, max_frame_bytes, tls_keystore, tls_truststore, tls_password,
                tls_insecure, maxBatchKeys, frameTimeoutMs, idleTimeoutMs);
    }

    /** The same with this token file (empty: none) and connection limit per identity. */
    ServerConfig withAuth(String tokensFile, int maxConnectionsPerIdentity) {
        return new ServerConfig(bind_address, port, max_frame_bytes, tls_keystore, tls_truststore, tls_password,
                tls_insecure, max_batch_keys, frame_timeout_ms, idle_timeout_ms, tokensFile, maxConnectionsPerIdentity);
    }

    @Override
    public Class<? extends Annotation> annotationType() {
        return MasterRpcServer.Config.class;
    }
}
