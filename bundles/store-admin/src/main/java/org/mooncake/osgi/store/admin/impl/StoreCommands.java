package org.mooncake.osgi.store.admin.impl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.apache.felix.service.command.Descriptor;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.TypeStats;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;

/**
 * The {@code store:*} shell commands. Each returns text for Gogo to print; errors surface as
 * the store's exception, which Gogo prints with its code.
 */
@Component(service = StoreCommands.class, property = {"osgi.command.scope=store",
        "osgi.command.function=put", "osgi.command.function=get", "osgi.command.function=remove",
        "osgi.command.function=stats", "osgi.command.function=segments", "osgi.command.function=policy",
        "osgi.command.function=query", "osgi.command.function=transfers"})
public final class StoreCommands {
    static final String MASTER_PID = "org.mooncake.osgi.store.master";
    /** Set by FileInstall on a configuration it read from a file, which it then keeps in step. */
    static final String FILE_INSTALL_FILENAME = "felix.fileinstall.filename";

    private final MasterService master;
    private final ConfigurationAdmin configAdmin;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<EvictionPolicy> policies = List.of();

    /** Absent in a master-only process; the commands that need it say so. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile StoreClient client;

    @Activate
    public StoreCommands(@Reference MasterService master, @Reference ConfigurationAdmin configAdmin) {
        this.master = master;
        this.configAdmin = configAdmin;
    }

    /** With a client bound from the start (tests, embedding). */
    StoreCommands(StoreClient client, MasterService master, ConfigurationAdmin configAdmin) {
        this(master, configAdmin);
        this.client = client;
    }

    private StoreClient client() {
        StoreClient c = client;
        if (c == null) {
            throw new StoreException(ErrorCode.UNAVAILABLE_IN_CURRENT_STATUS,
                    "no store client runs in this process: a master-only profile has none (use a client or storage "
                            + "process), elsewhere bundle org.mooncake.osgi.store.client is stopped or its component "
                            + "is not satisfied ('scr:list' says why)");
        }
        return c;
    }

    @Descriptor("store a UTF-8 string under a key")
    public String put(@Descriptor("key") String key, @Descriptor("value") String value) {
        client().put(key, value.getBytes(StandardCharsets.UTF_8), ReplicateConfig.DEFAULT);
        return "stored " + key + " (" + value.getBytes(StandardCharsets.UTF_8).length + " bytes)";
    }

    @Descriptor("store a UTF-8 string with a data type (name or code)")
    public String put(@Descriptor("key") String key, @Descriptor("value") String value,
            @Descriptor("data type, e.g. KVCACHE or 10") String type) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        client().put(key, bytes, ReplicateConfig.builder().dataType(ObjectDataType.parse(type)).build());
        return "stored " + key + " (" + bytes.length + " bytes, " + ObjectDataType.parse(type) + ")";
    }

    @Descriptor("read an object as UTF-8")
    public String get(@Descriptor("key") String key) {
        return new String(client().get(key), StandardCharsets.UTF_8);
    }

    @Descriptor("remove an object (refused while leased)")
    public String remove(@Descriptor("key") String key) {
        client().remove(key, false);
        return "removed " + key;
    }

    @Descriptor("remove an object; with force even while leased")
    public String remove(@Descriptor("key") String key, @Descriptor("force") boolean force) {
        client().remove(key, force);
        return "removed " + key;
    }

    @Descriptor("show one object's metadata (grants no lease)")
    public String query(@Descriptor("key") String key) {
        return master.queryKey(new ObjectKey(client().tenant(), key)).map(Object::toString).orElse("no object " + key);
    }

    @Descriptor("capacity, use, objects and eviction by data type")
    public String stats() {
        MasterStats s = master.stats();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "capacity %,d B  used %,d B (%.1f%%)  objects %,d  in-flight puts %d%n",
                s.capacityBytes(), s.usedBytes(), 100 * s.usedRatio(), s.objects(), s.processingPuts()));
        b.append(String.format(Locale.ROOT, "segments %d  clients %d  eviction rounds %d (last %.3f ms)  policy %s%n",
                s.segments(), s.clients(), s.evictionRounds(), s.lastEvictionRoundNanos() / 1e6, s.activePolicy()));
        for (var k : s.memoryKinds()) { // the watermark is over all of them together
            b.append(String.format(Locale.ROOT, "memory %-12s segments %d  capacity %,d B  used %,d B (%.1f%%)%n",
                    k.kind(), k.segments(), k.capacityBytes(), k.usedBytes(), 100 * k.usedRatio()));
        }
        b.append(String.format(Locale.ROOT, "%-16s %10s %14s %10s %10s %10s%n", "type", "objects", "bytes", "hits",
                "misses", "evictions"));
        for (TypeStats t : s.types()) {
            if (t.objects() + t.hits() + t.misses() + t.evictions() > 0) {
                b.append(String.format(Locale.ROOT, "%-16s %10d %14d %10d %10d %10d%n", t.dataType(), t.objects(),
                        t.bytes(), t.hits(), t.misses(), t.evictions()));
            }
        }
        return b.toString();
    }

    @Descriptor("what this process's client has moved, by transport protocol, since it started")
    public String transfers() {
        List<TransferStats> all = client().transferStats();
        if (all.isEmpty()) {
            return "no transfers yet";
        }
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-8s %10s %16s %8s %10s %16s %8s %10s%n",
                "protocol", "writes", "bytes written", "failed", "reads", "bytes read", "failed", "checksum"));
        for (TransferStats t : all) {
            b.append(String.format(Locale.ROOT, "%-8s %,10d %,16d %,8d %,10d %,16d %,8d %,10d%n", t.protocol(), t.writes(),
                    t.bytesWritten(), t.failedWrites(), t.reads(), t.bytesRead(), t.failedReads(), t.checksumMismatches()));
        }
        return b.toString().stripTrailing();
    }

    @Descriptor("list mounted segments: use, capacity, the memory they live in (HOST, CUDA_DEVICE), owner, endpoints")
    public String segments() {
        // endpoints with their addresses (a swapped transport's new port); a master older than 1.3 sends protocols only
        return master.segments().stream().map(s -> String.format(Locale.ROOT, "%-32s %,15d / %,15d B  %-11s  client %s  via %s",
                s.name(), s.usedBytes(), s.capacityBytes(), s.memoryKind(), s.clientId(),
                s.endpoints().isEmpty() ? s.protocol() : String.join(", ", s.endpoints())))
                .collect(Collectors.joining("\n"));
    }

    @Descriptor("show the active eviction policy, its settings, and the policies available")
    public String policy() {
        MasterStats s = master.stats();
        String settings = policies.stream().filter(p -> p.name().equals(s.activePolicy())).findFirst()
                .map(EvictionPolicy::describe).orElse(s.activePolicy());
        return "active: " + settings + "\navailable: " + String.join(", ", s.availablePolicies());
    }

    @Descriptor("make the named eviction policy active (\"\" for the highest-ranked)")
    public String policy(@Descriptor("policy name") String name) throws IOException {
        Configuration c = configAdmin.getConfiguration(MASTER_PID, "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        props.put("eviction.policy", name);
        c.update(props);
        String note = name.isEmpty() || master.stats().availablePolicies().contains(name) ? ""
                : " (not deployed yet: the highest-ranked policy plans until it is)";
        return "eviction policy set to " + (name.isEmpty() ? "<highest-ranked>" : name) + note + "; "
                + kept(props.get(FILE_INSTALL_FILENAME));
    }

    /**
     * How long a change made here lasts. The container clears its framework cache, ConfigAdmin's
     * store included, at every start; FileInstall writes a change back only to a configuration that
     * came from a file in etc/.
     */
    static String kept(Object file) {
        return file != null ? "saved in " + file
                : "until this process stops (to keep it, put eviction.policy in etc/" + MASTER_PID + ".cfg)";
    }
}
