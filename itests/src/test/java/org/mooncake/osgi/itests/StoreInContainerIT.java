package org.mooncake.osgi.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.memory.Checksums;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.service.cm.ConfigurationAdmin;

/** The all-in-one bundle set, driven through its services only. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StoreInContainerIT {
    private static final int OBJECTS = 10_000;
    private static final int SIZE = 64 * 1024;

    @Inject
    private StoreClient client;

    @Inject
    private MasterService master;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] config() throws IOException {
        return ContainerOptions.features("runtime", "master", "client");
    }

    /**
     * The copy kernel ships inside the store-memory bundle: in Felix it loads from the bundle's own
     * resources where the build made it (the itests pom says so) and the CPU has the instructions.
     */
    @Test
    public void theCopyKernelLoadsFromItsBundleWhereItWasBuilt() throws Exception {
        Path info = Path.of("/proc/cpuinfo");
        String flags = Files.isReadable(info) ? Files.readAllLines(info).stream().filter(l -> l.startsWith("flags"))
                .findFirst().orElse("") + " " : "";
        boolean cpu = Arrays.stream(new String[] {"sse4_2", "pclmulqdq", "avx512f", "avx512vl", "vpclmulqdq"})
                .allMatch(f -> flags.contains(" " + f + " "));
        boolean expected = Boolean.getBoolean("mooncake.copy.native.built") && cpu;
        assertEquals(Checksums.copyPath(), expected, Checksums.copiesInOnePass());
    }

    static byte[] payload(int i, int size) {
        byte[] b = new byte[size];
        Arrays.fill(b, (byte) (i * 31 + 7));
        b[0] = (byte) i;
        b[1] = (byte) (i >> 8);
        return b;
    }

    @Test
    public void tenThousandObjectsSurviveSeveralEvictionRoundsIntactOrNotAtAll() throws Exception {
        // Reads lease objects for kv.lease.ttl.ms and leased objects are never evicted: with the
        // default 10 s this loop would fill the store with leased objects, so leases are short here.
        Dictionary<String, Object> p = new Hashtable<>();
        p.put("kv.lease.ttl.ms", 100L);
        configAdmin.getConfiguration("org.mooncake.osgi.store.master", "?").update(p);
        Await.until("short leases", () -> {
            client.put("probe", new byte[1], ReplicateConfig.DEFAULT);
            long lease = master.getReplicaList(new ObjectKey(client.tenant(), "probe")).leaseExpiresAtMs();
            client.remove("probe", true);
            return lease - System.currentTimeMillis() <= 100;
        });
        ReplicateConfig kv = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
        int retried = 0;
        for (int i = 0; i < OBJECTS; i++) {
            byte[] value = payload(i, SIZE);
            try {
                client.put("obj-" + i, value, kv);
            } catch (StoreException e) {
                assertEquals(e.getMessage(), ErrorCode.NO_AVAILABLE_HANDLE, e.errorCode());
                // upstream semantics: the put fails at once and the master evicts; the caller retries
                String key = "obj-" + i;
                Await.until("space after eviction", () -> {
                    try {
                        client.put(key, value, kv);
                        return true;
                    } catch (StoreException again) {
                        assertEquals(ErrorCode.NO_AVAILABLE_HANDLE, again.errorCode());
                        return false;
                    }
                });
                retried++;
            }
            assertArrayEquals(value, client.get("obj-" + i));
        }
        // the service in the container counts what its transport moved
        TransferStats local = client.transferStats().stream().filter(t -> t.protocol().equals("local")).findFirst()
                .orElseThrow();
        assertTrue(local.toString(), local.writes() >= OBJECTS && local.reads() >= OBJECTS
                && local.bytesWritten() >= (long) OBJECTS * SIZE);
        assertEquals(local.toString(), 0, local.failedWrites() + local.failedReads() + local.checksumMismatches());
        MasterStats s = master.stats();
        long evicted = s.types().stream().mapToLong(t -> t.evictions()).sum();
        assertTrue("several eviction rounds: " + s.evictionRounds(), s.evictionRounds() >= 2);
        assertTrue("objects were evicted", evicted > 0);
        assertEquals(OBJECTS - evicted, s.objects());
        int readable = 0;
        for (int i = 0; i < OBJECTS; i++) {
            try {
                assertArrayEquals(payload(i, SIZE), client.get("obj-" + i));
                readable++;
            } catch (StoreException e) {
                assertEquals(ErrorCode.OBJECT_NOT_FOUND, e.errorCode());
            }
        }
        // eviction goes on while we read, so the count can only have fallen meanwhile
        long after = master.stats().objects();
        assertTrue(after + " <= " + readable + " <= " + s.objects(), after <= readable && readable <= s.objects());
        System.out.printf("10k objects: %d eviction rounds, %d evicted, %d readable, %d puts retried after -200%n",
                s.evictionRounds(), evicted, readable, retried);
    }
}
