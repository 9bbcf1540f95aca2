package org.mooncake.osgi.store.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.Manifest;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import aQute.bnd.differ.Baseline.Info;
import aQute.bnd.header.Attrs;
import aQute.bnd.header.Parameters;
import aQute.bnd.service.diff.Delta;
import aQute.bnd.version.MavenVersion;
import aQute.bnd.version.Version;

/**
 * The build's baseline check against the previous release committed in releases/ catches a
 * breaking change to an exported package: removing a method from {@code StoreClient} without the
 * major bump of {@code org.mooncake.osgi.store.api} fails, the same removal with the bump (and
 * the bundle's major bump that follows) passes, and today's code passes.
 */
class ApiBaselineTest {
    private static final String API = "org.mooncake.osgi.store.api";
    private static final String CLIENT = "org/mooncake/osgi/store/api/StoreClient.java";
    private static final String PACKAGE_INFO = "org/mooncake/osgi/store/api/package-info.java";
    private static final String REMOVED = "    boolean exists(String key);\n";

    private static String symbolicName;
    private static String bundleVersion;
    private static Path previousRelease;

    @TempDir
    Path work;

    @BeforeAll
    static void readTheBuiltBundle() throws IOException {
        try (var in = Files.newInputStream(BundleBuild.mainClasses().resolve("META-INF/MANIFEST.MF"))) {
            Attributes main = new Manifest(in).getMainAttributes();
            symbolicName = main.getValue("Bundle-SymbolicName");
            bundleVersion = main.getValue("Bundle-Version");
        }
        previousRelease = PreviousRelease.of("store-api", new MavenVersion(Version.parseVersion(bundleVersion)));
    }

    @Test
    void todaysApiPassesAgainstThePreviousRelease() throws Exception {
        Path bundle = BundleBuild.bundle(BundleBuild.mainClasses(), symbolicName, bundleVersion, work.resolve("today.jar"));
        BaselineCheck check = BaselineCheck.compare(bundle, previousRelease);
        assertFalse(check.fails(), check::report);
        assertTrue(check.pkg(API).isPresent(), "the release exports " + API);
    }

    @Test
    void removingAMethodWithoutAMajorBumpFails() throws Exception {
        Path classes = BundleBuild.withEditedSources(Map.of(CLIENT, withoutExists()), work);
        Path bundle = BundleBuild.bundle(classes, symbolicName, bundleVersion, work.resolve("broken.jar"));
        BaselineCheck check = BaselineCheck.compare(bundle, previousRelease);

        assertTrue(check.fails(), check::report);
        Info api = check.pkg(API).orElseThrow();
        assertEquals(Delta.MAJOR, api.packageDiff.getDelta(), check::report);
        assertTrue(api.mismatch, check::report);
        assertEquals(api.olderVersion.getMajor() + 1, api.suggestedVersion.getMajor(), "a major bump is due");
        assertTrue(check.bundle().mismatch, "the bundle's version must follow: " + check.report());
        assertEquals(Version.parseVersion(bundleVersion).getMajor() + 1, check.bundle().suggestedVersion.getMajor());
        check.packages().stream().filter(i -> !i.packageName.equals(API))
                .forEach(i -> assertFalse(i.mismatch, "only " + API + " changed: " + check.report()));
    }

    @Test
    void removingAMethodWithTheMajorBumpsPasses() throws Exception {
        Version released = Version.parseVersion(apiVersionIn(previousRelease));
        String bumped = (released.getMajor() + 1) + ".0.0";
        Path classes = BundleBuild.withEditedSources(Map.of(CLIENT, withoutExists(),
                PACKAGE_INFO, source(PACKAGE_INFO).replaceFirst("@Version\\(\"[^\"]*\"\\)", "@Version(\"" + bumped + "\")")),
                work);
        String nextMajor = (Version.parseVersion(bundleVersion).getMajor() + 1) + ".0.0";
        Path bundle = BundleBuild.bundle(classes, symbolicName, nextMajor, work.resolve("bumped.jar"));
        BaselineCheck check = BaselineCheck.compare(bundle, previousRelease);

        assertFalse(check.fails(), check::report);
        assertEquals(Version.parseVersion(bumped), check.pkg(API).orElseThrow().newerVersion);
    }

    private static String withoutExists() throws IOException {
        String client = source(CLIENT);
        assertTrue(client.contains(REMOVED), "StoreClient declares exists(String): the test removes it");
        return client.replace(REMOVED, "");
    }

    private static String source(String path) throws IOException {
        return Files.readString(BundleBuild.mainSources().resolve(path));
    }

    private static String apiVersionIn(Path jar) throws Exception {
        try (aQute.bnd.osgi.Jar j = new aQute.bnd.osgi.Jar(jar.toFile())) {
            Attrs export = new Parameters(j.getManifest().getMainAttributes().getValue("Export-Package")).get(API);
            assertTrue(export != null, "the release exports " + API);
            return export.getVersion();
        }
    }
}
