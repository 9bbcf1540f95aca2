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
     * A bundle of this project for a test to install: the distribution's system/ copy, or, where
     * the distribution was assembled before the bundle was added to it, the local repository's
     * (where {@code mvn install} put it).
     */
    static Path ourJar(String artifactId) {
        String version = System.getProperty("mooncake.version");
        Path shipped = jar("org.mooncake.osgi", artifactId, version);
        if (Files.isRegularFile(shipped)) {
            return shipped;
        }
        String repo = System.getProperty("org.ops4j.pax.url.mvn.localRepository", "");
        Path local = (repo.isBlank() ? Path.of(System.getProperty("user.home"), ".m2", "repository") : Path.of(repo))
                .resolve("org/mooncake/osgi").resolve(artifactId).resolve(version)
                .resolve(artifactId + "-" + version + ".jar");
        return Files.isRegularFile(local) ? local : shipped;
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
