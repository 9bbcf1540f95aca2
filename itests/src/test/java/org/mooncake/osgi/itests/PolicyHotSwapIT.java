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
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
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
 * The operator's hot swap while two threads keep putting and getting: deploy the type-aware
 * bundle, select policies by configuration, remove the bundle. No operation may fail.
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

    @Test
    public void policiesSwapUnderLoadWithZeroFailedOperations() throws Exception {
        configureMaster("");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
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
                        assertArrayEquals(v, client.get(key));
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
            Bundle typeAware = context.installBundle(ContainerOptions
                    .jar("org.mooncake.osgi", "policy-type-aware", System.getProperty("mooncake.version"))
                    .toUri().toString());
            typeAware.start();
            long deployNanos = awaitPolicyPlanning("type-aware");
            configureMaster("lease-lru");
            long configNanos = awaitPolicyPlanning("lease-lru");
            configureMaster("");
            awaitPolicyPlanning("type-aware");
            typeAware.uninstall();
            long removeNanos = awaitPolicyPlanning("lease-lru");
            System.out.printf("hot swap took effect: deploy %.2f ms, configure %.2f ms, remove %.2f ms; %d ops%n",
                    deployNanos / 1e6, configNanos / 1e6, removeNanos / 1e6, ops.get());
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
