package org.mooncake.osgi.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.Version;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * A policy bundle updated in place ({@code Bundle.update}, what {@code update <id> <url>} does in
 * the shell) to a newer version of itself while two threads keep putting and getting. The master
 * holds its policies through a dynamic reference, so while the old revision stops and the new
 * one starts it plans with the next policy in rank (lease-lru) and takes the configured one back
 * when it returns: no operation fails, every acknowledged put reads back with its bytes, and the
 * policy in charge afterwards is the one the new version registered.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PolicyBundleUpdateIT {
    private static final String POLICY = "type-aware";
    private static final String ARTIFACT = "policy-type-aware";
    private static final String NEWER_JAR = "mooncake.test.newer.policy.jar";
    /** Objects each load thread puts before it only reads: about 4 MiB per thread, far below the watermark. */
    private static final int OBJECTS_PER_THREAD = 2_000;

    @Inject
    private StoreClient client;

    @Inject
    private MasterService master;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws Exception {
        Path newer = NewerBundle.of(ContainerOptions.ourJar(ARTIFACT), Files.createTempDirectory("mooncake-newer"));
        return Stream.concat(Arrays.stream(ContainerOptions.features("runtime", "master", "client")),
                Stream.of(systemProperty(NEWER_JAR).value(newer.toString()))).toArray(Option[]::new);
    }

    private void preferPolicy(String name) throws IOException {
        org.osgi.service.cm.Configuration c = configAdmin.getConfiguration("org.mooncake.osgi.store.master", "?");
        Dictionary<String, Object> p = new Hashtable<>();
        p.put("eviction.policy", name);
        c.update(p);
    }

    /** Whether the master plans with {@code name}, offered by {@code bundle} at {@code version}, and by nothing else under that name. */
    private boolean inCharge(String name, Bundle bundle, Version version) throws Exception {
        if (!name.equals(master.stats().activePolicy())
                || master.stats().availablePolicies().stream().filter(name::equals).count() != 1) {
            return false;
        }
        Collection<ServiceReference<EvictionPolicy>> refs =
                context.getServiceReferences(EvictionPolicy.class, "(" + EvictionPolicy.NAME_PROPERTY + "=" + name + ")");
        if (refs.size() != 1) {
            return false;
        }
        ServiceReference<EvictionPolicy> ref = refs.iterator().next();
        Bundle masterBundle = context.getServiceReference(MasterService.class).getBundle();
        Bundle[] users = ref.getUsingBundles();
        return ref.getBundle().equals(bundle) && bundle.getVersion().equals(version)
                && users != null && Arrays.asList(users).contains(masterBundle);
    }

    private static Version versionOf(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return Version.parseVersion(j.getManifest().getMainAttributes().getValue("Bundle-Version"));
        }
    }

    @Test
    public void policyBundleUpdatedToItsNewerVersionUnderLoadLosesNothing() throws Exception {
        preferPolicy(POLICY);
        Bundle policy = context.installBundle(ContainerOptions.ourJar(ARTIFACT).toUri().toString());
        policy.start();
        Version shipped = policy.getVersion();
        Await.until(POLICY + " " + shipped + " in charge", () -> inCharge(POLICY, policy, shipped));

        Path newerJar = Path.of(System.getProperty(NEWER_JAR));
        Version newer = versionOf(newerJar);
        assertTrue("the update is a newer version: " + newer + " over " + shipped, newer.compareTo(shipped) > 0);

        long roundsBefore = master.stats().evictionRounds();
        AcknowledgedLoad load = new AcknowledgedLoad(client, OBJECTS_PER_THREAD);
        load.start("update-load");
        long updateNanos;
        long opsDuringUpdate;
        try {
            load.progresses("before the update", 1_000);
            long start = System.nanoTime();
            long opsAtUpdate = load.operations();
            try (InputStream in = Files.newInputStream(newerJar)) {
                policy.update(in);
            }
            Await.until(POLICY + " " + newer + " in charge", () -> inCharge(POLICY, policy, newer));
            updateNanos = System.nanoTime() - start;
            opsDuringUpdate = load.operations() - opsAtUpdate;
            load.progresses("after the update", 1_000);
        } finally {
            load.stop();
        }
        load.noFailures();
        int checked = load.checkEveryAcknowledgedPut();

        assertEquals("no eviction round ran, so no object could go", roundsBefore, master.stats().evictionRounds());
        assertEquals("updated in place: the same bundle", Bundle.ACTIVE, policy.getState());
        assertEquals(newer, context.getBundle(policy.getBundleId()).getVersion());
        FrameworkWiring wiring = context.getBundle(0).adapt(FrameworkWiring.class);
        assertTrue("a policy bundle exports nothing: no old revision waits for a refresh",
                wiring.getRemovalPendingBundles().isEmpty());
        System.out.printf("%s %s -> %s in charge %.2f ms after update(), %d operations meanwhile; "
                + "%d operations in all, %d acknowledged puts read back%n",
                POLICY, shipped, newer, updateNanos / 1e6, opsDuringUpdate, load.operations(), checked);
    }
}
