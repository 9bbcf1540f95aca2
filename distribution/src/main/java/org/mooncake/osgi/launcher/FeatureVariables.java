package org.mooncake.osgi.launcher;

import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The {@code ${name}} references of a feature file (OSGi Feature 1.0, section "Variables"), where
 * the launcher honours them: in configuration values and in the values of the
 * {@value LaunchPlan#FRAMEWORK_PROPERTIES} extension. The Feature Service library reads a
 * reference as plain text (and refuses one in a typed value such as {@code "port:Integer"}), so the
 * launcher replaces them in the JSON before the library reads it.
 */
final class FeatureVariables {
    /** Anything between {@code ${} and {@code }}: a name the feature must declare. */
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{([^}]*)}");

    private FeatureVariables() {
    }

    /**
     * Calls {@code use} with each reference and where it stands ("configuration PID, property K";
     * "framework property K"), over the JSON of a whole feature.
     */
    static void references(JsonNode feature, BiConsumer<String, String> use) {
        eachValue(feature, (where, text) -> {
            Matcher m = REFERENCE.matcher(text.asText());
            while (m.find()) {
                use.accept(m.group(1), where);
            }
            return text;
        });
    }

    /** The feature with every reference replaced by its value; {@code values} must hold every name it uses. */
    static ObjectNode substitute(ObjectNode feature, Map<String, String> values) {
        ObjectNode copy = feature.deepCopy();
        eachValue(copy, (where, text) -> {
            Matcher m = REFERENCE.matcher(text.asText());
            StringBuilder b = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(b, Matcher.quoteReplacement(values.get(m.group(1))));
            }
            return TextNode.valueOf(m.appendTail(b).toString());
        });
        return copy;
    }

    private interface TextVisitor {
        JsonNode visit(String where, TextNode text);
    }

    /** Visits every text value (arrays included) where references count, replacing each by what the visitor gives. */
    private static void eachValue(JsonNode feature, TextVisitor visitor) {
        if (feature.path("configurations") instanceof ObjectNode configurations) {
            configurations.properties().forEach(pid -> {
                if (pid.getValue() instanceof ObjectNode props) {
                    visitAll(props, "configuration " + pid.getKey() + ", property ", visitor);
                }
            });
        }
        if (feature.path("extensions").path(LaunchPlan.FRAMEWORK_PROPERTIES).path("json") instanceof ObjectNode props) {
            visitAll(props, "framework property ", visitor);
        }
    }

    private static void visitAll(ObjectNode props, String prefix, TextVisitor visitor) {
        for (var e : props.properties()) {
            String where = prefix + e.getKey();
            if (e.getValue() instanceof TextNode text) {
                e.setValue(visitor.visit(where, text));
            } else if (e.getValue() instanceof ArrayNode array) {
                for (int i = 0; i < array.size(); i++) {
                    if (array.get(i) instanceof TextNode text) {
                        array.set(i, visitor.visit(where, text));
                    }
                }
            }
        }
    }
}
