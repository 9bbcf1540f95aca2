package org.mooncake.osgi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.Dictionary;
import java.util.Hashtable;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Felix HTTP bound to every interface (0.0.0.0, not loopback): the console refuses its default
 * password, and takes the password an operator configures. The requests go to 127.0.0.1 only.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ConsoleExposedBindIT {
    private static final String CONSOLE_PID = "org.apache.felix.webconsole.internal.servlet.OsgiManager";
    private static final String PASSWORD = "correct-horse-7";

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        return ConsoleContainer.options("0.0.0.0");
    }

    private static void assertRefused(HttpResponse<String> r) {
        assertEquals(401, r.statusCode());
        assertTrue(r.body(), r.body().contains("refuses its default password while Felix HTTP binds 0.0.0.0"));
        assertTrue(r.body(), r.body().contains(CONSOLE_PID));
    }

    @Test
    public void theDefaultPasswordIsRefusedAndAConfiguredOneLetsIn() throws Exception {
        ConsoleHttp http = new ConsoleHttp(context);
        Await.until("the console is up", () -> http.get("/mooncake", null).statusCode() == 401);
        assertRefused(http.get("/mooncake", "admin:admin"));
        assertRefused(http.get("/configMgr", "operator:admin"));

        // the operator sets a password; the console's own login takes it (unbound: the console's bundle receives it)
        org.osgi.service.cm.Configuration c = configAdmin.getConfiguration(CONSOLE_PID, null);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("username", "admin");
        props.put("password", PASSWORD);
        c.update(props);
        Await.until("the configured password lets in", () -> http.get("/mooncake", "admin:" + PASSWORD).statusCode() == 200);
        assertRefused(http.get("/mooncake", "admin:admin"));
        assertEquals(401, http.get("/mooncake", "admin:wrong").statusCode());
    }
}
