package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads feature files and profiles (a profile names the features a process runs, in order). */
final class FeatureReader {
    static final String START_ORDER = "start-order";
    static final String FRAMEWORK_PROPERTIES = "framework-properties";

    private final ObjectMapper json = new ObjectMapper();
    private final Path featuresDir;

    FeatureReader(Path featuresDir) {
        this.featuresDir = featuresDir;
    }

    Feature read(String name) throws IOException {
        Path file = featuresDir.resolve(name + ".json");
        if (!Files.isRegularFile(file)) {
            throw new IOException("no feature " + name + " (" + file + ")");
        }
        JsonNode root = json.readTree(file.toFile());
        JsonNode bundles = root.path("bundles");
        if (!root.hasNonNull("id") || !bundles.isArray()) {
            throw new IOException(file + ": a feature needs an id and a bundles array");
        }
        List<String> ids = new ArrayList<>();
        Map<String, Integer> startOrder = new LinkedHashMap<>();
        for (JsonNode b : bundles) {
            String id = b.isTextual() ? b.asText() : b.path("id").asText(null);
            if (id == null) {
                throw new IOException(file + ": a bundle entry has no id");
            }
            ids.add(id);
            if (b.has(START_ORDER)) {
                startOrder.put(id, startOrder(file, id, b.get(START_ORDER)));
            }
        }
        return new Feature(root.get("id").asText(), root.path("name").asText(name), ids, startOrder,
                frameworkProperties(file, root.path("extensions").path(FRAMEWORK_PROPERTIES)));
    }

    /** The {@code "framework-properties"} extension: {@code {"type": "json", "json": {name: value, ...}}}. */
    private static Map<String, String> frameworkProperties(Path file, JsonNode extension) throws IOException {
        if (extension.isMissingNode()) {
            return Map.of();
        }
        JsonNode props = extension.path("json");
        if (!"json".equals(extension.path("type").asText()) || !props.isObject()) {
            throw new IOException(file + ": the " + FRAMEWORK_PROPERTIES
                    + " extension needs \"type\": \"json\" and its properties as a \"json\" object");
        }
        return strings(props);
    }

    /** A start order is a whole number from 1 (as a JSON number or a string of one). */
    private static int startOrder(Path file, String id, JsonNode value) throws IOException {
        if (value.isInt() || value.isTextual()) {
            try {
                int order = Integer.parseInt(value.asText().trim());
                if (order >= 1) {
                    return order;
                }
            } catch (NumberFormatException e) {
                // reported below, with the file and the bundle
            }
        }
        throw new IOException(file + ": bundle " + id + " has " + START_ORDER + " " + value
                + "; it must be a whole number from 1 (lower starts first)");
    }

    Profile profile(String profile) throws IOException {
        JsonNode profiles = json.readTree(featuresDir.resolve("profiles.json").toFile());
        JsonNode p = profiles.get(profile);
        if (p == null || !p.path("features").isArray()) {
            List<String> known = new ArrayList<>();
            profiles.fieldNames().forEachRemaining(known::add);
            throw new IOException("no profile " + profile + "; known: " + String.join(", ", known));
        }
        List<String> features = new ArrayList<>();
        p.get("features").forEach(n -> features.add(n.asText()));
        Map<String, Map<String, String>> config = new LinkedHashMap<>();
        p.path("config").fields().forEachRemaining(pid -> config.put(pid.getKey(), strings(pid.getValue())));
        return new Profile(profile, features, config, strings(p.path("framework")));
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> props = new LinkedHashMap<>();
        object.fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        return props;
    }

    /** The bundles of several features, first mention first, each once. */
    Set<String> bundlesOf(List<String> featureNames) throws IOException {
        Set<String> ids = new LinkedHashSet<>();
        for (String f : featureNames) {
            ids.addAll(read(f).bundles());
        }
        return ids;
    }

    /**
     * The framework properties several features need. Two features that want different values for
     * one property cannot both be served: that is an error naming both.
     */
    Map<String, String> frameworkPropertiesOf(List<String> featureNames) throws IOException {
        Map<String, String> props = new LinkedHashMap<>();
        Map<String, String> from = new LinkedHashMap<>();
        for (String f : featureNames) {
            for (var e : read(f).frameworkProperties().entrySet()) {
                String was = props.putIfAbsent(e.getKey(), e.getValue());
                if (was != null && !was.equals(e.getValue())) {
                    throw new IOException("features " + from.get(e.getKey()) + " and " + f + " set framework property "
                            + e.getKey() + " to '" + was + "' and '" + e.getValue() + "'");
                }
                from.putIfAbsent(e.getKey(), f);
            }
        }
        return props;
    }

    /**
     * The start order of the bundles of several features that have one. A bundle that two
     * features order differently takes the earlier order: whoever needs it early gets it early.
     */
    Map<String, Integer> startOrderOf(List<String> featureNames) throws IOException {
        Map<String, Integer> order = new LinkedHashMap<>();
        for (String f : featureNames) {
            read(f).startOrder().forEach((id, o) -> order.merge(id, o, Math::min));
        }
        return order;
    }
}
