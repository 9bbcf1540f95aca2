package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The variables a profile of the distribution takes: the names its profile feature
 * ({@code features/profiles/NAME.json}) and the features it composes (its {@code mooncake-profile}
 * extension) declare under {@code "variables"} (OSGi Feature 1.0). The launcher refuses a
 * {@code --set} of a name the profile lacks, so the demo sets only what each profile declares, and
 * says which profile lacks one it needs.
 */
public final class ProfileVars {
    private static final JsonMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();

    private ProfileVars() {
    }

    public static Set<String> of(Path home, String profile) throws IOException {
        Path file = home.resolve("features/profiles").resolve(profile + ".json");
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("the distribution at " + home + " has no profile " + profile
                    + " (" + file + "): is the EPD worker built into it?");
        }
        JsonNode p = JSON.readTree(file.toFile());
        Set<String> names = new TreeSet<>();
        p.path("variables").fieldNames().forEachRemaining(names::add);
        for (JsonNode feature : p.path("extensions").path("mooncake-profile").path("json").path("features")) {
            Path f = home.resolve("features").resolve(feature.asText() + ".json");
            if (Files.isRegularFile(f)) {
                JSON.readTree(f.toFile()).path("variables").fieldNames().forEachRemaining(names::add);
            }
        }
        return names;
    }
}
