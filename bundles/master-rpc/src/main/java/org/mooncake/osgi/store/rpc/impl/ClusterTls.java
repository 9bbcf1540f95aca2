package org.mooncake.osgi.store.rpc.impl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * Mutual TLS with a cluster CA: this process's key and certificate chain in a PKCS12 keystore,
 * the CA certificate(s) it trusts in a PKCS12 truststore, both under one password. TLS 1.3 only;
 * a peer's certificate must chain to the CA and be within its validity (the JDK's PKIX checks).
 * Either this, or {@code tls.insecure=true} to run in plain text knowingly; neither is refused,
 * so a cluster never runs open by omission.
 */
record ClusterTls(Path keystore, Path truststore, char[] password) {
    static final String PROTOCOL = "TLSv1.3";

    /**
     * The TLS of a configuration, or null for plain text when {@code insecure} says so.
     *
     * @throws IllegalArgumentException naming what is missing or unreadable
     */
    static ClusterTls of(String keystore, String truststore, String password, boolean insecure, String pid) {
        boolean none = blank(keystore) && blank(truststore);
        if (none) {
            if (!insecure) {
                throw new IllegalArgumentException(pid + ": no TLS configured (tls.keystore, tls.truststore, "
                        + "tls.password); anyone who reaches the master RPC could act as any client and tenant. "
                        + "Make certificates with 'mooncake cert' (docs/security.md), or set tls.insecure=true "
                        + "(profiles: --set tls.insecure=true) to run without authentication knowingly");
            }
            return null;
        }
        if (blank(keystore) || blank(truststore)) {
            throw new IllegalArgumentException(pid + ": TLS needs both tls.keystore and tls.truststore");
        }
        ClusterTls tls = new ClusterTls(Path.of(keystore.trim()), Path.of(truststore.trim()),
                password == null ? new char[0] : password.toCharArray());
        tls.context(); // unreadable stores or a wrong password fail now, not at the first connection
        return tls;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** A TLS 1.3 context with this process's key and the cluster CA as the only trust anchor. */
    SSLContext context() {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(load(keystore), password);
            TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
            trust.init(load(truststore));
            SSLContext ctx = SSLContext.getInstance(PROTOCOL);
            ctx.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use TLS stores " + keystore + " / " + truststore + ": " + e, e);
        }
    }

    /** Parameters of both ends: TLS 1.3 only; the server asks for, and requires, a client certificate. */
    static SSLParameters parameters(SSLContext ctx, boolean server) {
        SSLParameters p = ctx.getDefaultSSLParameters();
        p.setProtocols(new String[] {PROTOCOL});
        if (server) {
            p.setNeedClientAuth(true);
        }
        return p;
    }

    private KeyStore load(Path file) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password);
        }
        return ks;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterTls t && keystore.equals(t.keystore) && truststore.equals(t.truststore)
                && java.util.Arrays.equals(password, t.password);
    }

    @Override
    public int hashCode() {
        return keystore.hashCode() * 31 + truststore.hashCode();
    }

    @Override
    public String toString() {
        return "TLS(" + keystore + ", trusting " + truststore + ")";
    }
}
