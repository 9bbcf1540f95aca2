package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.osgi.service.feature.FeatureBundle;
import org.osgi.service.feature.ID;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The features and profiles the distribution ships, against the modules they name: a module whose
 * version is bumped without its features fails here, as does a profile that no longer reads.
 */
class ShippedFeaturesTest {
    private static final Path HOME = Path.of(System.getProperty("mooncake.home"));
    private static final Path SOURCE = Path.of(System.getProperty("mooncake.source"));
    private static final String OWN_GROUP = "org.mooncake.osgi";
    private final FeatureReader features = new FeatureReader(HOME.resolve("features"));

    @Test
    void everyOwnBundleAFeatureNamesIsInTheDistributionAtTheVersionOfItsModule() throws Exception {
        Map<String, String> modules = moduleVersions();
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (String name : features.featureNames()) {
            for (FeatureBundle b : features.feature(name).structure().getBundles()) {
                ID id = b.getID();
                if (!id.getGroupId().equals(OWN_GROUP)) {
                    continue;
                }
                checked++;
                String module = modules.get(id.getArtifactId());
                if (!id.getVersion().equals(module)) {
                    wrong.add("features/" + name + ".json names " + id + ", but module " + id.getArtifactId()
                            + (module == null ? " does not exist" : " is at " + module));
                } else if (!Files.isRegularFile(SystemRepository.jar(HOME.resolve("system"), id))) {
                    wrong.add(id + " (features/" + name + ".json) is not in system/: does the distribution's pom depend on "
                            + id.getArtifactId() + " at " + module + "?");
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertTrue(checked > 20, "only " + checked + " bundles of " + OWN_GROUP + " in the features");
    }

    @Test
    void featuresAndProfilesCarryTheDistributionsVersion() throws IOException {
        String version = System.getProperty("mooncake.version");
        List<String> wrong = new ArrayList<>();
        for (String name : features.featureNames()) {
            check(features.feature(name), version, wrong);
        }
        for (String name : features.profileNames()) {
            check(features.profile(name).own(), version, wrong);
        }
        assertTrue(wrong.isEmpty(), "the features are part of the distribution " + version + ":\n" + String.join("\n", wrong));
    }

    private static void check(FeatureFile feature, String version, List<String> wrong) throws IOException {
        ID id = feature.structure().getID();
        if (!id.getVersion().equals(version)) {
            wrong.add(feature + " is " + id);
        }
    }

    /** Every profile reads with its defaults (and a master where it needs one) into a bundle set with configurations. */
    @Test
    void everyShippedProfileResolves() throws IOException {
        List<String> profiles = features.profileNames();
        assertTrue(profiles.containsAll(List.of("all-in-one", "master", "storage", "client", "epd-proxy")), profiles.toString());
        for (String name : profiles) {
            Profile p = features.profile(name);
            Map<String, String> needed = new HashMap<>();
            List<FeatureFile> all = new ArrayList<>(p.features());
            all.add(p.own());
            for (FeatureFile f : all) {
                f.variables().forEach((k, v) -> {
                    if (v == null) {
                        needed.put(k, "127.0.0.1:50051");
                    }
                });
            }
            LaunchPlan plan = p.resolve(needed);
            assertTrue(plan.bundles().keySet().stream().anyMatch(b -> b.startsWith("org.apache.felix:org.apache.felix.configadmin:")),
                    name + " runs ConfigurationAdmin");
        }
        assertEquals(List.of(), features.profileNames().stream().filter(n -> !n.matches("[a-z0-9-]+")).toList(),
                "profile names are what --profile takes");
    }

    /** artifactId to version of every module of the source tree (a module without its own version has its parent's). */
    private static Map<String, String> moduleVersions() throws Exception {
        Map<String, String> versions = new HashMap<>();
        try (Stream<Path> poms = Files.find(SOURCE, 3, (p, a) -> p.getFileName().toString().equals("pom.xml")
                && !p.toString().contains("/target/"))) {
            for (Path pom : (Iterable<Path>) poms::iterator) {
                Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
                String version = child(project, "version");
                Element parent = project.getElementsByTagName("parent").getLength() > 0
                        ? (Element) project.getElementsByTagName("parent").item(0) : null;
                versions.put(child(project, "artifactId"), version != null ? version : parent == null ? null : child(parent, "version"));
            }
        }
        return versions;
    }

    private static String child(Element element, String name) {
        for (Node n = element.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }
}
