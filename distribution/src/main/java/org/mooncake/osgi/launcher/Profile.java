package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one process runs: a profile is a feature of its own ({@code features/profiles/NAME.json})
 * holding the configurations, framework properties and variables that make a process that kind of
 * process, and naming, in its {@value #EXTENSION} extension, the features it is composed of
 * ({@code features/NAME.json}, in order). The Feature format has no inclusion, so composing is the
 * launcher's part. A {@code --set name=value} fills the variable of that name in every feature of
 * the profile that declares it; the others keep their defaults.
 */
record Profile(String name, FeatureFile own, List<FeatureFile> features) {
    /** {@code {"kind": "mandatory", "type": "json", "json": {"features": ["runtime", ...]}}}. */
    static final String EXTENSION = "mooncake-profile";

    /** The names of the features it composes, in order. */
    List<String> featureNames() {
        return features.stream().map(FeatureFile::name).toList();
    }

    /** The names of the variables of all its features. */
    Set<String> variables() {
        Set<String> names = new TreeSet<>(own.variables().keySet());
        features.forEach(f -> names.addAll(f.variables().keySet()));
        return names;
    }

    /**
     * Reads the profile's features with the given variables. A variable with no value and no
     * default is an error, and so is a value for a variable the profile does not have (a misspelt
     * {@code --set} would otherwise start the process on a default without a word).
     *
     * @throws IllegalArgumentException for a variable given but unknown, or needed but not given
     * @throws IOException for a feature the library refuses with these values, or features that disagree
     */
    LaunchPlan resolve(Map<String, String> vars) throws IOException {
        Set<String> known = variables();
        for (String given : vars.keySet()) {
            if (!known.contains(given)) {
                throw new IllegalArgumentException("profile " + name + " has no variable '" + given + "' (it has: "
                        + (known.isEmpty() ? "none" : String.join(", ", known))
                        + "); any setting can also go in etc/<pid>.cfg");
            }
        }
        for (FeatureFile f : all()) {
            for (var v : f.variables().entrySet()) {
                if (v.getValue() == null && !vars.containsKey(v.getKey())) {
                    throw new IllegalArgumentException("profile " + name + " needs a value for '" + v.getKey()
                            + "': pass --set " + v.getKey() + "=..."
                            + ("master".equals(v.getKey()) ? " or --master HOST:PORT" : "") + " (declared in " + f + ")");
                }
            }
        }
        List<LaunchPlan.Part> composed = new ArrayList<>();
        for (FeatureFile f : features) {
            composed.add(new LaunchPlan.Part(f, f.read(vars)));
        }
        return LaunchPlan.of(composed, new LaunchPlan.Part(own, own.read(vars)));
    }

    private List<FeatureFile> all() {
        List<FeatureFile> all = new ArrayList<>(features);
        all.add(own);
        return all;
    }
}
