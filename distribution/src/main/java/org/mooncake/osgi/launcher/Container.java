package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.wiring.BundleRevision;

/**
 * A Felix framework laid out under a home directory: bundles from {@code system/}, FileInstall
 * watching {@code etc/} (configurations) and {@code deploy/} (bundles), its cache and profile
 * configuration in {@code runtime/<instance>/}. Starting fails loudly if any bundle does not resolve.
 */
public final class Container {
    private final Path home;
    private final Framework framework;

    private Container(Path home, Framework framework) {
        this.home = home;
        this.framework = framework;
    }

    /**
     * Boots a profile as instance {@code instance}: its cache and its own configuration folder live
     * in {@code runtime/<instance>/}, so several processes can share one home. FileInstall watches
     * that folder (the profile's configurations, written at every start), {@code etc/} (the
     * operator's) and {@code deploy/} (bundles). Extra framework properties override the defaults.
     */
    public static Container start(Path home, String instance, Profile profile, Map<String, String> vars,
            Map<String, String> extraProps) throws IOException, BundleException {
        Path etc = home.resolve("etc");
        Path deploy = home.resolve("deploy");
        Path own = home.resolve("runtime").resolve(instance);
        Path ownEtc = own.resolve("etc");
        Files.createDirectories(etc);
        Files.createDirectories(deploy);
        Files.createDirectories(ownEtc);
        try (var old = Files.list(ownEtc)) {
            for (Path p : (Iterable<Path>) old::iterator) {
                Files.delete(p);
            }
        }
        // FileInstall takes one folder per watcher: the instance's folder is the first, these make the others.
        watch(ownEtc, "etc", etc);
        watch(ownEtc, "deploy", deploy);
        for (var pid : profile.resolve(vars).entrySet()) {
            StringBuilder cfg = new StringBuilder("# profile " + profile.name() + ", written by the launcher at start\n");
            pid.getValue().forEach((k, v) -> cfg.append(k).append('=').append(v).append('\n'));
            Files.writeString(ownEtc.resolve(pid.getKey() + ".cfg"), cfg);
        }
        Map<String, String> props = new HashMap<>();
        props.put(Constants.FRAMEWORK_STORAGE, own.resolve("cache").toString());
        props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        props.put("felix.fileinstall.dir", ownEtc.toAbsolutePath().toString());
        props.put("felix.fileinstall.poll", "250");
        props.put("felix.fileinstall.noInitialDelay", "true");
        props.put("felix.fileinstall.log.level", "2");
        props.put("mooncake.home", home.toAbsolutePath().toString());
        props.put("mooncake.instance", instance);
        props.putAll(extraProps);

        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new IllegalStateException("no OSGi framework on the class path"));
        Framework fw = factory.newFramework(props);
        fw.init();
        Container c = new Container(home, fw);
        try {
            c.install(new FeatureReader(home.resolve("features")).bundlesOf(profile.features()));
            fw.start();
        } catch (IOException | BundleException | RuntimeException e) {
            c.stop();
            throw e;
        }
        return c;
    }

    private static void watch(Path ownEtc, String name, Path folder) throws IOException {
        Files.writeString(ownEtc.resolve("org.apache.felix.fileinstall-" + name + ".cfg"),
                "# written by the launcher at every start\nfelix.fileinstall.dir=" + folder.toAbsolutePath()
                        + "\nfelix.fileinstall.poll=250\nfelix.fileinstall.noInitialDelay=true\n");
    }

    private void install(Set<String> bundleIds) throws IOException, BundleException {
        BundleContext ctx = framework.getBundleContext();
        Path system = home.resolve("system");
        List<Bundle> installed = new ArrayList<>();
        for (String id : bundleIds) {
            Path jar = Feature.bundlePath(system, id);
            if (!Files.isRegularFile(jar)) {
                throw new IOException("bundle " + id + " is missing: " + jar);
            }
            installed.add(ctx.installBundle(jar.toUri().toString()));
        }
        List<String> unresolved = new ArrayList<>();
        for (Bundle b : installed) {
            if ((b.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0) {
                continue;
            }
            try {
                b.start();
            } catch (BundleException e) {
                unresolved.add(b.getSymbolicName() + ": " + e.getMessage());
            }
        }
        if (!unresolved.isEmpty()) {
            throw new BundleException("bundles failed to start:\n  " + String.join("\n  ", unresolved));
        }
    }

    public BundleContext context() {
        return framework.getBundleContext();
    }

    public Path home() {
        return home;
    }

    /** Blocks until the framework stops (the shell's {@code stop 0}, a signal, or {@link #stop}). */
    public void awaitStop() throws InterruptedException {
        framework.waitForStop(0);
    }

    public void stop() {
        try {
            framework.stop();
            framework.waitForStop(30_000);
        } catch (BundleException | InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
