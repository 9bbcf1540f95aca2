package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;

/**
 * UCX's own figure for a transport, the peer of the store's ucx rows: {@code ucx_perftest}
 * (Debian's ucx-utils) measuring UCP put bandwidth between two processes on loopback, one
 * server and one client, with {@code UCX_TLS} naming the transports UCX may use. Rows
 * {@code ucx_perftest-posix} ({@code UCX_TLS=posix,self}) and {@code ucx_perftest-tcp}
 * ({@code UCX_TLS=tcp}), operation {@code put_bw}, one per size and round.
 *
 * <p>The server is started first on a free port; the client is started until it connects (it
 * ends at once with "Connection refused" while the server is not listening yet), for at most
 * {@link #CONNECT_WAIT}. Both run under a time limit: a server that never answers ends the row
 * with a failure, not the run. The client's final line gives the bandwidth; UCX's "MB/s" are
 * MiB/s (1 MiB in 26.97 µs printed as 37,082 MB/s).
 */
final class UcxPerftest {
    /** The server's command line, as run: SIZE, ITERS, WARMUP and PORT are filled in. */
    static final String SERVER = "ucx_perftest -t ucp_put_bw -s SIZE -n ITERS -w WARMUP -p PORT -f";
    /** The client's command line, as run. */
    static final String CLIENT = "ucx_perftest 127.0.0.1 -t ucp_put_bw -s SIZE -n ITERS -w WARMUP -p PORT -f";
    /** {@code UCX_TLS} of the row that is ucx over shared memory's peer. */
    static final String TLS_POSIX = "posix,self";
    /** {@code UCX_TLS} of the row that is ucx over TCP's peer. */
    static final String TLS_TCP = "tcp";
    /** The operation its rows carry: UCP put bandwidth. */
    static final String OP = "put_bw";
    /** How long the client is retried while the server does not listen yet. */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(10);

    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private UcxPerftest() {
    }

    /** The registry's entry: {@code name}, with {@code UCX_TLS=tls}, through {@code program} (normally "ucx_perftest"). */
    static TransferSystem system(String name, String tls, String program) {
        return system(name, tls, program, null);
    }

    /** As {@link #system(String, String, String)}, each measurement limited to {@code limit} (null: {@link #limit}). */
    static TransferSystem system(String name, String tls, String program, Duration limit) {
        return new TransferSystem(name, "ucx_perftest's UCP put bandwidth, UCX_TLS=" + tls + " (server and client on loopback)",
                List.of("UCX_TLS=" + tls + " " + SERVER + "   (server)",
                        "UCX_TLS=" + tls + " " + CLIENT + "   (client; ITERS = the size's operations, at least 3; "
                                + "WARMUP = ITERS / 2)"),
                () -> Processes.which(program).isPresent() ? Optional.empty()
                        : Optional.of(program + " not installed (apt-get install ucx-utils)"),
                true, rig -> {
                    Path exe = Processes.which(program)
                            .orElseThrow(() -> new TransferSystem.Unavailable(program + " not installed"));
                    return size -> {
                        int iters = iterations(rig, size);
                        int warmUp = Math.max(1, iters / 2);
                        return List.of(measure(name, exe, tls, size, iters, warmUp,
                                limit != null ? limit : limit(size, iters + warmUp)));
                    };
                });
    }

    /**
     * As many as the store rows get for the size (at least 3): UCX_TLS=tcp put a 206 MB object in
     * about 10 s on the 2-vCPU VM (19 MiB/s), so more would cost minutes a round.
     */
    static int iterations(TransferSystem.Rig rig, long size) {
        return Math.max(3, rig.ops(size));
    }

    /**
     * A generous bound for {@code iterations} of {@code size}: a minute, plus the bytes at 5 MiB/s
     * (UCX_TLS=tcp put 19–190 MiB/s from 1 MiB on the 2-vCPU VM, its two processes polling on
     * two cores).
     */
    static Duration limit(long size, long iterations) {
        return Duration.ofSeconds(60).plusMillis(size * iterations * 1000 / (5L << 20));
    }

    /** {@code template} as the argument list to run: {@code program} first, the capitals filled in. */
    static List<String> command(String template, Path program, long size, int iters, int warmUp, int port) {
        List<String> out = new ArrayList<>();
        for (String word : template.split(" ")) {
            out.add(switch (word) {
                case "ucx_perftest" -> program.toString();
                case "SIZE" -> Long.toString(size);
                case "ITERS" -> Integer.toString(iters);
                case "WARMUP" -> Integer.toString(warmUp);
                case "PORT" -> Integer.toString(port);
                default -> word;
            });
        }
        return out;
    }

    /** One measurement: a server and a client, {@code UCX_TLS=tls}, all of it within {@code limit}. */
    static Result measure(String system, Path program, String tls, long size, int iters, int warmUp, Duration limit)
            throws IOException, InterruptedException {
        Map<String, String> env = Map.of("UCX_TLS", tls);
        long start = System.nanoTime();
        long connectUntil = start + Math.min(CONNECT_WAIT.toNanos(), limit.toNanos());
        int port = Processes.freePort();
        Path serverLog = Files.createTempFile("ucx_perftest-server-", ".log");
        Process server = Processes.start(command(SERVER, program, size, iters, warmUp, port), env, serverLog);
        try {
            String refused = "";
            while (true) {
                Duration left = limit.minusNanos(System.nanoTime() - start);
                if (left.isNegative() || left.isZero()) {
                    throw new Processes.TimedOut("ucx_perftest (UCX_TLS=" + tls + ", " + size + " B) did not measure within "
                            + Processes.seconds(limit) + (refused.isEmpty() ? ""
                                    : ": the server never let the client in" + Processes.said(refused)));
                }
                Processes.Finished client;
                try {
                    client = Processes.run(command(CLIENT, program, size, iters, warmUp, port), env, left);
                } catch (Processes.TimedOut t) {
                    throw new Processes.TimedOut("ucx_perftest's client (UCX_TLS=" + tls + ", " + size
                            + " B) did not end within " + Processes.seconds(limit) + " (" + t.getMessage() + ")");
                }
                if (client.exit() == 0) {
                    server.waitFor(5, java.util.concurrent.TimeUnit.SECONDS); // it ends after its one client
                    return parse(system, size, client.output());
                }
                if (client.output().contains("Connection refused") && server.isAlive() && System.nanoTime() < connectUntil) {
                    refused = client.output();
                    Thread.sleep(20); // the server does not listen yet
                    continue;
                }
                throw new IOException("ucx_perftest's client (UCX_TLS=" + tls + ", " + size + " B) ended with status "
                        + client.exit() + Processes.said(client.output())
                        + (server.isAlive() ? "" : "; the server had ended with status " + server.exitValue()
                                + Processes.saidTail(serverLog)));
            }
        } finally {
            if (server.isAlive()) {
                Processes.kill(server);
            }
            Files.deleteIfExists(serverLog);
        }
    }

    /**
     * The client's figures: the last line of eight numbers after the header that names
     * "bandwidth (MB/s)" ({@code -f} prints that one line; without it the line starts with
     * "Final:" after the progress lines). Columns: iterations; overhead in µs at the 50th
     * percentile, average and overall; bandwidth average and overall; message rate average and
     * overall. The row takes the overall bandwidth; its p50 and p99 are left out (0), since the
     * overhead UCX prints for a bandwidth test is the time to post a put, not to complete one, and
     * would read as a latency beside the store's.
     */
    static Result parse(String system, long size, String output) {
        boolean header = false;
        double[] last = null;
        for (String line : output.split("\n")) {
            if (line.contains("bandwidth (MB/s)")) {
                header = true;
                continue;
            }
            String body = line.strip().replaceFirst("^(Final:|\\[thread \\d+\\])\\s*", "");
            String[] words = body.split("\\s+");
            if (header && words.length == 8 && Arrays.stream(words).allMatch(w -> NUMBER.matcher(w).matches())) {
                last = Arrays.stream(words).mapToDouble(Double::parseDouble).toArray();
            }
        }
        if (last == null) {
            throw new IllegalStateException("ucx_perftest printed no bandwidth figures" + Processes.said(output));
        }
        if (!(last[5] > 0)) {
            throw new IllegalStateException("ucx_perftest printed a bandwidth of " + last[5] + Processes.said(output));
        }
        return new Result(system, OP, size, (int) last[0], last[5], 0, 0);
    }
}
