package org.mooncake.osgi.launcher;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one process runs: its features, and the configurations that make it that kind of process
 * (values may name variables, {@code ${name}} or {@code ${name:default}}, set on the command line).
 */
record Profile(String name, List<String> features, Map<String, Map<String, String>> config) {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z0-9._-]+)(?::([^}]*))?}");

    /** The configurations with every variable replaced; a variable with no value and no default is an error. */
    Map<String, Map<String, String>> resolve(Map<String, String> vars) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        config.forEach((pid, props) -> {
            Map<String, String> resolved = new LinkedHashMap<>();
            props.forEach((k, v) -> resolved.put(k, substitute(v, vars)));
            out.put(pid, resolved);
        });
        return out;
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
