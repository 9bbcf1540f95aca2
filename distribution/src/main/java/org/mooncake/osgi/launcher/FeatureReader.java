package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

import org.osgi.service.feature.FeatureService;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The features of a distribution ({@code features/NAME.json}) and its profiles
 * ({@code features/profiles/NAME.json}, see {@link Profile}), read with the OSGi Feature Service
 * library (Apache Felix's, found through {@link ServiceLoader}: it runs outside OSGi).
 */
final class FeatureReader {
    static final String PROFILES = "profiles";

    private final Path featuresDir;
    private final FeatureService service;

    FeatureReader(Path featuresDir) {
        this.featuresDir = featuresDir;
        this.service = ServiceLoader.load(FeatureService.class, FeatureReader.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no OSGi Feature Service implementation on the class path"));
    }

    FeatureFile feature(String name) throws IOException {
        return FeatureFile.load(featuresDir.resolve(name + ".json"), name, service);
    }

    /** The features there are (the names of {@code features/*.json}), sorted. */
    List<String> featureNames() throws IOException {
        return names(featuresDir);
    }

    /** The profiles there are (the names of {@code features/profiles/*.json}), sorted. */
    List<String> profileNames() throws IOException {
        return Files.isDirectory(featuresDir.resolve(PROFILES)) ? names(featuresDir.resolve(PROFILES)) : List.of();
    }

    Profile profile(String name) throws IOException {
        Path file = featuresDir.resolve(PROFILES).resolve(name + ".json");
        if (!Files.isRegularFile(file)) {
            throw new IOException("no profile " + name + " (" + file + "); known: " + String.join(", ", profileNames()));
        }
        FeatureFile own = FeatureFile.load(file, name, service);
        JsonNode extension = own.extension(Profile.EXTENSION);
        JsonNode names = extension.path("json").path("features");
        if (!"json".equals(extension.path("type").asText()) || !names.isArray()) {
            throw new IOException(file + ": a profile names its features in a \"" + Profile.EXTENSION
                    + "\" extension: {\"kind\": \"mandatory\", \"type\": \"json\", \"json\": {\"features\": [\"runtime\", ...]}}");
        }
        List<FeatureFile> features = new ArrayList<>();
        for (JsonNode feature : names) {
            if (!feature.isTextual() || !Files.isRegularFile(featuresDir.resolve(feature.asText() + ".json"))) {
                throw new IOException(file + ": profile " + name + " names feature " + feature + ", but there is no "
                        + featuresDir.resolve(feature.asText() + ".json") + "; known: " + String.join(", ", featureNames()));
            }
            features.add(feature(feature.asText()));
        }
        return new Profile(name, own, List.copyOf(features));
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - ".json".length())).sorted().toList();
        }
    }
}
