package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Random;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * The tcp transport with {@code tls.*}: peers with certificates of the cluster CA move bytes with
 * grants, both ways; a peer without a client certificate, one from another CA and one speaking
 * plain TCP are refused at the handshake and counted.
 */
@Timeout(120)
class TcpTlsTest {
    private static final String PW = TestCertificates.PASSWORD;
    private static Path trust;
    private static Path nodeA;
    private static Path nodeB;
    private static Path foreign;
    private static Path foreignTrust;

    @BeforeAll
    static void certificates(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        Path ca = certs.ca("cluster");
        Path other = certs.ca("other");
        trust = certs.truststore(ca);
        foreignTrust = certs.truststore(other);
        nodeA = certs.issue(ca, "node-a", null, 2);
        nodeB = certs.issue(ca, "node-b", null, 2);
        foreign = certs.issue(other, "foreign", null, 2);
    }

    private static TcpTransport transport(Path keystore, Path truststore) throws IOException {
        return new TcpTransport(TcpTransport.withTls(TcpTransport.loopback(2, 1 << 20, 10_000), keystore.toString(),
                truststore.toString(), PW));
    }

    private static TransferStatus one(TcpTransport t, TransferOp op, MemorySegment local, SegmentEndpoint at,
            long offset, DataGrant grant) {
        return t.submit(List.of(new TransferRequest(op, local, at, offset, false, 0, grant))).toCompletableFuture()
                .join().getFirst();
    }

    @Test
    void aWriteAndAReadWithGrantsRoundTripOverTls() throws IOException {
        try (Arena arena = Arena.ofShared(); TcpTransport owner = transport(nodeA, trust);
                TcpTransport peer = transport(nodeB, trust)) {
            MemorySegment segment = arena.allocate(8 << 20);
            SegmentEndpoint at = owner.expose("seg", segment, GrantCheckTest.KEY);
            byte[] data = new byte[3 * (1 << 20) + 777]; // several chunks, and a piece that is not a whole buffer
            new Random(3).nextBytes(data);
            long expires = System.currentTimeMillis() + 60_000;
            TransferStatus w = one(peer, TransferOp.WRITE, MemorySegment.ofArray(data), at, 4096,
                    DataGrant.sign(GrantCheckTest.KEY, "seg", true, 4096, data.length, expires));
            assertTrue(w.completed(), w.error());
            MemorySegment back = arena.allocate(data.length);
            TransferStatus r = one(peer, TransferOp.READ, back, at, 4096,
                    DataGrant.sign(GrantCheckTest.KEY, "seg", false, 4096, data.length, expires));
            assertTrue(r.completed(), r.error());
            assertEquals(-1, back.mismatch(MemorySegment.ofArray(data)));
            TransferStatus denied = one(peer, TransferOp.READ, arena.allocate(16), at, 4096, null);
            assertFalse(denied.completed());
            assertTrue(denied.error().contains("access denied"), denied.error());
        }
    }

    @Test
    void aPeerWithoutAClientCertificateIsRefused() throws Exception {
        try (TcpTransport owner = transport(nodeA, trust)) {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(load(trust));
            SSLContext noCertificate = SSLContext.getInstance("TLSv1.3");
            noCertificate.init(null, tmf.getTrustManagers(), null);
            String[] hostPort = owner.address().split(":");
            try (SSLSocket s = (SSLSocket) noCertificate.getSocketFactory().createSocket(hostPort[0],
                    Integer.parseInt(hostPort[1]))) {
                s.setSoTimeout(20_000);
                // TLS 1.3: the client may finish its side before the server judges its (missing) certificate
                assertThrows(IOException.class, () -> {
                    s.startHandshake();
                    s.getOutputStream().write(RawFrames.read(1, "seg", 0, 8, null));
                    s.getOutputStream().flush();
                    if (s.getInputStream().read() < 0) {
                        throw new IOException("closed by the server");
                    }
                });
            }
            awaitHandshakeFailures(owner, 1);
        }
    }

    @Test
    void aPeerFromAnotherCaOrWithoutTlsIsRefused() throws Exception {
        try (Arena arena = Arena.ofShared(); TcpTransport owner = transport(nodeA, trust);
                TcpTransport stranger = transport(foreign, foreignTrust);
                TcpTransport strangerTrustingUs = transport(foreign, trust);
                TcpTransport plain = new TcpTransport(TcpTransport.loopback(1, 1 << 20, 5_000))) {
            SegmentEndpoint at = owner.expose("seg", arena.allocate(1 << 20));
            for (TcpTransport t : List.of(stranger, strangerTrustingUs, plain)) {
                TransferStatus s = one(t, TransferOp.READ, arena.allocate(16), at, 0, null);
                assertFalse(s.completed(), "refused");
                assertFalse(s.inDoubt());
            }
            awaitHandshakeFailures(owner, 3);
        }
    }

    /** A cluster profile passes the master RPC's stores to the data path too; tls.enabled=false keeps it plain. */
    @Test
    void storesWithTlsDisabledLeaveTheDataPathPlain() {
        TcpTransport.Config withStores = TcpTransport.withTls(TcpTransport.loopback(1, 1 << 20, 5_000),
                nodeA.toString(), trust.toString(), PW);
        TcpTransport.Config disabled = (TcpTransport.Config) java.lang.reflect.Proxy.newProxyInstance(
                TcpTransport.Config.class.getClassLoader(), new Class<?>[] {TcpTransport.Config.class},
                (proxy, method, args) -> method.getName().equals("tls_enabled") ? Boolean.FALSE
                        : method.invoke(withStores, args));
        assertTrue(TcpTransport.Settings.of(withStores).tls() != null, "stores and enabled: TLS");
        assertTrue(TcpTransport.Settings.of(disabled).tls() == null, "stores but disabled: plain TCP");
    }

    @Test
    void aTruststoreWithoutAKeystoreIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TcpTransport(
                TcpTransport.withTls(TcpTransport.loopback(1, 1 << 20, 5_000), "", trust.toString(), PW)));
        assertTrue(e.getMessage().contains("tls.keystore"), e.getMessage());
        IllegalArgumentException wrongPassword = assertThrows(IllegalArgumentException.class, () -> new TcpTransport(
                TcpTransport.withTls(TcpTransport.loopback(1, 1 << 20, 5_000), nodeA.toString(), trust.toString(), "x")));
        assertTrue(wrongPassword.getMessage().contains("cannot use TLS stores"), wrongPassword.getMessage());
    }

    private static void awaitHandshakeFailures(TcpTransport owner, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        double seen = 0;
        while (System.nanoTime() < deadline) {
            seen = owner.metrics().stream().filter(m -> m.name().equals("mooncake_tcp_tls_handshake_failures_total"))
                    .findFirst().orElseThrow().samples().getFirst().value();
            if (seen >= atLeast) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("handshake failures counted: " + seen + ", expected at least " + atLeast);
    }

    private static KeyStore load(Path file) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, PW.toCharArray());
        }
        return ks;
    }
}
