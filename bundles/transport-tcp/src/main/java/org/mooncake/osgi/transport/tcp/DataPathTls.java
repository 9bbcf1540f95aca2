package org.mooncake.osgi.transport.tcp;

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
 * TLS on the data path, by the master RPC's rules (its ClusterTls): this process's key and
 * certificate in a PKCS12 keystore, the cluster CA in a PKCS12 truststore, one password for both;
 * TLS 1.3 only; the serving end requires a client certificate, and each end's certificate must
 * chain to the CA and be within its validity (the JDK's PKIX checks). Any certificate of the
 * cluster may connect: what a peer may touch is decided per request by its grant, not by who it is.
 */
record DataPathTls(Path keystore, Path truststore, char[] password, SSLContext context) {
    static final String PROTOCOL = "TLSv1.3";

    /**
     * The TLS of a configuration, or null for plain TCP when neither store is named.
     *
     * @throws IllegalArgumentException naming what is missing or unreadable
     */
    static DataPathTls of(String keystore, String truststore, String password) {
        if (blank(keystore) && blank(truststore)) {
            return null;
        }
        if (blank(keystore) || blank(truststore)) {
            throw new IllegalArgumentException("tls on the tcp transport needs both tls.keystore and tls.truststore");
        }
        Path ks = Path.of(keystore.trim());
        Path ts = Path.of(truststore.trim());
        char[] pw = password == null ? new char[0] : password.toCharArray();
        return new DataPathTls(ks, ts, pw, context(ks, ts, pw)); // unreadable stores or a wrong password fail now
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static SSLContext context(Path keystore, Path truststore, char[] password) {
        try {
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(load(keystore, password), password);
            TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
            trust.init(load(truststore, password));
            SSLContext ctx = SSLContext.getInstance(PROTOCOL);
            ctx.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use TLS stores " + keystore + " / " + truststore + ": " + e, e);
        }
    }

    /** Parameters of both ends: TLS 1.3 only; the server requires a client certificate. */
    static SSLParameters parameters(SSLContext ctx, boolean server) {
        SSLParameters p = ctx.getDefaultSSLParameters();
        p.setProtocols(new String[] {PROTOCOL});
        if (server) {
            p.setNeedClientAuth(true);
        }
        return p;
    }

    private static KeyStore load(Path file, char[] password) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password);
        }
        return ks;
    }

    /** Same stores and password (the context is made from them). */
    @Override
    public boolean equals(Object o) {
        return o instanceof DataPathTls t && keystore.equals(t.keystore) && truststore.equals(t.truststore)
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
