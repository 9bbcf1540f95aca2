package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Loopback ports nobody listens on, all distinct: the sockets are held open until every port is
 * picked, so the kernel cannot hand one out twice. Another program may still take one before
 * the process it is meant for binds it; that process then fails its start, saying so.
 */
public final class FreePorts {
    private FreePorts() {
    }

    public static List<Integer> pick(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports.add(s.getLocalPort());
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find free loopback ports", e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing a listening socket we never used: nothing to do
                }
            }
        }
    }
}
