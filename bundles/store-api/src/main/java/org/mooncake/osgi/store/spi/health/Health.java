package org.mooncake.osgi.store.spi.health;

import java.util.Map;

/** A part's state: {@code up} when it can serve; {@code details} are shown as JSON (strings, numbers, booleans, maps, lists). */
public record Health(boolean up, Map<String, Object> details) {
    public Health {
        details = details == null ? Map.of() : Map.copyOf(details);
    }

    public static Health up(Map<String, Object> details) {
        return new Health(true, details);
    }

    public static Health down(Map<String, Object> details) {
        return new Health(false, details);
    }
}
