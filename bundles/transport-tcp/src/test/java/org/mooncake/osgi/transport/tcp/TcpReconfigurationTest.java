package org.mooncake.osgi.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.annotation.Annotation;
import java.net.Socket;
import java.util.List;

import org.junit.jupiter.api.Test;

/** A changed or broken configuration never restarts the transport under the segments it serves. */
class TcpReconfigurationTest {
    private static TcpTransport.Config config(int connections, long spinUs) {
        TcpTransport.Config base = TcpTransport.loopback(2, 1 << 16, 5_000, 50);
        return new TcpTransport.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return TcpTransport.Config.class;
            }

            @Override
            public String bind_address() {
                return base.bind_address();
            }

            @Override
            public int port() {
                return base.port();
            }

            @Override
            public String advertised_host() {
                return base.advertised_host();
            }

            @Override
            public int connections_per_peer() {
                return connections;
            }

            @Override
            public int chunk_bytes() {
                return base.chunk_bytes();
            }

            @Override
            public long io_timeout_ms() {
                return base.io_timeout_ms();
            }

            @Override
            public long spin_wait_us() {
                return spinUs;
            }

            @Override
            public boolean grants_checked() {
                return base.grants_checked();
            }

            @Override
            public String tls_keystore() {
                return base.tls_keystore();
            }

            @Override
            public String tls_truststore() {
                return base.tls_truststore();
            }

            @Override
            public String tls_password() {
                return base.tls_password();
            }

            @Override
            public boolean tls_enabled() {
                return base.tls_enabled();
            }
        };
    }

    @Test
    void aBrokenConfigurationIsRefusedAndAValidOneWaitsForARestart() throws Exception {
        try (TcpTransport t = new TcpTransport(config(2, 50))) {
            String address = t.address();
            TcpTransport.Settings before = t.settings();
            t.modified(config(0, 50)); // broken: no connections at all
            t.modified(config(2, 200)); // valid: read at the next start
            assertEquals(before, t.settings());
            assertEquals(address, t.address());
            String[] hostPort = address.split(":");
            try (Socket s = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
                assertEquals(true, s.isConnected(), "still serving");
            }
        }
    }

    @Test
    void theChangesAreNamedAsInTheConfiguration() {
        var a = new TcpTransport.Settings("127.0.0.1", 0, "", 4, 1 << 22, 30_000, 50, true, "", "", "");
        var b = new TcpTransport.Settings("127.0.0.1", 7000, "", 4, 1 << 22, 30_000, 10, false, "", "", "");
        var c = new TcpTransport.Settings("127.0.0.1", 0, "", 4, 1 << 22, 30_000, 50, true, "k.p12", "t.p12", "pw");
        assertEquals(List.of("port", "spin.wait.us", "grants.checked"), b.changesFrom(a));
        assertEquals(List.of("tls.*"), c.changesFrom(a));
        assertEquals(List.of(), a.changesFrom(a));
    }
}
