package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.osgi.service.feature.Feature;
import org.osgi.service.feature.FeatureService;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One feature file (OSGi Feature 1.0 JSON), read by the OSGi Feature Service library after the
 * launcher has checked what that library would report badly or not at all: a missing {@code id}
 * (a bare NullPointerException there), a bundle entry that is a plain string (silently dropped
 * there), a variable used but not declared. Every error names the file. Variables are replaced
 * before the library reads the file, since it substitutes none ({@link FeatureVariables}).
 */
final class FeatureFile {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS) // the Feature format allows comments
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private final Path file;
    private final String name;
    private final ObjectNode json;
    /** The declared variables and their defaults, null for one that must be given. */
    private final Map<String, String> variables;
    private final FeatureService service;

    private FeatureFile(Path file, String name, ObjectNode json, Map<String, String> variables, FeatureService service) {
        this.file = file;
        this.name = name;
        this.json = json;
        this.variables = Collections.unmodifiableMap(variables);
        this.service = service;
    }

    /** Reads and checks {@code file}; {@code name} is what profiles call it (the file name without .json). */
    static FeatureFile load(Path file, String name, FeatureService service) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("no feature " + name + " (" + file + ")");
        }
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            throw new IOException(file + ": not valid JSON" + (at == null ? "" : " at line " + at.getLineNr() + ", column "
                    + at.getColumnNr()) + ": " + e.getOriginalMessage(), e);
        }
        if (!(root instanceof ObjectNode feature)) {
            throw new IOException(file + ": a feature is a JSON object");
        }
        return new FeatureFile(file, name, feature, FeatureChecks.check(file, feature, service), service);
    }

    String name() {
        return name;
    }

    Path file() {
        return file;
    }

    /** The variables the feature declares, each with its default (null: it must be given). */
    Map<String, String> variables() {
        return variables;
    }

    /** The raw JSON of the extension {@code extension}, a missing node if the feature has none. */
    JsonNode extension(String extension) {
        return json.path("extensions").path(extension);
    }

    /**
     * The feature as the library reads it, with each variable replaced by its value in
     * {@code given} or else its default.
     *
     * @throws IllegalArgumentException if a variable without a default is not given
     * @throws IOException if the library refuses the result (a typed value its variable does not fit)
     */
    Feature read(Map<String, String> given) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        for (var v : variables.entrySet()) {
            String value = given.getOrDefault(v.getKey(), v.getValue());
            if (value == null) {
                throw new IllegalArgumentException(file + " needs a value for its variable '" + v.getKey() + "'");
            }
            values.put(v.getKey(), value);
        }
        return parse(FeatureVariables.substitute(json, values), values);
    }

    /** The feature without its configurations: its bundles and extensions, whatever its variables. */
    Feature structure() throws IOException {
        ObjectNode bare = json.deepCopy();
        bare.remove("configurations");
        return parse(bare, Map.of());
    }

    private Feature parse(ObjectNode feature, Map<String, String> values) throws IOException {
        try {
            return service.readFeature(new StringReader(JSON.writeValueAsString(feature)));
        } catch (IOException | RuntimeException e) {
            throw new IOException(file + ": " + e.getMessage() + (values.isEmpty() ? "" : " (with variables " + values + ")"), e);
        }
    }

    @Override
    public String toString() {
        return file.toString();
    }
}
