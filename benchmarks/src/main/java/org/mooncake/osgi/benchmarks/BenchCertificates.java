package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A throwaway cluster CA and one node certificate for the {@code tcp-tls} row of {@code bench
 * transfer}, made by the JDK's keytool as docs/security.md's recipe makes them (EC P-256, PKCS12):
 * both transports of the row present this one identity. Made once per run in a temporary folder,
 * removed when the JVM exits.
 */
final class BenchCertificates {
    static final String PASSWORD = "bench-transfer";

    /** The stores a transport's {@code tls.*} settings name. */
    record Stores(Path keystore, Path truststore) {
    }

    private static Stores made;

    private BenchCertificates() {
    }

    static synchronized Stores get() {
        if (made == null) {
            try {
                made = make(Files.createTempDirectory("bench-transfer-tls-"));
            } catch (IOException e) {
                throw new IllegalStateException("cannot make certificates for tcp-tls with keytool: " + e.getMessage(), e);
            }
        }
        return made;
    }

    private static Stores make(Path dir) throws IOException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
        Path ca = dir.resolve("ca.p12");
        Path caCert = dir.resolve("ca.crt");
        Path trust = dir.resolve("trust.p12");
        Path node = dir.resolve("node.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=bench-ca",
                "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString(), "-storetype", "PKCS12");
        keytool("-exportcert", "-alias", "ca", "-keystore", ca.toString(), "-rfc", "-file", caCert.toString());
        keytool("-importcert", "-alias", "ca", "-file", caCert.toString(), "-keystore", trust.toString(), "-storetype",
                "PKCS12");
        Files.copy(ca, node); // -signer takes the CA's key from the same keystore
        keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=bench-node",
                "-signer", "ca", "-validity", "2", "-keystore", node.toString());
        keytool("-delete", "-alias", "ca", "-keystore", node.toString()); // the identity must not carry the CA's key
        return new Stores(node, trust);
    }

    private static void keytool(String... args) throws IOException {
        // keytool is a JVM of its own: started lean, five of them take seconds rather than tens
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-J-Xshare:auto", args[0], "-storepass", PASSWORD,
                "-noprompt"));
        cmd.addAll(List.of(args).subList(1, args.length));
        try {
            Processes.Finished f = Processes.run(cmd, Map.of(), Duration.ofSeconds(60));
            if (f.exit() != 0) {
                throw new IOException("keytool " + String.join(" ", args) + " failed" + Processes.said(f.output()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary folder left behind
        }
    }
}
