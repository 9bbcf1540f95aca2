package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.feature.FeatureService;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a feature file must be before the Feature Service library reads it, each failure an
 * {@link IOException} naming the file and what to write instead.
 */
final class FeatureChecks {
    static final String ID_FORM = "groupId:artifactId[:type[:classifier]]:version";

    private FeatureChecks() {
    }

    /** Checks the feature and returns its variables with their defaults (null: none). */
    static Map<String, String> check(Path file, ObjectNode feature, FeatureService service) throws IOException {
        JsonNode id = feature.path("id");
        if (!id.isTextual() || id.asText().isBlank()) {
            throw new IOException(file + ": a feature needs an \"id\", " + ID_FORM);
        }
        checkId(file, "the feature's id", id.asText(), service);
        checkBundles(file, feature.path("bundles"), service);
        objectOrMissing(file, feature, "configurations");
        for (var pid : feature.path("configurations").properties()) {
            if (!pid.getValue().isObject()) {
                throw new IOException(file + ": configuration " + pid.getKey() + " must be a JSON object of properties");
            }
        }
        objectOrMissing(file, feature, "extensions");
        JsonNode framework = feature.path("extensions").path(LaunchPlan.FRAMEWORK_PROPERTIES);
        if (!framework.isMissingNode() && (!"json".equals(framework.path("type").asText()) || !framework.path("json").isObject())) {
            throw new IOException(file + ": the " + LaunchPlan.FRAMEWORK_PROPERTIES
                    + " extension needs \"type\": \"json\" and its properties as a \"json\" object");
        }
        Map<String, String> variables = variables(file, feature);
        List<String> undeclared = new ArrayList<>();
        FeatureVariables.references(feature, (name, where) -> {
            if (!variables.containsKey(name)) {
                undeclared.add(where + " uses ${" + name + "}");
            }
        });
        if (!undeclared.isEmpty()) {
            throw new IOException(file + ": " + String.join("; ", undeclared) + ", but \"variables\" declares no such name"
                    + " (declare each with its default, or null for one that must be set)");
        }
        return variables;
    }

    private static void checkBundles(Path file, JsonNode bundles, FeatureService service) throws IOException {
        if (bundles.isMissingNode()) {
            return;
        }
        if (!bundles.isArray()) {
            throw new IOException(file + ": \"bundles\" must be an array of {\"id\": \"" + ID_FORM + "\"}");
        }
        for (int i = 0; i < bundles.size(); i++) {
            JsonNode id = bundles.get(i).path("id");
            if (!bundles.get(i).isObject() || !id.isTextual()) {
                throw new IOException(file + ": bundle entry " + (i + 1) + " is " + bundles.get(i)
                        + "; each must be an object with an \"id\", " + ID_FORM);
            }
            checkId(file, "bundle entry " + (i + 1), id.asText(), service);
            JsonNode order = bundles.get(i).path(LaunchPlan.START_ORDER);
            if (!order.isMissingNode() && startOrder(order) < 1) {
                throw new IOException(file + ": bundle " + id.asText() + " has " + LaunchPlan.START_ORDER + " " + order
                        + "; it must be a whole number from 1 (lower starts first)");
            }
        }
    }

    /** A start order is a whole number from 1, as a JSON number or a string of one; 0 for anything else. */
    private static int startOrder(JsonNode value) {
        if (value.isInt() || value.isTextual()) {
            try {
                return Math.max(0, Integer.parseInt(value.asText().trim()));
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    private static void checkId(Path file, String what, String id, FeatureService service) throws IOException {
        try {
            service.getIDfromMavenCoordinates(id);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + what + " is '" + id + "', not " + ID_FORM);
        }
    }

    private static void objectOrMissing(Path file, JsonNode feature, String field) throws IOException {
        if (!feature.path(field).isMissingNode() && !feature.path(field).isObject()) {
            throw new IOException(file + ": \"" + field + "\" must be a JSON object");
        }
    }

    /** Variables hold a string, a number, a boolean, or null for one without a default (Feature 1.0). */
    private static Map<String, String> variables(Path file, ObjectNode feature) throws IOException {
        objectOrMissing(file, feature, "variables");
        Map<String, String> variables = new LinkedHashMap<>();
        for (var v : feature.path("variables").properties()) {
            JsonNode value = v.getValue();
            if (value.isNull()) {
                variables.put(v.getKey(), null);
            } else if (value.isTextual() || value.isBoolean() || value.isIntegralNumber()) {
                variables.put(v.getKey(), value.asText());
            } else if (value.isNumber()) {
                variables.put(v.getKey(), value.decimalValue().toPlainString());
            } else {
                throw new IOException(file + ": variable " + v.getKey() + " is " + value
                        + "; a default is a string, a number, a boolean, or null where it must be set");
            }
        }
        return variables;
    }
}
