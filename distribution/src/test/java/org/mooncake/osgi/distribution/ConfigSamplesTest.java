package org.mooncake.osgi.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.distribution.MetatypeCatalog.Attribute;
import org.mooncake.osgi.distribution.MetatypeCatalog.Designate;

/**
 * The commented samples the distribution ships in {@code etc/} cannot drift from the bundles:
 * every PID our bundles declare (their generated metatype) has exactly one sample; every attribute
 * is in it with its default and a reason; no sample names a property or PID that does not exist;
 * and FileInstall, which reads {@code etc/}, takes none of them as live configuration.
 */
class ConfigSamplesTest {
    private static final Path HOME = Path.of(System.getProperty("mooncake.home", "target/mooncake"));
    private static Map<String, Designate> designates;
    private static List<ConfigSample> samples;

    @BeforeAll
    static void read() throws Exception {
        designates = MetatypeCatalog.of(HOME.resolve("system"));
        try (Stream<Path> files = Files.list(HOME.resolve("etc"))) {
            List<ConfigSample> all = new ArrayList<>();
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(ConfigSample.SUFFIX)).sorted().toList()) {
                all.add(ConfigSample.read(p));
            }
            samples = all;
        }
    }

    @Test
    void everyPidOfOurBundlesHasExactlyOneSample() {
        assertTrue(designates.size() >= 10, "too few PIDs found, is the distribution built? " + designates.keySet());
        Map<String, List<String>> byPid = samples.stream().collect(Collectors.groupingBy(ConfigSample::pid, TreeMap::new,
                Collectors.mapping(ConfigSample::name, Collectors.toList())));
        assertEquals(new TreeSet<>(designates.keySet()), new TreeSet<>(byPid.keySet()),
                "PIDs of the bundles (left) and of the samples in etc/ (right)");
        byPid.forEach((pid, names) -> assertEquals(1, names.size(), pid + " has several samples: " + names));
    }

    /** FileInstall reads a file of etc/ as configuration only when its name ends in .cfg or .config (ConfigInstaller.canHandle). */
    @Test
    void fileInstallTakesNoSampleAsConfigurationAndItsActiveNameWouldBe() {
        for (ConfigSample s : samples) {
            assertFalse(s.name().endsWith(".cfg") || s.name().endsWith(".config"), s.name());
            assertTrue(s.activeName().endsWith(".cfg") || s.activeName().endsWith(".config"), s.name());
        }
    }

    @Test
    void everySampleHoldsEveryPropertyWithItsDefaultAndNothingElse() throws IOException {
        Map<String, List<String>> problems = new TreeMap<>();
        for (ConfigSample s : samples) {
            Designate d = designates.get(s.pid());
            if (d != null) { // a sample without a PID fails everyPidOfOurBundlesHasExactlyOneSample
                List<String> p = SampleCheck.problems(s, d);
                if (!p.isEmpty()) {
                    problems.put(s.name(), p);
                }
            }
        }
        assertEquals(Map.of(), problems);
    }

    /** The check finds each kind of drift: it is no check if it passes whatever the sample says. */
    @Test
    void theCheckFindsAMissingPropertyAWrongDefaultAnUnknownOneAndALiveSetting(@TempDir Path dir) throws IOException {
        Designate d = new Designate("org.example.pid", false, List.of(
                new Attribute("port", "Integer", 0, Optional.of("9003")),
                new Attribute("ratio", "Double", 0, Optional.of("0.9")),
                new Attribute("names", "String", Integer.MAX_VALUE, Optional.of("a,b")),
                new Attribute("address", "String", 0, Optional.empty()),
                new Attribute("gone", "Boolean", 0, Optional.of("true"))), "example.jar");
        Path file = dir.resolve("org.example.pid.cfg.sample");
        Files.writeString(file, """
                # Port to listen on
                #port=9004
                # Share of capacity
                #ratio=0.90
                # Names
                #names=a, b
                # Host and port
                #address=host:1
                # Not a property
                #colour=blue
                live=1
                """);
        List<String> problems = SampleCheck.problems(ConfigSample.read(file), d);
        assertEquals(List.of("line 11 is neither prose ('# ...') nor a setting commented out ('#key=value'): live=1",
                "colour is no property of org.example.pid", "port: default 9003, sample 9004",
                "address has no default: its line should start with 'Required'", "gone is missing"), problems);
    }

    /** In the typed format a value of another type is found too: FileInstall would hand the component that type. */
    @Test
    void aTypedSampleMustGiveTheAttributesType(@TempDir Path dir) throws IOException {
        Designate d = new Designate("org.example.typed", false, List.of(
                new Attribute("count", "Integer", 0, Optional.of("4")),
                new Attribute("levels", "String", Integer.MAX_VALUE, Optional.of("tenant,type"))), "example.jar");
        Path file = dir.resolve("org.example.typed.config.sample");
        Files.writeString(file, "# Count\n#count=L\"4\"\n# Levels\n#levels=[\"tenant\",\"type\"]\n");
        assertEquals(List.of("count: a Integer, the sample gives a Long (4)"), SampleCheck.problems(ConfigSample.read(file), d));
    }
}
