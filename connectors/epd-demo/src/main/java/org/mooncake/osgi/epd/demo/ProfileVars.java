package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The variables a profile of the distribution takes (the {@code ${name}} and {@code ${name:default}}
 * in its configuration). The launcher refuses a {@code --set} of a name the profile lacks, so the
 * demo sets only what each profile declares, and says which profile lacks one it needs.
 */
public final class ProfileVars {
    private static final Pattern VAR = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+)(?::[^}]*)?}");

    private ProfileVars() {
    }

    public static Set<String> of(Path home, String profile) throws IOException {
        JsonNode all = new ObjectMapper().readTree(home.resolve("features/profiles.json").toFile());
        JsonNode p = all.get(profile);
        if (p == null) {
            throw new IllegalStateException("the distribution at " + home + " has no profile " + profile
                    + " (features/profiles.json): is the EPD worker built into it?");
        }
        return names(p.toString());
    }

    static Set<String> names(String text) {
        Set<String> names = new TreeSet<>();
        Matcher m = VAR.matcher(text);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
