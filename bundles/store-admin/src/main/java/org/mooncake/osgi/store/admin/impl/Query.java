package org.mooncake.osgi.store.admin.impl;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;

/** Query parameters of an admin request: every value of every name, as servers hand them over. */
final class Query {
    private Query() {
    }

    /** Decodes a raw query string ({@code a=1&b=x%20y}); a malformed one is INVALID_PARAMS. */
    static Map<String, List<String>> parse(String raw) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            try {
                out.computeIfAbsent(URLDecoder.decode(name, StandardCharsets.UTF_8), n -> new ArrayList<>())
                        .add(URLDecoder.decode(value, StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "malformed query string");
            }
        }
        return out;
    }

    /**
     * The one value of {@code name}, or null if absent. A name given twice is refused: which one
     * was meant? Answering for either could mislead.
     */
    static String single(Map<String, List<String>> query, String name) {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "query parameter '" + name + "' given twice");
        }
        return values.getFirst();
    }
}
