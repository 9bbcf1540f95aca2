package org.mooncake.osgi.store.baseline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import aQute.bnd.version.MavenVersion;

/**
 * The previous release of one of our bundles in the project's file repository ({@code releases/},
 * Maven layout): the newest version below the bundle being built, as the baseline plugin picks it.
 */
final class PreviousRelease {
    private static final Pattern VERSION = Pattern.compile("<version>([^<]+)</version>");

    private PreviousRelease() {
    }

    static Path of(String artifactId, MavenVersion current) throws IOException {
        Path artifact = repository().resolve("org/mooncake/osgi").resolve(artifactId);
        String metadata = Files.readString(artifact.resolve("maven-metadata.xml"));
        Matcher m = VERSION.matcher(metadata);
        MavenVersion newest = null;
        while (m.find()) {
            MavenVersion v = MavenVersion.parseMavenString(m.group(1));
            if (v.compareTo(current) < 0 && (newest == null || v.compareTo(newest) > 0)) {
                newest = v;
            }
        }
        if (newest == null) {
            throw new IOException("no release of " + artifactId + " below " + current + " in " + artifact);
        }
        String version = newest.toString();
        return artifact.resolve(version).resolve(artifactId + "-" + version + ".jar");
    }

    /** releases/ at the root of the project, found upward from this module's compiled classes. */
    static Path repository() throws IOException {
        for (Path dir = BundleBuild.mainClasses(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("releases/org/mooncake/osgi"))) {
                return dir.resolve("releases");
            }
        }
        throw new IOException("no releases/ folder above " + BundleBuild.mainClasses());
    }
}
