package org.mooncake.osgi.launcher;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The part of an OSGi Feature Service (Feature 1.0) description the launcher acts on: its id,
 * its bundles by Maven coordinates {@code groupId:artifactId:version}, and the start order some
 * of them carry ({@code "start-order": 1} in a bundle entry, as Apache Sling's feature launcher
 * reads it): bundles that must run before others are loaded, such as SPI Fly, which rewrites the
 * {@code ServiceLoader} calls of the classes loaded after it starts. And the framework properties
 * its bundles need in every process, from its {@value FeatureReader#FRAMEWORK_PROPERTIES} extension
 * (a JSON extension, as Apache Sling's feature launcher reads it).
 */
record Feature(String id, String name, List<String> bundles, Map<String, Integer> startOrder,
        Map<String, String> frameworkProperties) {

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
