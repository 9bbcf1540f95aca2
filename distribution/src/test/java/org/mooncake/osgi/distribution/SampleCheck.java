package org.mooncake.osgi.distribution;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.mooncake.osgi.distribution.MetatypeCatalog.Attribute;
import org.mooncake.osgi.distribution.MetatypeCatalog.Designate;

/**
 * What is wrong with one sample against its PID's metatype: an attribute missing or without a
 * reason, a default that differs (compared as the attribute's type: 0.90 is 0.9, but 1 is not
 * 1.5), a setting the PID does not have, a setting twice, or a line that is neither prose nor a
 * commented setting. An attribute without a default (a required one) shows an example value and
 * says "Required" in its reason.
 */
final class SampleCheck {
    private SampleCheck() {
    }

    static List<String> problems(ConfigSample sample, Designate designate) throws IOException {
        List<String> problems = new ArrayList<>(sample.problems());
        if (sample.factory() != designate.factory()) {
            problems.add(designate.pid() + (designate.factory() ? " is a factory PID: name the sample "
                    + designate.pid() + "-<name>.cfg.sample" : " is not a factory PID: name the sample " + designate.pid()
                    + ".cfg.sample"));
        }
        Set<String> seen = new HashSet<>();
        for (ConfigSample.Setting s : sample.settings()) {
            if (!seen.add(s.key())) {
                problems.add(s.key() + " is set twice");
            }
            if (designate.attribute(s.key()).isEmpty()) {
                problems.add(s.key() + " is no property of " + designate.pid());
            }
        }
        Map<String, Object> read = sample.activated();
        for (Attribute a : designate.attributes()) {
            Optional<ConfigSample.Setting> setting = sample.settings().stream().filter(s -> s.key().equals(a.id())).findFirst();
            if (setting.isEmpty()) {
                problems.add(a.id() + " is missing");
                continue;
            }
            if (setting.get().why().isEmpty()) {
                problems.add(a.id() + " has no line above it that says why");
            }
            if (a.defaultValue().isEmpty()) {
                if (!setting.get().why().startsWith("Required")) {
                    problems.add(a.id() + " has no default: its line should start with 'Required'");
                }
                continue;
            }
            String wrong = compare(a, read.get(a.id()));
            if (wrong != null) {
                problems.add(a.id() + ": " + wrong);
            }
        }
        return problems;
    }

    /** Null where {@code value} (as FileInstall read it) is the attribute's default, else what differs. */
    static String compare(Attribute a, Object value) {
        String expected = a.defaultValue().orElseThrow();
        if (a.list()) {
            List<String> want = split(expected);
            List<String> got = value instanceof Object[] array ? Arrays.stream(array).map(String::valueOf).toList()
                    : value instanceof String s ? split(s) : null;
            return want.equals(got) ? null : "default " + want + ", sample " + describe(value);
        }
        if (!(value instanceof String)) {
            String javaType = value == null ? "nothing" : value.getClass().getSimpleName();
            if (!javaType.equals(a.type())) {
                return "a " + a.type() + ", the sample gives a " + javaType + " (" + describe(value) + ")";
            }
        }
        String text = String.valueOf(value);
        boolean same = switch (a.type()) {
            case "Integer", "Long", "Short", "Byte" -> parses(() -> Long.parseLong(text) == Long.parseLong(expected));
            case "Double", "Float" -> parses(() -> Double.parseDouble(text) == Double.parseDouble(expected));
            case "Boolean" -> text.equals(expected);
            default -> text.equals(expected);
        };
        return same ? null : "default " + expected + ", sample " + describe(value);
    }

    private interface Check {
        boolean holds();
    }

    private static boolean parses(Check c) {
        try {
            return c.holds();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** A metatype list default or a .cfg value: comma-separated (a backslash escapes a comma), trimmed; "" is empty. */
    static List<String> split(String joined) {
        if (joined.isBlank()) {
            return List.of();
        }
        return Arrays.stream(joined.split("(?<!\\\\),")).map(s -> s.strip().replace("\\,", ",")).toList();
    }

    private static String describe(Object value) {
        return value instanceof Object[] array ? Arrays.toString(array) : String.valueOf(value);
    }
}
