package org.mooncake.osgi.store.console.impl;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;

import org.apache.felix.webconsole.spi.SecurityProvider;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

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
}
