package org.mooncake.osgi.store.console.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.apache.felix.webconsole.spi.SecurityProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

class DefaultPasswordRefusalTest {
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Logger log = Logger.getLogger(DefaultPasswordRefusal.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    /** The console's own login as far as the refusal sees it: accepts ops/s3cret, records logouts. */
    private static final class ConsoleLogin implements SecurityProvider {
        int logouts;
        int asked;

        @Override
        public boolean authorize(Object user, String role) {
            return "ops".equals(user);
        }

        @Override
        public Object authenticate(HttpServletRequest request, HttpServletResponse response) {
            asked++;
            BasicCredentials c = BasicCredentials.parse(request.getHeader("Authorization"));
            return c != null && c.user().equals("ops") && c.password().equals("s3cret") ? "ops" : null;
        }

        @Override
        public void logout(HttpServletRequest request, HttpServletResponse response) {
            logouts++;
        }
    }

    private final ConsoleLogin console = new ConsoleLogin();
    /** What Felix HTTP binds, as the refusal asks it at each login. */
    private volatile String bind = "0.0.0.0";
    private final DefaultPasswordRefusal refusal = new DefaultPasswordRefusal(() -> bind, () -> console);

    @BeforeEach
    void captureLog() {
        log.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        log.removeHandler(capture);
    }

    @Test
    void theDefaultPasswordIsRefusedWithAReasonInTheAnswerAndTheLog() {
        for (String user : List.of("admin", "someone")) {
            HttpFakes.Recorded answer = new HttpFakes.Recorded();
            Object who = refusal.authenticate(HttpFakes.request(
                    Map.of("Authorization", BasicCredentialsTest.header(user + ":admin"))), answer.response());
            assertNull(who);
            assertEquals(401, answer.status);
            assertTrue(answer.headers.get("WWW-Authenticate").startsWith("Basic "), "the browser may ask again");
            assertTrue(answer.body().contains("refuses its default password while Felix HTTP binds 0.0.0.0"), answer.body());
            assertTrue(answer.body().contains(DefaultPasswordRefusal.CONSOLE_PID), answer.body());
        }
        assertEquals(2, logged.size());
        assertTrue(logged.get(0).getMessage().contains("refused a web console login as 'admin' from 192.0.2.9"),
                logged.get(0).getMessage());
    }

    @Test
    void anotherPasswordGoesToTheConsolesLoginWhichAloneAuthorizes() {
        HttpFakes.Recorded answer = new HttpFakes.Recorded();
        Object who = refusal.authenticate(HttpFakes.request(Map.of("Authorization", BasicCredentialsTest.header("ops:s3cret"))),
                answer.response());
        assertTrue(refusal.authorize(who, "any"));
        assertFalse(refusal.authorize("ops", "any"), "only a user this provider returned");
        assertNull(refusal.authenticate(HttpFakes.request(Map.of("Authorization", BasicCredentialsTest.header("ops:wrong"))),
                new HttpFakes.Recorded().response()));
        refusal.logout(null, null);
        assertEquals(1, console.logouts);
        assertTrue(logged.isEmpty());
    }

    @Test
    void theBindIsJudgedAtEachLoginSoARebindWhileRunningIsFollowed() {
        bind = "127.0.0.1";
        HttpFakes.Recorded onLoopback = new HttpFakes.Recorded();
        refusal.authenticate(HttpFakes.request(Map.of("Authorization", BasicCredentialsTest.header("admin:admin"))),
                onLoopback.response());
        assertEquals(1, console.asked, "on loopback the console's own login judges the default password");
        assertTrue(logged.isEmpty());
        bind = "0.0.0.0";
        HttpFakes.Recorded exposed = new HttpFakes.Recorded();
        assertNull(refusal.authenticate(HttpFakes.request(Map.of("Authorization", BasicCredentialsTest.header("admin:admin"))),
                exposed.response()));
        assertEquals(401, exposed.status);
        assertEquals(1, console.asked, "refused before the console's login is asked");
        assertEquals(1, logged.size());
    }

    @Test
    void withoutTheConsolesLoginNothingIsLetThrough() {
        DefaultPasswordRefusal alone = new DefaultPasswordRefusal(() -> null, () -> null);
        HttpFakes.Recorded answer = new HttpFakes.Recorded();
        assertNull(alone.authenticate(HttpFakes.request(Map.of("Authorization", BasicCredentialsTest.header("ops:s3cret"))),
                answer.response()));
        assertEquals(503, answer.status);
        assertTrue(alone.reason().contains("every interface"), alone.reason());
    }
}
