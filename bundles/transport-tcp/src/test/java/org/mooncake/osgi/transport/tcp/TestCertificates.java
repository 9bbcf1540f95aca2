package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for tests, made by the JDK's keytool as an operator would: a CA (a self-signed key
 * pair with basic constraints CA), and identities it signs ({@code keytool -genkeypair -signer}).
 * Every store is PKCS12 under {@link #PASSWORD}. (The master RPC's tests make theirs the same way.)
 */
final class TestCertificates {
    static final String PASSWORD = "test-password";
    private static final String KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    private final Path dir;

    TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** A new CA: its keystore, holding its key under alias {@code ca}. */
    Path ca(String name) throws IOException {
        Path ca = dir.resolve(name + "-ca.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-ext", "bc:c", "-validity", "3", "-keystore", ca.toString(), "-storetype", "PKCS12");
        return ca;
    }

    /** A truststore with the CA's certificate only. */
    Path truststore(Path ca) throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", load(ca).getCertificate("ca"));
        Path file = dir.resolve(ca.getFileName().toString().replace(".p12", "-trust.p12"));
        store(trust, file);
        return file;
    }

    /**
     * A keystore holding one identity signed by {@code ca}: subject CN {@code cn}, the given
     * subject-alternative-name URIs, valid from {@code startDate} (keytool's syntax, e.g. "-3d";
     * null: now) for {@code days}.
     */
    Path issue(Path ca, String cn, String startDate, int days, String... uris) throws IOException, GeneralSecurityException {
        Path file = dir.resolve(cn + ".p12");
        Files.copy(ca, file); // -signer takes the CA's key from the same keystore
        List<String> args = new ArrayList<>(List.of("-genkeypair", "-alias", "me", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=" + cn, "-signer", "ca", "-validity", String.valueOf(days), "-keystore",
                file.toString()));
        if (uris.length > 0) {
            args.addAll(List.of("-ext", "SAN=uri:" + String.join(",uri:", uris)));
        }
        if (startDate != null) {
            args.addAll(List.of("-startdate", startDate));
        }
        keytool(args.toArray(String[]::new));
        KeyStore ks = load(file);
        ks.deleteEntry("ca"); // the identity must not carry the CA's key
        store(ks, file);
        return file;
    }

    private static void keytool(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(KEYTOOL, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", args[0],
                "-storepass", PASSWORD, "-noprompt"));
        cmd.addAll(List.of(args).subList(1, args.length));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static KeyStore load(Path file) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        return ks;
    }

    private static void store(KeyStore ks, Path file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, PASSWORD.toCharArray());
        }
    }
}
