package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The HTTP port of a process that runs the http feature. Felix HTTP reads the standard framework
 * property {@value #PORT} when it starts (0: a free port it picks), and publishes where it
 * listens as {@value #ENDPOINT} on its {@code HttpServiceRuntime} service. Felix takes a port it
 * cannot parse for its default, 8080, and a port it cannot bind leaves it without a connector and
 * without that service, both with no more than a log line: here each fails the start instead, a
 * port in use before anything starts.
 */
final class HttpEndpoint {
    static final String PORT = "org.osgi.service.http.port";
    static final String HOST = "org.apache.felix.http.host";
    static final String RUNTIME = "org.osgi.service.http.runtime.HttpServiceRuntime";
    static final String ENDPOINT = "osgi.http.endpoint";

    private HttpEndpoint() {
    }

    /** The port the framework properties ask for, if they name one; a value that is no port is refused. */
    static OptionalInt requestedPort(Map<String, String> frameworkProps) {
        String value = frameworkProps.get(PORT);
        if (value == null) {
            return OptionalInt.empty();
        }
        try {
            int port = Integer.parseInt(value.trim());
            if (port >= 0 && port <= 65535) {
                return OptionalInt.of(port);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(PORT + " must be a port number, 0 to 65535 (0 picks a free one), was '"
                + value + "' (the profile's http.port, --set http.port=...)");
    }

    /**
     * Fails at once if {@code port} (not 0) cannot be bound on the host the properties name (all
     * addresses if none), rather than after every bundle has started. Whoever binds the port
     * between this check and Jetty is caught by {@link #await}.
     */
    static void checkFree(Map<String, String> frameworkProps, int port) throws IOException {
        if (port == 0) {
            return;
        }
        String host = frameworkProps.get(HOST);
        InetSocketAddress at = host == null || host.isBlank() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true); // as Jetty binds: a port in TIME_WAIT is free to it
            probe.bind(at);
        } catch (IOException e) {
            throw new IOException("cannot serve HTTP on " + at + " (" + e.getMessage()
                    + "): give the process another port, --set http.port=... (0: any free port)", e);
        }
    }

    /** Waits for the HTTP runtime to publish its endpoint: Felix HTTP starts Jetty as it starts. */
    static List<String> await(BundleContext ctx, int port, long timeoutMs) throws BundleException {
        ServiceTracker<Object, Object> t = new ServiceTracker<>(ctx, RUNTIME, null);
        t.open(true);
        try {
            if (t.waitForService(timeoutMs) == null) {
                throw new BundleException("no HTTP endpoint came up on port " + port + " within " + timeoutMs
                        + " ms; the log above says why (a port in use, or no http feature in the profile)");
            }
            return of(ctx);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BundleException("interrupted while waiting for the HTTP endpoint");
        } finally {
            t.close();
        }
    }

    /** Every URL the HTTP runtimes of this framework listen on (with a port picked for 0 filled in). */
    static List<String> of(BundleContext ctx) {
        List<String> urls = new ArrayList<>();
        try {
            ServiceReference<?>[] refs = ctx.getAllServiceReferences(RUNTIME, null);
            for (ServiceReference<?> r : refs == null ? new ServiceReference<?>[0] : refs) {
                Object v = r.getProperty(ENDPOINT);
                if (v instanceof String s) {
                    urls.add(s);
                } else if (v instanceof String[] a) {
                    urls.addAll(List.of(a));
                } else if (v instanceof Collection<?> c) {
                    c.forEach(e -> urls.add(String.valueOf(e)));
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("no filter was given", e);
        }
        return urls;
    }
}
