package org.mooncake.osgi.launcher;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one process runs: its features, the configurations that make it that kind of process,
 * and the framework properties it needs before any bundle starts (those that bundles read only
 * from the framework, or read at start, such as Felix HTTP's port). Values may name variables,
 * {@code ${name}} or {@code ${name:default}}, set on the command line.
 */
record Profile(String name, List<String> features, Map<String, Map<String, String>> config,
        Map<String, String> framework) {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9._-]+)(?::([^}]*))?}");

    Profile(String name, List<String> features, Map<String, Map<String, String>> config) {
        this(name, features, config, Map.of());
    }

    /**
     * The configurations with every variable replaced. A variable with no value and no default is
     * an error, and so is a value for a variable the profile does not have (a misspelt
     * {@code --set} would otherwise start the process on a default without a word).
     */
    Map<String, Map<String, String>> resolve(Map<String, String> vars) {
        checkKnown(vars);
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        config.forEach((pid, props) -> out.put(pid, substituteAll(props, vars)));
        return out;
    }

    /** The framework properties with every variable replaced, checked as {@link #resolve} checks. */
    Map<String, String> resolveFramework(Map<String, String> vars) {
        checkKnown(vars);
        return substituteAll(framework, vars);
    }

    private void checkKnown(Map<String, String> vars) {
        Set<String> known = variables();
        for (String given : vars.keySet()) {
            if (!known.contains(given)) {
                throw new IllegalArgumentException("profile " + name + " has no variable '" + given + "' (it has: "
                        + (known.isEmpty() ? "none" : String.join(", ", known))
                        + "); any setting can also go in etc/<pid>.cfg");
            }
        }
    }

    /** The names of the variables the profile's configurations and framework properties use. */
    Set<String> variables() {
        Set<String> names = new TreeSet<>();
        config.values().forEach(props -> props.values().forEach(v -> collect(v, names)));
        framework.values().forEach(v -> collect(v, names));
        return names;
    }

    private static void collect(String value, Set<String> names) {
        Matcher m = VARIABLE.matcher(value);
        while (m.find()) {
            names.add(m.group(1));
        }
    }

    private Map<String, String> substituteAll(Map<String, String> props, Map<String, String> vars) {
        Map<String, String> resolved = new LinkedHashMap<>();
        props.forEach((k, v) -> resolved.put(k, substitute(v, vars)));
        return resolved;
    }

    private String substitute(String value, Map<String, String> vars) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = vars.getOrDefault(m.group(1), m.group(2));
            if (v == null) {
                throw new IllegalArgumentException("profile " + name + " needs a value for '" + m.group(1)
                        + "': pass --set " + m.group(1) + "=..." + ("master".equals(m.group(1)) ? " or --master HOST:PORT" : ""));
            }
            m.appendReplacement(b, Matcher.quoteReplacement(v));
        }
        return m.appendTail(b).toString();
    }
}
