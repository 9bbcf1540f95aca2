package org.mooncake.osgi.benchmarks.faults;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.mooncake.osgi.benchmarks.BenchArgs;

/** What the fault suite can do to a running cluster. */
public enum FaultKind {
    /** kill -9 of a storage node (its segment's bytes die with it), then a restart. */
    STORAGE_KILL("storage-kill", true, true),
    /** kill -9 of a client process while one of its puts is in flight, then a new client. */
    CLIENT_KILL_PUT("client-kill-put", true, false),
    /** kill -9 of a client process while one of its gets is in flight, then a new client. */
    CLIENT_KILL_GET("client-kill-get", true, false),
    /** kill -9 of the master and a restart on its port: every object is forgotten, nodes mount again. */
    MASTER_RESTART("master-restart", false, true),
    /** SIGSTOP of a storage node for 0.5-3 s, then SIGCONT: a peer that stops reading its sockets. */
    STORAGE_STALL("storage-stall", true, true),
    /** An eviction policy bundle dropped into the master's deploy/ and taken out again mid-load. */
    POLICY_SWAP("policy-swap", false, false),
    /** The clock of a client (under faketime) jumps by minutes forwards or backwards, and back. */
    CLOCK_JUMP("clock-jump", true, false),
    /**
     * The small tmpfs that holds the shm storage node's segment file fills up (another file takes
     * every free byte) for a while under load, and is freed again.
     */
    FULL_SHM_TMPFS("full-shm-tmpfs", true, false),
    /**
     * A storage node's tcp transport restarts under load: a copy of its jar written into the
     * node's deploy/ makes FileInstall update the bundle, which serves the same segment on a new port.
     */
    TRANSPORT_SWAP("transport-swap", true, true);

    private final String id;
    private final boolean cheap;
    private final boolean needsEveryNode;

    FaultKind(String id, boolean cheap, boolean needsEveryNode) {
        this.id = id;
        this.cheap = cheap;
        this.needsEveryNode = needsEveryNode;
    }

    public String id() {
        return id;
    }

    /** Done in about a second on a small machine (no container restart): what the CI run uses. */
    public boolean cheap() {
        return cheap;
    }

    /**
     * Whether it picks a storage node or counts them, so that a node still restarting after an
     * earlier kill must be back first; the others run while it starts.
     */
    public boolean needsEveryNode() {
        return needsEveryNode;
    }

    public static String ids() {
        return Arrays.stream(values()).map(FaultKind::id).collect(Collectors.joining(","));
    }

    /** A comma-separated list of kinds by id; refuses an unknown one with the list of known ones. */
    public static List<FaultKind> parse(String option, String value) {
        return Arrays.stream(value.split(",")).map(String::strip).map(s -> Arrays.stream(values())
                .filter(k -> k.id.equals(s)).findFirst()
                .orElseThrow(() -> new BenchArgs.Mistake(option + ": unknown fault kind '" + s + "' (known: " + ids() + ")")))
                .distinct().toList();
    }
}
