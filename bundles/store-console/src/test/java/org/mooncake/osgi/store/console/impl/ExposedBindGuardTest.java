package org.mooncake.osgi.store.console.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import org.apache.felix.webconsole.spi.SecurityProvider;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

class ExposedBindGuardTest {
    private static SecurityProvider provider() {
        return new SecurityProvider() {
            @Override
            public boolean authorize(Object user, String role) {
                return false;
            }

            @Override
            public Object authenticate(HttpServletRequest request, HttpServletResponse response) {
                return null;
            }

            @Override
            public void logout(HttpServletRequest request, HttpServletResponse response) {
            }
        };
    }

    private static Map.Entry<Map<String, Object>, SecurityProvider> registered(SecurityProvider p, Integer ranking, long id) {
        return ranking == null ? Map.entry(Map.of(Constants.SERVICE_ID, id), p)
                : Map.entry(Map.of(Constants.SERVICE_ID, id, Constants.SERVICE_RANKING, ranking), p);
    }

    @Test
    void theNextProviderIsTheOneTheConsoleWouldPick() {
        SecurityProvider basic = provider();
        SecurityProvider custom = provider();
        SecurityProvider older = provider();
        // the console's own Basic login registers at Integer.MIN_VALUE; one without a ranking ranks 0
        assertSame(custom, ExposedBindGuard.highestRanked(List.of(registered(basic, Integer.MIN_VALUE, 3),
                registered(custom, null, 9))));
        assertSame(older, ExposedBindGuard.highestRanked(List.of(registered(custom, 5, 12), registered(older, 5, 4),
                registered(basic, Integer.MIN_VALUE, 3))), "equal ranking: the lower service id");
        assertNull(ExposedBindGuard.highestRanked(List.of()));
    }

    /** A ConfigurationAdmin that holds Felix HTTP's configuration with these settings, or none. */
    private static ConfigurationAdmin holding(Dictionary<String, Object> httpSettings) {
        Configuration http = (Configuration) Proxy.newProxyInstance(Configuration.class.getClassLoader(),
                new Class<?>[] {Configuration.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperties" -> httpSettings;
                    case "getPid" -> ExposedBindGuard.HTTP_PID;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (ConfigurationAdmin) Proxy.newProxyInstance(ConfigurationAdmin.class.getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("listConfigurations")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    assertEquals("(service.pid=" + ExposedBindGuard.HTTP_PID + ")", args[0]);
                    return httpSettings == null ? null : new Configuration[] {http};
                });
    }

    @Test
    void theConfiguredBindOfFelixHttpWinsOverTheFrameworkProperty() {
        Dictionary<String, Object> rebound = new Hashtable<>();
        rebound.put(BindAddress.HOST_PROPERTY, "0.0.0.0");
        assertEquals("0.0.0.0", ExposedBindGuard.effectiveHost(holding(rebound), "127.0.0.1"));
        Dictionary<String, Object> portOnly = new Hashtable<>();
        portOnly.put("org.osgi.service.http.port", 8081);
        assertEquals("127.0.0.1", ExposedBindGuard.effectiveHost(holding(portOnly), "127.0.0.1"));
        assertEquals("127.0.0.1", ExposedBindGuard.effectiveHost(holding(null), "127.0.0.1"));
        assertEquals("127.0.0.1", ExposedBindGuard.effectiveHost(null, "127.0.0.1"));
    }
}
