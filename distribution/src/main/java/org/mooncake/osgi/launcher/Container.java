package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.ServiceLoader;
import java.util.function.Predicate;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.service.feature.ID;

/**
 * A Felix framework laid out under a home directory: bundles from {@code system/}, FileInstall
 * watching {@code etc/} (configurations) and {@code deploy/} (bundles), its cache in
 * {@code runtime/<instance>/}. Starting fails loudly if any bundle does not resolve, and, where
 * the profile asks for an HTTP port, if nothing serves on it.
 */
public final class Container {
    private static final String CONFIG_ADMIN = "org.apache.felix.configadmin";

    private final Path home;
    private final Framework framework;
    /** Held while the container runs, so that a second process cannot share its cache. */
    private final FileChannel instanceLock;
    /** Where this process serves HTTP (the http feature); empty without it. */
    private volatile List<String> httpEndpoints = List.of();

    private Container(Path home, Framework framework, FileChannel instanceLock) {
        this.home = home;
        this.framework = framework;
        this.instanceLock = instanceLock;
    }

    /**
     * Locks {@code runtime/<instance>/lock} for this process. Two processes on one instance would
     * share one framework cache and one set of ConfigAdmin files, and corrupt both.
     */
    static FileChannel lockInstance(Path own, String instance) throws IOException {
        Files.createDirectories(own);
        FileChannel channel = FileChannel.open(own.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException inThisProcess) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new IOException("instance " + instance + " is already running from this home (" + own.resolve("lock")
                    + " is held); give this process another --instance NAME");
        }
        return channel;
    }

    /**
     * Boots a profile as instance {@code instance}: its cache lives in {@code runtime/<instance>/},
     * so several processes can share one home. FileInstall watches {@code etc/} (the operator's
     * configurations) and {@code deploy/} (bundles); the configurations of the profile's features
     * go straight to ConfigurationAdmin at every start. Framework properties: the launcher's
     * defaults, then the profile's ({@link LaunchPlan}) and {@code extraProps}, each overriding the
     * one before. Bundles start after ConfigurationAdmin in the features' start order ({@link StartOrder}).
     */
    public static Container start(Path home, String instance, Profile profile, Map<String, String> vars,
            Map<String, String> extraProps) throws IOException, BundleException {
        return start(home, instance, profile.resolve(vars), extraProps);
    }

    /** Boots a profile already read with its variables ({@link Profile#resolve}), as {@link #start(Path, String, Profile, Map, Map)}. */
    static Container start(Path home, String instance, LaunchPlan plan, Map<String, String> extraProps)
            throws IOException, BundleException {
        Path etc = home.resolve("etc");
        Path deploy = home.resolve("deploy");
        Path own = home.resolve("runtime").resolve(instance);
        Files.createDirectories(etc);
        Files.createDirectories(deploy);
        Map<String, String> asked = new HashMap<>(plan.frameworkProperties());
        asked.putAll(extraProps);
        OptionalInt httpPort = HttpEndpoint.requestedPort(asked);
        if (httpPort.isPresent()) {
            HttpEndpoint.checkFree(asked, httpPort.getAsInt());
        }
        FileChannel lock = lockInstance(own, instance);
        Map<String, String> props = defaults(home, own, instance);
        props.putAll(asked);

        Framework fw;
        try {
            FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no OSGi framework on the class path"));
            fw = factory.newFramework(props);
            fw.init();
        } catch (BundleException | RuntimeException e) {
            lock.close();
            throw e;
        }
        Container c = new Container(home, fw, lock);
        try {
            Map<String, Bundle> bundles = c.install(plan.bundles().values());
            fw.start();
            // ConfigurationAdmin first, so that every component starts with its profile's settings
            startAll(bundles.values(), b -> CONFIG_ADMIN.equals(b.getSymbolicName()));
            Configurations cm = Configurations.await(fw.getBundleContext(), 30_000);
            for (var pid : plan.configurations().entrySet()) {
                cm.set(pid.getKey(), pid.getValue());
            }
            for (List<String> group : StartOrder.groups(bundles.keySet(), plan.startOrder())) {
                startAll(group.stream().map(bundles::get).toList(), b -> true);
            }
            List<String> failed = FailedComponents.of(fw.getBundleContext(), plan.configurations().keySet());
            if (!failed.isEmpty()) {
                throw new BundleException("components the profile configured could not start:\n  "
                        + String.join("\n  ", failed));
            }
            c.httpEndpoints = List.copyOf(httpPort.isPresent()
                    ? HttpEndpoint.await(fw.getBundleContext(), httpPort.getAsInt(), 10_000)
                    : HttpEndpoint.of(fw.getBundleContext()));
            // FileInstall takes one folder per watcher: the framework property names etc/, this adds deploy/
            cm.setFactory("org.apache.felix.fileinstall", "deploy", Map.of("felix.fileinstall.dir",
                    deploy.toAbsolutePath().toString(), "felix.fileinstall.poll", "250",
                    "felix.fileinstall.noInitialDelay", "true"));
        } catch (IOException | BundleException | RuntimeException e) {
            c.stop();
            throw e;
        }
        return c;
    }

    /** The launcher's own framework properties: the cache under {@code own}, FileInstall on etc/. */
    private static Map<String, String> defaults(Path home, Path own, String instance) {
        Map<String, String> props = new HashMap<>();
        props.put(Constants.FRAMEWORK_STORAGE, own.resolve("cache").toString());
        props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        props.put("felix.fileinstall.dir", home.resolve("etc").toAbsolutePath().toString());
        props.put("felix.fileinstall.poll", "250");
        props.put("felix.fileinstall.noInitialDelay", "true");
        props.put("felix.fileinstall.log.level", "2");
        // The Log Service's history, which the admin bundle replays once it starts: the framework's
        // own events fill 80 entries by the end of an all-policies start-up, close to the default
        // 100, beyond which an error logged before the admin bundle was there would be pushed out
        props.put("org.apache.felix.log.maxSize", "5000");
        props.put("mooncake.home", home.toAbsolutePath().toString());
        props.put("mooncake.instance", instance);
        return props;
    }

    /** Installs the bundles, keyed by their ids, in the order given. */
    private Map<String, Bundle> install(Collection<ID> bundleIds) throws IOException, BundleException {
        BundleContext ctx = framework.getBundleContext();
        Path system = home.resolve("system");
        Map<String, Bundle> installed = new LinkedHashMap<>();
        for (ID id : bundleIds) {
            Path jar = SystemRepository.jar(system, id);
            if (!Files.isRegularFile(jar)) {
                throw new IOException("bundle " + id + " is missing: " + jar);
            }
            installed.put(id.toString(), ctx.installBundle(jar.toUri().toString()));
        }
        return installed;
    }

    /** Starts the chosen bundles (fragments excepted), in order; any that cannot start fail the whole. */
    private static void startAll(Collection<Bundle> bundles, Predicate<Bundle> which) throws BundleException {
        List<String> unresolved = new ArrayList<>();
        for (Bundle b : bundles) {
            if (!which.test(b) || (b.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0) {
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

    /**
     * The URLs this process serves HTTP on, with the port Felix picked where the profile asked for
     * 0 (what {@code bin/mooncake} prints); empty for a profile without an HTTP port.
     */
    public List<String> httpEndpoints() {
        return httpEndpoints;
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
        } finally {
            try {
                instanceLock.close(); // releases the lock
            } catch (IOException e) {
                System.err.println("mooncake: could not release " + e.getMessage());
            }
        }
    }
}
