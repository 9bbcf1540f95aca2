package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

/** Felix HTTP takes a port it cannot parse for 8080 and one it cannot bind for nothing: the launcher refuses both. */
class HttpEndpointTest {
    @Test
    void aPortIsANumberFrom0To65535AndNoneAskedIsNone() {
        assertEquals(OptionalInt.of(0), HttpEndpoint.requestedPort(Map.of(HttpEndpoint.PORT, "0")));
        assertEquals(OptionalInt.of(8000), HttpEndpoint.requestedPort(Map.of(HttpEndpoint.PORT, " 8000 ")));
        assertEquals(OptionalInt.empty(), HttpEndpoint.requestedPort(Map.of()));
        for (String bad : List.of("abc", "-1", "65536", "[8000,9000)", "")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HttpEndpoint.requestedPort(Map.of(HttpEndpoint.PORT, bad)), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'") && e.getMessage().contains("http.port"), e.getMessage());
        }
    }

    @Test
    void aPortInUseIsRefusedBeforeAnythingStarts() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Map<String, String> props = Map.of(HttpEndpoint.HOST, "127.0.0.1");
            IOException e = assertThrows(IOException.class, () -> HttpEndpoint.checkFree(props, taken.getLocalPort()));
            assertTrue(e.getMessage().contains(String.valueOf(taken.getLocalPort())) && e.getMessage().contains("http.port"),
                    e.getMessage());
        }
        HttpEndpoint.checkFree(Map.of(), 0); // any free port: nothing to check
    }
}
