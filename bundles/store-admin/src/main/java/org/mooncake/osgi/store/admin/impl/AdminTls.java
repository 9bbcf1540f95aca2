package org.mooncake.osgi.store.admin.impl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Arrays;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;

/**
 * HTTPS for the admin endpoints on the JDK server with the cluster's stores (those the master RPC
 * takes as {@code tls.*}): this process's key and certificate in a PKCS12 keystore, the cluster CA
 * in a PKCS12 truststore, one password. TLS 1.3 only, and a client certificate that chains to the
 * CA is required at the handshake (the JDK's PKIX checks, validity included).
 */
record AdminTls(Path keystore, Path truststore, char[] password) {
    static final String PROTOCOL = "TLSv1.3";

    /**
     * The HTTPS of a configuration, or null for plain HTTP when neither store is given.
     *
     * @throws IllegalArgumentException when only one store is given, or they cannot be read
     */
    static AdminTls of(String keystore, String truststore, String password) {
        boolean noKeys = keystore == null || keystore.isBlank();
        boolean noTrust = truststore == null || truststore.isBlank();
        if (noKeys && noTrust) {
            return null;
        }
        if (noKeys || noTrust) {
            throw new IllegalArgumentException("HTTPS needs both tls.keystore and tls.truststore");
        }
        AdminTls tls = new AdminTls(Path.of(keystore.strip()), Path.of(truststore.strip()),
                password == null ? new char[0] : password.toCharArray());
        tls.context(); // unreadable stores or a wrong password fail now, not at the first request
        return tls;
    }

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

    /** What the JDK's HTTPS server applies to each connection: TLS 1.3, client certificate required. */
    HttpsConfigurator configurator() {
        SSLContext ctx = context();
        return new HttpsConfigurator(ctx) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = ctx.getDefaultSSLParameters();
                p.setProtocols(new String[] {PROTOCOL});
                p.setNeedClientAuth(true);
                params.setSSLParameters(p);
            }
        };
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
        return o instanceof AdminTls t && keystore.equals(t.keystore) && truststore.equals(t.truststore)
                && Arrays.equals(password, t.password);
    }

    @Override
    public int hashCode() {
        return keystore.hashCode() * 31 + truststore.hashCode();
    }

    @Override
    public String toString() {
        return "HTTPS(" + keystore + ", client certificates of " + truststore + ")";
    }
}
