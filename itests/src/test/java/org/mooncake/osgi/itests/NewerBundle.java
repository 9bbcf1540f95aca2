package org.mooncake.osgi.itests;

import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.Manifest;

import aQute.bnd.osgi.Jar;
import aQute.bnd.version.Version;

/**
 * The next release of a bundle made from its built jar: the same content with the micro part of
 * {@code Bundle-Version} raised and the qualifier dropped (1.0.0.SNAPSHOT becomes 1.0.1), as a
 * release of a fix that changes no exported package would be. Runs outside the container.
 */
final class NewerBundle {
    private NewerBundle() {
    }

    static Path of(Path jar, Path dir) throws Exception {
        try (Jar bundle = new Jar(jar.toFile())) {
            Manifest manifest = bundle.getManifest();
            Attributes main = manifest.getMainAttributes();
            Version current = Version.parseVersion(main.getValue("Bundle-Version"));
            Version newer = new Version(current.getMajor(), current.getMinor(), current.getMicro() + 1);
            main.putValue("Bundle-Version", newer.toString());
            bundle.setManifest(manifest);
            Path out = dir.resolve(main.getValue("Bundle-SymbolicName") + "-" + newer + ".jar");
            bundle.write(out.toFile());
            return out;
        }
    }
}
