package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.function.Supplier;

import org.mooncake.osgi.benchmarks.faults.Cluster.Node;

/**
 * A storage node's tcp transport restarted mid-load, the way an operator swaps a transport: a
 * copy of the transport's jar written into the node's {@code deploy/}. FileInstall (polling every
 * 250 ms) takes over the bundle the node runs, or, once it has, sees the newer file, and updates
 * it: the transport stops (the node's segment stays, reached over what is left) and starts again
 * on a new port, which the node tells the master. The swap is done when the master lists the
 * segment's new tcp endpoint.
 */
final class TransportSwap {
    static final String JAR_PREFIX = "transport-tcp-";

    private final Cluster cluster;
    private final Node node;
    private final Supplier<String> endpoint;
    private String before;

    /** @param endpoint the tcp endpoint the master lists for the node's segment now (null: none, or no answer) */
    TransportSwap(Cluster cluster, Node node, Supplier<String> endpoint) {
        this.cluster = cluster;
        this.node = node;
        this.endpoint = endpoint;
    }

    /** Writes the jar into deploy/ in one move, with a new time (what FileInstall tells a change by). */
    void start() throws IOException {
        before = endpoint.get();
        if (before == null) {
            throw new IllegalStateException("the master lists no tcp endpoint for " + node.name());
        }
        Path jar = jar(cluster.distribution());
        Path staged = node.home.resolve(jar.getFileName() + ".staged"); // outside deploy/: never seen half-written
        Files.copy(jar, staged, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(staged, FileTime.fromMillis(System.currentTimeMillis()));
        Files.move(staged, node.deploy().resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits until the master lists another tcp endpoint for the node than before; when it first did. */
    long awaitServing(long waitNanos) {
        long deadline = System.nanoTime() + waitNanos;
        while (System.nanoTime() < deadline) {
            String now = endpoint.get();
            if (now != null && !now.equals(before)) {
                return System.nanoTime();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException(node.name() + "'s tcp transport did not serve again on a new port within "
                + waitNanos / 1_000_000_000 + " s (still " + endpoint.get() + "): " + cluster.tail(node.name()));
    }

    /** Removes a swapped-in jar from {@code n}'s deploy/, so that it starts again with the distribution's. */
    static void undeploy(Node n) throws IOException {
        try (var jars = Files.list(n.deploy())) {
            for (Path p : jars.filter(p -> p.getFileName().toString().startsWith(JAR_PREFIX)).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The tcp transport's jar in the distribution's system/ folder. */
    static Path jar(Path distribution) throws IOException {
        Path dir = distribution.resolve("system/org/mooncake/osgi/transport-tcp");
        try (var files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(JAR_PREFIX)
                    && p.getFileName().toString().endsWith(".jar")).findFirst()
                    .orElseThrow(() -> new IOException("no transport-tcp jar under " + dir));
        }
    }
}
