package org.mooncake.osgi.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.master.SegmentStats;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * What holds data must not depend on who uses it: DS drops a delayed component as soon as its
 * last user lets go. This class never holds the client itself, so the client's only user is the
 * admin endpoint, and the tests take that away or reconfigure it.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class ServiceLifetimeIT {
    private static final String ADMIN_PID = "org.mooncake.osgi.store.admin.http";
    private static final String ADMIN_COMPONENT = "org.mooncake.osgi.store.admin.impl.AdminHttpServer";

    @Inject
    private MasterService master;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private ServiceComponentRuntime scr;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        return ContainerOptions.features("runtime", "master", "client");
    }

    /** Puts {@code value} through the client, then lets go of it; returns the id of the client that holds it. */
    private String putAndLetGo(String key, byte[] value) {
        ServiceReference<StoreClient> ref = context.getServiceReference(StoreClient.class);
        assertNotNull("a client is registered", ref);
        try {
            context.getService(ref).put(key, value);
        } finally {
            context.ungetService(ref);
        }
        List<SegmentStats> segments = master.segments();
        assertEquals(1, segments.size());
        return segments.getFirst().clientId();
    }

    private byte[] getAndLetGo(String key) {
        ServiceReference<StoreClient> ref = context.getServiceReference(StoreClient.class);
        try {
            return context.getService(ref).get(key);
        } finally {
            context.ungetService(ref);
        }
    }

    private ComponentDescriptionDTO admin() {
        Bundle adminBundle = null;
        for (Bundle b : context.getBundles()) {
            if ("org.mooncake.osgi.store.admin".equals(b.getSymbolicName())) {
                adminBundle = b;
            }
        }
        return scr.getComponentDescriptionDTO(adminBundle, ADMIN_COMPONENT);
    }

    @Test
    public void theClientAndItsObjectsOutliveTheirLastUser() throws Exception {
        byte[] value = "kept while nobody looks".getBytes();
        String clientId = putAndLetGo("kept", value);
        ComponentDescriptionDTO admin = admin();
        scr.disableComponent(admin).getValue(); // the endpoint was the client's last user
        try {
            assertFalse(scr.isComponentEnabled(admin));
            assertTrue("the object survives", master.exists(ObjectKey.of("kept")));
            assertEquals("the same client keeps its segment", clientId, master.segments().getFirst().clientId());
        } finally {
            scr.enableComponent(admin).getValue();
        }
        assertArrayEquals(value, getAndLetGo("kept"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static boolean healthy(int port) throws Exception {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (ConnectException e) {
            return false;
        }
    }

    private void configureAdmin(Object port) throws IOException {
        Dictionary<String, Object> p = new Hashtable<>();
        p.put("port", port);
        p.put("bind.address", "127.0.0.1");
        configAdmin.getConfiguration(ADMIN_PID, "?").update(p);
    }

    /** A broken file in etc/ is refused with its reason; the endpoint, and the client it used, stay. */
    @Test
    public void aBrokenAdminConfigurationIsRefusedAndAValidOneMovesTheEndpoint() throws Exception {
        String clientId = putAndLetGo("kept", new byte[] {1, 2, 3});
        int first = freePort();
        configureAdmin(String.valueOf(first));
        Await.until("the endpoint on port " + first, () -> healthy(first));

        awaitLogLine(ADMIN_COMPONENT, "rejected", () -> configureAdmin("notaport"));
        assertTrue("still serving on the old port", healthy(first));

        int second = freePort();
        configureAdmin(String.valueOf(second));
        Await.until("the endpoint on port " + second, () -> healthy(second));
        assertFalse("the old port is let go", healthy(first));
        assertEquals("the client was never restarted", clientId, master.segments().getFirst().clientId());
        assertArrayEquals(new byte[] {1, 2, 3}, getAndLetGo("kept"));
    }

    /** Waits for a line of {@code logger} that starts with {@code start}, while {@code action} runs. */
    private static void awaitLogLine(String logger, String start, ThrowingRunnable action) throws Exception {
        ConcurrentLinkedQueue<String> said = new ConcurrentLinkedQueue<>();
        Handler listen = new Handler() {
            @Override
            public void publish(LogRecord r) {
                said.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(logger);
        log.addHandler(listen);
        try {
            action.run();
            Await.until(logger + " saying " + start, () -> said.stream().anyMatch(m -> m.startsWith(start)));
        } finally {
            log.removeHandler(listen);
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * A storage node serves its segment over tcp: tuning the transport, or breaking its file,
     * must not restart it, since the client whose segment it serves would go with it.
     */
    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    /** The tcp endpoint the master gives readers of {@code key}; null while it names none. */
    private SegmentEndpoint tcpEndpointOf(String key) {
        return master.getReplicaList(ObjectKey.of(key)).replicas().getFirst().endpoints().stream()
                .filter(e -> e.protocol().equals("tcp")).findFirst().orElse(null);
    }

    /**
     * A storage node's segment, allocated by tcp, while the tcp bundle restarts (as an update
     * does) and while its configuration changes: the client keeps the segment and its objects
     * throughout, and the master names the new transport's address once it is back.
     */
    @Test
    public void restartingTheTransportThatAllocatedTheSegmentKeepsTheSegmentAndItsObjects() throws Exception {
        Dictionary<String, Object> client = new Hashtable<>();
        client.put("segmentTransport.target", "(transport.protocol=tcp)");
        configAdmin.getConfiguration("org.mooncake.osgi.store.client", "?").update(client);
        Bundle clientBundle = bundle("org.mooncake.osgi.store.client");
        clientBundle.stop(); // who allocates the segment changes at a restart only
        clientBundle.start();
        Await.until("a segment served over tcp", () -> master.segments().size() == 1
                && List.of(master.segments().getFirst().protocol().split(",")).contains("tcp"));
        String clientId = putAndLetGo("over-tcp", new byte[] {9, 8, 7});
        SegmentEndpoint before = tcpEndpointOf("over-tcp");
        assertNotNull(before);

        Bundle tcpBundle = bundle("org.mooncake.osgi.transport.tcp");
        tcpBundle.stop();
        assertNull("the master stopped naming the transport before it went", tcpEndpointOf("over-tcp"));
        assertEquals("the same client keeps its segment", clientId, master.segments().getFirst().clientId());
        assertArrayEquals(new byte[] {9, 8, 7}, getAndLetGo("over-tcp"));
        tcpBundle.start();
        Await.until("the new tcp transport serves the segment", () -> tcpEndpointOf("over-tcp") != null);
        assertFalse("a new transport, a new address", before.equals(tcpEndpointOf("over-tcp")));
        assertEquals(1, master.segments().size());

        String tcp = "org.mooncake.osgi.transport.tcp.TcpTransport";
        awaitLogLine(tcp, "tcp transport: ", () -> {
            Dictionary<String, Object> tuned = new Hashtable<>();
            tuned.put("spin.wait.us", "200");
            configAdmin.getConfiguration("org.mooncake.osgi.transport.tcp", "?").update(tuned);
        });
        awaitLogLine(tcp, "rejected", () -> {
            Dictionary<String, Object> broken = new Hashtable<>();
            broken.put("connections.per.peer", "0");
            configAdmin.getConfiguration("org.mooncake.osgi.transport.tcp", "?").update(broken);
        });
        assertEquals("the same client keeps its segment", clientId, master.segments().getFirst().clientId());
        assertArrayEquals(new byte[] {9, 8, 7}, getAndLetGo("over-tcp"));
    }
}
