package org.mooncake.osgi.launcher;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one process runs: its features, and the configurations that make it that kind of process
 * (values may name variables, {@code ${name}} or {@code ${name:default}}, set on the command line).
 */
record Profile(String name, List<String> features, Map<String, Map<String, String>> config) {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9._-]+)(?::([^}]*))?}");

    /**
     * The configurations with every variable replaced. A variable with no value and no default is
     * an error, and so is a value for a variable the profile does not have (a misspelt
     * {@code --set} would otherwise start the process on a default without a word).
     */
    Map<String, Map<String, String>> resolve(Map<String, String> vars) {
        Set<String> known = variables();
        for (String given : vars.keySet()) {
            if (!known.contains(given)) {
                throw new IllegalArgumentException("profile " + name + " has no variable '" + given + "' (it has: "
                        + (known.isEmpty() ? "none" : String.join(", ", known))
                        + "); any setting can also go in etc/<pid>.cfg");
            }
        }
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        config.forEach((pid, props) -> {
            Map<String, String> resolved = new LinkedHashMap<>();
            props.forEach((k, v) -> resolved.put(k, substitute(v, vars)));
            out.put(pid, resolved);
        });
        return out;
    }

    /** The names of the variables the profile's configurations use. */
    Set<String> variables() {
        Set<String> names = new TreeSet<>();
        config.values().forEach(props -> props.values().forEach(v -> {
            Matcher m = VARIABLE.matcher(v);
            while (m.find()) {
                names.add(m.group(1));
            }
        }));
        return names;
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
