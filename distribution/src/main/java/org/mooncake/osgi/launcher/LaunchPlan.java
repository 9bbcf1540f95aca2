package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.osgi.service.feature.Feature;
import org.osgi.service.feature.FeatureBundle;
import org.osgi.service.feature.FeatureExtension;
import org.osgi.service.feature.ID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What one process runs, from the features of a profile read with their variables: the bundles
 * (each once, first mention first), the start order some carry, the framework properties and the
 * configurations. The features a profile composes must agree on each framework property and
 * configuration property they both set (two values cannot both be served: an error naming both);
 * the profile's own feature overrides them, as it is what makes the process that kind of process.
 *
 * @param bundles by their id as the feature names it
 * @param configurations by PID ({@code factoryPid~name} for a factory configuration), typed values
 */
record LaunchPlan(Map<String, ID> bundles, Map<String, Integer> startOrder, Map<String, String> frameworkProperties,
        Map<String, Map<String, Object>> configurations) {
    /**
     * The framework properties a feature's bundles need in every process: {@code {"type": "json",
     * "json": {name: value, ...}}}, as Apache Sling's feature launcher reads it.
     */
    static final String FRAMEWORK_PROPERTIES = "framework-properties";
    /**
     * A bundle's start order ({@code "start-order": 1} in its entry, as Apache Sling's feature
     * launcher reads it): see {@link StartOrder}.
     */
    static final String START_ORDER = "start-order";

    /** A feature as read for this launch, with the file it came from (for errors). */
    record Part(FeatureFile file, Feature feature) {
    }

    /** The plan of {@code composed} features in order, then the profile's own. */
    static LaunchPlan of(List<Part> composed, Part profile) throws IOException {
        Map<String, ID> bundles = new LinkedHashMap<>();
        Map<String, Integer> startOrder = new LinkedHashMap<>();
        Agreement<String> framework = new Agreement<>("framework property ");
        Map<String, Agreement<Object>> configurations = new LinkedHashMap<>();
        for (Part part : concat(composed, profile)) {
            boolean overrides = part == profile;
            for (FeatureBundle b : part.feature().getBundles()) {
                String id = b.getID().toString();
                bundles.putIfAbsent(id, b.getID());
                Object order = b.getMetadata().get(START_ORDER);
                if (order != null) {
                    // whoever needs a bundle early gets it early
                    startOrder.merge(id, Integer.parseInt(order.toString().trim()), Math::min); // checked by FeatureChecks
                }
            }
            for (var p : frameworkProperties(part).entrySet()) {
                framework.put(p.getKey(), p.getValue(), part.file().name(), overrides);
            }
            for (var c : part.feature().getConfigurations().entrySet()) {
                Agreement<Object> props = configurations.computeIfAbsent(c.getKey(),
                        pid -> new Agreement<>("configuration " + pid + " property "));
                for (var v : c.getValue().getValues().entrySet()) {
                    props.put(v.getKey(), v.getValue(), part.file().name(), overrides);
                }
            }
        }
        Map<String, Map<String, Object>> config = new LinkedHashMap<>();
        configurations.forEach((pid, props) -> config.put(pid, Collections.unmodifiableMap(props.values)));
        return new LaunchPlan(Collections.unmodifiableMap(bundles), Collections.unmodifiableMap(startOrder),
                Collections.unmodifiableMap(framework.values), Collections.unmodifiableMap(config));
    }

    private static List<Part> concat(List<Part> composed, Part profile) {
        List<Part> all = new ArrayList<>(composed);
        all.add(profile);
        return all;
    }

    private static Map<String, String> frameworkProperties(Part part) throws IOException {
        FeatureExtension extension = part.feature().getExtensions().get(FRAMEWORK_PROPERTIES);
        Map<String, String> props = new LinkedHashMap<>();
        if (extension != null) {
            for (var p : new ObjectMapper().readTree(extension.getJSON()).properties()) {
                JsonNode value = p.getValue();
                if (value.isContainerNode()) {
                    throw new IOException(part.file() + ": framework property " + p.getKey() + " is " + value
                            + "; a framework property is a string, a number or a boolean");
                }
                props.put(p.getKey(), value.asText());
            }
        }
        return props;
    }

    /** Values by name that the features must agree on, unless the one setting it overrides. */
    private static final class Agreement<V> {
        private final String what;
        private final Map<String, V> values = new LinkedHashMap<>();
        private final Map<String, String> from = new LinkedHashMap<>();

        Agreement(String what) {
            this.what = what;
        }

        void put(String name, V value, String feature, boolean overrides) throws IOException {
            V was = values.get(name);
            if (was != null && !overrides && !Objects.deepEquals(was, value)) {
                throw new IOException("features " + from.get(name) + " and " + feature + " set " + what + name
                        + " to '" + show(was) + "' and '" + show(value) + "'");
            }
            if (was == null || overrides) {
                values.put(name, value);
                from.put(name, feature);
            }
        }

        private static String show(Object value) {
            if (value == null || !value.getClass().isArray()) {
                return String.valueOf(value);
            }
            List<Object> items = new ArrayList<>();
            for (int i = 0; i < Array.getLength(value); i++) {
                items.add(Array.get(value, i));
            }
            return items.toString();
        }
    }
}
