package org.mooncake.osgi.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration.ConfigurationAttribute;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The operator's hot swap while two threads keep putting and getting: deploy the policy bundles,
 * switch among all four by configuration (and reconfigure the hierarchical tree), remove a
 * bundle. No operation may fail; the time each switch takes to reach a planned round is printed.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PolicyHotSwapIT {
    private static final String MASTER_PID = "org.mooncake.osgi.store.master";

    @Inject
    private StoreClient client;

    @Inject
    private MasterService master;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        return ContainerOptions.features("runtime", "master", "client");
    }

    private void configureMaster(String policy) throws IOException {
        org.osgi.service.cm.Configuration c = configAdmin.getConfiguration(MASTER_PID, "?");
        Dictionary<String, Object> p = new Hashtable<>();
        // evict continuously with short leases, so rounds run throughout the swap
        p.put("eviction.high.watermark.ratio", 0.10);
        p.put("eviction.ratio", 0.02);
        p.put("kv.lease.ttl.ms", 50L);
        p.put("eviction.policy", policy);
        c.update(p);
        assertTrue(c.getAttributes().isEmpty() || !c.getAttributes().contains(ConfigurationAttribute.READ_ONLY));
    }

    private long awaitPolicyPlanning(String name) throws Exception {
        long start = System.nanoTime();
        Await.until("policy " + name + " active", () -> name.equals(master.stats().activePolicy()));
        long tookNanos = System.nanoTime() - start;
        long rounds = master.stats().evictionRounds();
        Await.until("a round planned by " + name, () -> master.stats().evictionRounds() > rounds);
        return tookNanos;
    }

    private Bundle install(String artifact) throws Exception {
        Bundle b = context.installBundle(ContainerOptions.ourJar(artifact).toUri().toString());
        b.start();
        return b;
    }

    /** Tenant and type scopes, a hidden-state quota, cost-aware leaves: a reconfiguration in place. */
    private void configureHierarchical() throws IOException {
        org.osgi.service.cm.Configuration c = configAdmin.getConfiguration("org.mooncake.osgi.policy.hierarchical", "?");
        Dictionary<String, Object> p = new Hashtable<>();
        p.put("levels", new String[] {"tenant", "type"});
        p.put("ranking", "cost-aware");
        p.put("quotas", new String[] {"tenant=*/type=HIDDEN_STATE=0.3"});
        c.update(p);
    }

    @Test
    public void policiesSwapUnderLoadWithZeroFailedOperations() throws Exception {
        configureMaster("");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicLong misses = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            int id = w;
            workers.add(Thread.ofPlatform().name("load-" + w).start(() -> {
                ReplicateConfig cfg = ReplicateConfig.builder()
                        .dataType(id == 0 ? ObjectDataType.KVCACHE : ObjectDataType.HIDDEN_STATE).build();
                for (long i = 0; running.get(); i++) {
                    try {
                        byte[] v = StoreInContainerIT.payload((int) i, 16 * 1024);
                        String key = "w" + id + "-" + i;
                        client.put(key, v, cfg);
                        try {
                            assertArrayEquals(v, client.get(key));
                        } catch (StoreException e) {
                            // Put-end sets the lease to the write time (as upstream), so with rounds
                            // running all the time any policy may evict a write before its first
                            // read: a miss, not a failure. Anything else, or wrong bytes, is.
                            if (e.errorCode() != ErrorCode.OBJECT_NOT_FOUND) {
                                throw e;
                            }
                            misses.incrementAndGet();
                        }
                        ops.addAndGet(2);
                    } catch (Throwable t) {
                        failures.add(t);
                        return;
                    }
                }
            }));
        }
        try {
            awaitPolicyPlanning("lease-lru");
            Bundle typeAware = install("policy-type-aware");
            long deployNanos = awaitPolicyPlanning("type-aware");
            install("policy-cost-aware");
            install("policy-hierarchical");
            StringBuilder took = new StringBuilder(String.format("deploy type-aware %.2f ms", deployNanos / 1e6));
            for (String policy : List.of("cost-aware", "hierarchical", "lease-lru", "type-aware", "cost-aware")) {
                configureMaster(policy);
                took.append(String.format(", %s %.2f ms", policy, awaitPolicyPlanning(policy) / 1e6));
            }
            configureHierarchical();
            configureMaster("hierarchical");
            took.append(String.format(", hierarchical with cost-aware leaves %.2f ms", awaitPolicyPlanning("hierarchical") / 1e6));
            configureMaster("");
            awaitPolicyPlanning("type-aware");
            typeAware.uninstall();
            // With type-aware gone the highest-ranked left is cost-aware (5), over hierarchical (1) and lease-lru (0).
            took.append(String.format(", remove type-aware %.2f ms", awaitPolicyPlanning("cost-aware") / 1e6));
            System.out.printf("hot swap took effect: %s; %d ops, %d gets missed an evicted fresh write%n", took, ops.get(),
                    misses.get());
        } finally {
            running.set(false);
            for (Thread t : workers) {
                t.join();
            }
        }
        assertEquals("failed operations: " + failures, 0, failures.size());
        assertTrue("load ran throughout", ops.get() > 0);
    }
}
