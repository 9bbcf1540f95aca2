package org.mooncake.osgi.launcher;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The order bundles start in: first those a feature gives a {@code start-order}, lowest first,
 * each group started whole before the next; then all the others. Only for what resolution cannot
 * express: a bundle whose effect applies to classes loaded after it starts (SPI Fly's weaving, a
 * logging provider that the logging API looks up once, when first used). Dependencies between
 * packages and services are the resolver's and DS's business, not this.
 */
final class StartOrder {
    private StartOrder() {
    }

    /** {@code ids} in start groups, keeping their given order within each group. */
    static List<List<String>> groups(Collection<String> ids, Map<String, Integer> startOrder) {
        TreeMap<Integer, List<String>> ordered = new TreeMap<>();
        List<String> rest = new ArrayList<>();
        for (String id : ids) {
            Integer order = startOrder.get(id);
            if (order == null) {
                rest.add(id);
            } else {
                ordered.computeIfAbsent(order, o -> new ArrayList<>()).add(id);
            }
        }
        List<List<String>> groups = new ArrayList<>(ordered.values());
        if (!rest.isEmpty()) {
            groups.add(rest);
        }
        return groups;
    }
}
