package org.mooncake.osgi.itests;

import static org.ops4j.pax.exam.CoreOptions.bootDelegationPackages;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.ops4j.pax.exam.Option;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A container with the web console: the master, the embedded client and every policy, Felix HTTP
 * (the http feature) on a free port, and the console feature's bundles. Those come from system/,
 * or from the local repository where the distribution was assembled before they were added to it.
 * Selenium stays in the test's JVM: the probe reaches it by boot delegation from the class loader
 * that loaded the framework.
 */
final class ConsoleContainer {
    static final String HTTP_PORT = "org.osgi.service.http.port";
    static final String HTTP_HOST = "org.apache.felix.http.host";

    private ConsoleContainer() {
    }

    static Option[] options(String host) throws IOException {
        List<Option> options = new ArrayList<>(List.of(ContainerOptions.features("runtime", "master", "client", "http",
                "policies")));
        for (String id : consoleBundles()) {
            options.add(bundle(bundleJar(id).toUri().toString()));
        }
        options.add(frameworkProperty(HTTP_PORT).value(Integer.toString(freePort())));
        options.add(frameworkProperty(HTTP_HOST).value(host));
        // as the http feature's framework properties: CXF's own /cxf servlet stays off
        options.add(frameworkProperty("org.apache.cxf.osgi.http.transport.disable").value("true"));
        options.add(bootDelegationPackages("org.openqa.selenium", "org.openqa.selenium.*"));
        options.add(frameworkProperty("org.osgi.framework.bundle.parent").value("framework"));
        return options.toArray(Option[]::new);
    }

    /** The bundles of features/console.json, in order. */
    static List<String> consoleBundles() throws IOException {
        Path shipped = ContainerOptions.home().resolve("features/console.json");
        Path feature = Files.isRegularFile(shipped) ? shipped
                : Path.of(System.getProperty("basedir", "."), "..", "features", "console.json");
        List<String> ids = new ArrayList<>();
        new ObjectMapper().readTree(feature.toFile()).get("bundles").forEach(b -> ids.add(b.get("id").asText()));
        return ids;
    }

    private static Path bundleJar(String id) throws IOException {
        String[] gav = id.split(":");
        Path shipped = ContainerOptions.jar(gav[0], gav[1], gav[2]);
        if (Files.isRegularFile(shipped)) {
            return shipped;
        }
        String repo = System.getProperty("org.ops4j.pax.url.mvn.localRepository", "");
        Path local = (repo.isBlank() ? Path.of(System.getProperty("user.home"), ".m2", "repository") : Path.of(repo))
                .resolve(gav[0].replace('.', '/')).resolve(gav[1]).resolve(gav[2]).resolve(gav[1] + "-" + gav[2] + ".jar");
        if (!Files.isRegularFile(local)) {
            throw new IOException("console bundle " + id + " is neither at " + shipped + " nor at " + local
                    + "; build store-console (mvn install -pl bundles/store-console) or the distribution first");
        }
        return local;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
