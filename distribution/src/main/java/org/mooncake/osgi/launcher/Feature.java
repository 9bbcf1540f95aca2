package org.mooncake.osgi.launcher;

import java.nio.file.Path;
import java.util.List;

/**
 * The part of an OSGi Feature Service (Feature 1.0) description the launcher acts on: its id
 * and its bundles, by Maven coordinates {@code groupId:artifactId:version}.
 */
record Feature(String id, String name, List<String> bundles) {

    /** Where a bundle id lives under {@code system/}, in Maven repository layout. */
    static Path bundlePath(Path system, String bundleId) {
        String[] gav = bundleId.split(":");
        if (gav.length != 3 || gav[0].isBlank() || gav[1].isBlank() || gav[2].isBlank()) {
            throw new IllegalArgumentException("bundle id must be groupId:artifactId:version, was " + bundleId);
        }
        return system.resolve(gav[0].replace('.', '/')).resolve(gav[1]).resolve(gav[2])
                .resolve(gav[1] + "-" + gav[2] + ".jar");
    }
}
