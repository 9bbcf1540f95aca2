package org.mooncake.osgi.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.ops4j.pax.exam.Option;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The container under test is the distribution's own: its feature files name the bundles,
 * taken from its system/ folder, so these tests boot exactly what {@code bin/mooncake} boots.
 */
final class ContainerOptions {
    private ContainerOptions() {
    }

    static Path home() {
        return Path.of(System.getProperty("mooncake.home", "../distribution/target/mooncake")).toAbsolutePath();
    }

    /** A bundle of system/ by its Maven coordinates. */
    static Path jar(String groupId, String artifactId, String version) {
        return home().resolve("system").resolve(groupId.replace('.', '/')).resolve(artifactId).resolve(version)
                .resolve(artifactId + "-" + version + ".jar");
    }

    /**
     * A bundle of this project for a test to install: the distribution's system/ copy, at the one
     * version the distribution ships (each bundle carries its own version, see docs/releasing.md).
     */
    static Path ourJar(String artifactId) throws IOException {
        return jar("org.mooncake.osgi", artifactId, shippedVersion(artifactId));
    }

    /** The version of one of our bundles in system/; several mean a stale distribution. */
    static String shippedVersion(String artifactId) throws IOException {
        Path versions = home().resolve("system/org/mooncake/osgi").resolve(artifactId);
        if (!Files.isDirectory(versions)) {
            throw new IOException(artifactId + " is not in " + versions.getParent() + "; build the distribution first");
        }
        try (Stream<Path> dirs = Files.list(versions)) {
            List<String> found = dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).sorted().toList();
            if (found.size() != 1) {
                throw new IOException(artifactId + " has " + found + " in " + versions
                        + "; one version expected: rebuild the distribution (mvn clean install -pl distribution)");
            }
            return found.get(0);
        }
    }

    /**
     * etc/ (FileInstall's folder) and deploy/ (watched once a test configures a second watcher,
     * see DeployFolderIT) in fresh folders the tests find through system properties; the admin
     * endpoint takes a free port so parallel containers never clash.
     */
    private static List<Option> folders() throws IOException {
        Path etc = Files.createTempDirectory("mooncake-etc");
        Path deploy = Files.createTempDirectory("mooncake-deploy");
        Files.writeString(etc.resolve("org.mooncake.osgi.store.admin.http.cfg"), "port=0\nbind.address=127.0.0.1\n");
        return List.of(frameworkProperty("felix.fileinstall.dir").value(etc.toString()),
                frameworkProperty("felix.fileinstall.poll").value("100"),
                frameworkProperty("felix.fileinstall.log.level").value("4"),
                frameworkProperty("felix.fileinstall.noInitialDelay").value("true"),
                systemProperty("mooncake.test.etc").value(etc.toString()),
                systemProperty("mooncake.test.deploy").value(deploy.toString()));
    }

    static Option[] features(String... names) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Set<String> ids = new LinkedHashSet<>();
        for (String name : names) {
            JsonNode f = json.readTree(home().resolve("features").resolve(name + ".json").toFile());
            f.get("bundles").forEach(b -> ids.add(b.get("id").asText()));
        }
        List<Option> options = new ArrayList<>();
        for (String id : ids) {
            String[] gav = id.split(":");
            Path jar = jar(gav[0], gav[1], gav[2]);
            if (!Files.isRegularFile(jar)) {
                throw new IOException("feature bundle " + id + " is missing at " + jar + "; build the distribution first");
            }
            options.add(bundle(jar.toUri().toString()));
        }
        options.add(junitBundles());
        options.add(cleanCaches());
        options.add(systemProperty("java.util.logging.config.file").value(home().resolve("etc/logging.properties").toString()));
        options.addAll(folders());
        return options.toArray(Option[]::new);
    }
}
