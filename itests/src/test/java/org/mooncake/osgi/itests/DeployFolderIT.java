package org.mooncake.osgi.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;

/** The README's operator workflow, through the file system only: deploy/ for bundles, etc/ for configuration. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DeployFolderIT {
    private static final String RULE = "org.mooncake.osgi.policy.typeaware.TypeRuleConfiguration";

    @Inject
    private MasterService master;

    @Inject
    private BundleContext context;

    @Inject
    private ServiceComponentRuntime scr;

    @Inject
    private org.osgi.service.cm.ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] config() throws IOException {
        return ContainerOptions.features("runtime", "master", "client");
    }

    /** What the type-aware policy says it plans with. */
    private String typeAwareSettings() throws InvalidSyntaxException {
        var refs = context.getServiceReferences(EvictionPolicy.class, "(eviction.policy.name=type-aware)");
        if (refs.isEmpty()) {
            return "";
        }
        EvictionPolicy p = context.getService(refs.iterator().next());
        try {
            return p.describe();
        } finally {
            context.ungetService(refs.iterator().next());
        }
    }

    private boolean ruleRefused(String property) {
        return scr.getComponentDescriptionDTOs().stream().filter(d -> d.name.equals(RULE))
                .flatMap(d -> scr.getComponentConfigurationDTOs(d).stream())
                .anyMatch(c -> c.state == ComponentConfigurationDTO.FAILED_ACTIVATION && c.failure != null
                        && c.failure.contains(property));
    }

    /** deploy/, watched by a second FileInstall watcher configured the way the launcher configures it. */
    private Path watchedDeploy() throws Exception {
        Path deploy = Path.of(System.getProperty("mooncake.test.deploy"));
        java.util.Dictionary<String, Object> watcher = new java.util.Hashtable<>();
        watcher.put("felix.fileinstall.dir", deploy.toString());
        watcher.put("felix.fileinstall.poll", "100");
        watcher.put("felix.fileinstall.noInitialDelay", "true");
        configAdmin.getFactoryConfiguration("org.apache.felix.fileinstall", "deploy", "?").update(watcher);
        // FileInstall names each watcher thread after its folder: wait until deploy/ is watched
        Await.until("FileInstall watching deploy/", () -> Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().contains(deploy.getFileName().toString())));
        return deploy;
    }

    /** Drops a jar of ours into deploy/: copied beside it and moved in whole, FileInstall never sees half a jar. */
    private static Path drop(String artifact, Path deploy) throws IOException {
        Path jar = ContainerOptions.ourJar(artifact);
        Path dropped = deploy.resolve(jar.getFileName());
        Path staging = Files.createTempFile(deploy.getParent(), artifact, ".part");
        Files.copy(jar, staging, StandardCopyOption.REPLACE_EXISTING);
        Files.move(staging, dropped, StandardCopyOption.ATOMIC_MOVE);
        return dropped;
    }

    @Test
    public void aJarInDeployTakesOverEvictionAndRulesInEtcConfigureIt() throws Exception {
        Path etc = Path.of(System.getProperty("mooncake.test.etc"));
        Await.until("the default policy", () -> "lease-lru".equals(master.stats().activePolicy()));
        Path deploy = watchedDeploy();
        Path dropped = drop("policy-type-aware", deploy);
        Await.until("type-aware deployed and active", () -> "type-aware".equals(master.stats().activePolicy()));

        Files.writeString(etc.resolve("org.mooncake.osgi.policy.typeaware.rule-hidden.cfg"),
                "data.type=HIDDEN_STATE\nreuse.scale=8\neviction.grace.ms=10000\nbudget.ratio=0.12\n");
        Await.until("the hidden-state rule in force", () -> typeAwareSettings().contains("HIDDEN_STATE reuse_scale=8.0"));

        Files.writeString(etc.resolve("org.mooncake.osgi.policy.typeaware.rule-bad.cfg"),
                "data.type=KVCACHE\nreuse.scale=0\n");
        Await.until("the bad rule refused, naming reuse_scale", () -> ruleRefused("reuse_scale"));
        String settings = typeAwareSettings();
        assertTrue(settings, settings.contains("HIDDEN_STATE reuse_scale=8.0") && !settings.contains("KVCACHE"));
        assertTrue("the policy stays", "type-aware".equals(master.stats().activePolicy()));

        Files.delete(dropped);
        Await.until("fallback to the default", () -> "lease-lru".equals(master.stats().activePolicy()));
        Await.until("the bundle uninstalled", () -> Arrays.stream(context.getBundles()).noneMatch(
                b -> "org.mooncake.osgi.policy.type.aware".equals(b.getSymbolicName())));
    }

    /** The tcp endpoint the master gives readers of {@code key}; null while it names none. */
    private SegmentEndpoint tcpEndpointOf(String key) {
        return master.getReplicaList(ObjectKey.of(key)).replicas().getFirst().endpoints().stream()
                .filter(e -> e.protocol().equals("tcp")).findFirst().orElse(null);
    }

    /** README step 7 through the file system: a transport jar dropped into deploy/, then deleted; the object stays. */
    @Test
    public void aTransportJarInDeploySwapsTheTransportAndKeepsTheObjects() throws Exception {
        var ref = context.getServiceReference(StoreClient.class);
        StoreClient client = context.getService(ref);
        try {
            client.put("swapped-under", new byte[] {4, 2});
            Await.until("served over tcp", () -> tcpEndpointOf("swapped-under") != null);
            SegmentEndpoint before = tcpEndpointOf("swapped-under");
            Path dropped = drop("transport-tcp", watchedDeploy());
            Await.until("the dropped tcp serving under a new address", () -> {
                SegmentEndpoint now = tcpEndpointOf("swapped-under");
                return now != null && !now.equals(before);
            });
            assertArrayEquals(new byte[] {4, 2}, client.get("swapped-under"));
            Files.delete(dropped);
            Await.until("tcp gone with its jar", () -> tcpEndpointOf("swapped-under") == null);
            assertArrayEquals("the object stays, served in-process", new byte[] {4, 2}, client.get("swapped-under"));
        } finally {
            context.ungetService(ref);
        }
    }
}
