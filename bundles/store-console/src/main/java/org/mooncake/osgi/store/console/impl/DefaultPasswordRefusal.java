package org.mooncake.osgi.store.console.impl;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import org.apache.felix.webconsole.spi.SecurityProvider;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The console's first security provider: while Felix HTTP binds a non-loopback address, a login
 * with the console's default password ({@value #DEFAULT_PASSWORD}, whatever the user name) is
 * refused with a log line that says how to set another; every other request, and every request
 * while the bind is loopback, goes to the next provider (the console's own Basic login, which
 * checks the configured user and password). The bind is asked at each such login, so a rebind
 * while the process runs (a configuration of Felix HTTP) is followed at once.
 */
final class DefaultPasswordRefusal implements SecurityProvider {
    /** The Felix Web Console's password until one is configured. */
    static final String DEFAULT_PASSWORD = "admin";
    /** Where the console reads its user name and password. */
    static final String CONSOLE_PID = "org.apache.felix.webconsole.internal.servlet.OsgiManager";

    private static final System.Logger LOG = System.getLogger(DefaultPasswordRefusal.class.getName());

    private final Supplier<String> host;
    private final Supplier<SecurityProvider> next;

    /** A user the next provider authenticated, with that provider, which alone may authorize it. */
    private record Delegated(SecurityProvider provider, Object user) {
    }

    /** {@code host} answers the address Felix HTTP binds now (null: every interface). */
    DefaultPasswordRefusal(Supplier<String> host, Supplier<SecurityProvider> next) {
        this.host = host;
        this.next = next;
    }

    /** True while the bind reaches beyond this machine, so the default password must not open the console. */
    boolean exposed() {
        return !BindAddress.isLoopback(host.get());
    }

    /** What the refusal says, in the log and to the client. */
    String reason() {
        return "the web console refuses its default password while Felix HTTP binds " + BindAddress.describe(host.get())
                + ", not a loopback address: set a password (property 'password') in configuration " + CONSOLE_PID
                + ", or bind Felix HTTP to loopback (org.apache.felix.http.host=127.0.0.1, a profile's http.bind)";
    }

    @Override
    public Object authenticate(HttpServletRequest request, HttpServletResponse response) {
        BasicCredentials credentials = BasicCredentials.parse(request.getHeader("Authorization"));
        if (credentials != null && DEFAULT_PASSWORD.equals(credentials.password()) && exposed()) {
            LOG.log(Level.WARNING, "refused a web console login as '" + credentials.user() + "' from "
                    + request.getRemoteAddr() + ": " + reason());
            answer(response, HttpServletResponse.SC_UNAUTHORIZED, "Refused: " + reason() + ".");
            return null;
        }
        SecurityProvider provider = next.get();
        if (provider == null) {
            answer(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "The web console's login is not available yet.");
            return null;
        }
        Object user = provider.authenticate(request, response);
        return user == null ? null : new Delegated(provider, user);
    }

    @Override
    public boolean authorize(Object user, String role) {
        return user instanceof Delegated d && d.provider().authorize(d.user(), role);
    }

    @Override
    public void logout(HttpServletRequest request, HttpServletResponse response) {
        SecurityProvider provider = next.get();
        if (provider != null) {
            provider.logout(request, response);
        }
    }

    /**
     * A 401 asks the browser for credentials again, so that an operator who set a password can
     * type it instead of the cached default one.
     */
    private static void answer(HttpServletResponse response, int status, String text) {
        try {
            response.setStatus(status);
            if (status == HttpServletResponse.SC_UNAUTHORIZED) {
                response.setHeader("WWW-Authenticate", "Basic realm=\"OSGi Management Console\"");
            }
            response.setContentType("text/plain; charset=UTF-8");
            byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
            response.flushBuffer();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "could not send the web console's refusal", e);
        }
    }
}
