package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads feature files and profiles (a profile names the features a process runs, in order). */
final class FeatureReader {
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
        for (JsonNode b : bundles) {
            String id = b.isTextual() ? b.asText() : b.path("id").asText(null);
            if (id == null) {
                throw new IOException(file + ": a bundle entry has no id");
            }
            ids.add(id);
        }
        return new Feature(root.get("id").asText(), root.path("name").asText(name), ids);
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
        p.path("config").fields().forEachRemaining(pid -> {
            Map<String, String> props = new LinkedHashMap<>();
            pid.getValue().fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
            config.put(pid.getKey(), props);
        });
        return new Profile(profile, features, config);
    }

    /** The bundles of several features, first mention first, each once. */
    Set<String> bundlesOf(List<String> featureNames) throws IOException {
        Set<String> ids = new LinkedHashSet<>();
        for (String f : featureNames) {
            ids.addAll(read(f).bundles());
        }
        return ids;
    }
}
