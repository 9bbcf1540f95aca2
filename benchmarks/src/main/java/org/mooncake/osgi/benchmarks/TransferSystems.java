package org.mooncake.osgi.benchmarks;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;
import org.mooncake.osgi.transport.local.LocalTransport;
import org.mooncake.osgi.transport.shm.ShmTransport;
import org.mooncake.osgi.transport.tcp.TcpTransport;
import org.mooncake.osgi.transport.ucx.UcxTransport;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Every system {@code mooncake bench transfer} knows, in the order a round measures them (each
 * size on every system in turn): the copy floor, the store over each transport, the external
 * peers. {@code --systems} picks from these by name.
 *
 * <p>A row of the store over another transport is one more {@link TransferSystem#transport}
 * line in {@link #known()}, as the ucx rows are; {@link TransferGoals} judges {@link #UCX_POSIX}
 * and {@link #UCX_TCP} against their ucx_perftest rows.
 */
final class TransferSystems {
    static final String MEMCPY = "memcpy";
    static final String LOCAL = "local";
    static final String SHM = "shm";
    /** The store over the tcp transport as shipped: the master's grant checked on every request. */
    static final String TCP = "tcp";
    /** As {@link #TCP} with {@code grants.checked=false}: the A side of what checking grants costs. */
    static final String TCP_UNCHECKED = "tcp-unchecked";
    /** As {@link #TCP} with TLS 1.3 on every connection ({@code tls.*}), grants checked. */
    static final String TCP_TLS = "tcp-tls";
    static final String REDIS = "redis";
    static final String IPERF3 = "iperf3";
    /** The store over the ucx transport with {@code UCX_TLS=posix,self}. */
    static final String UCX_POSIX = "ucx-posix";
    /** The store over the ucx transport with {@code UCX_TLS=tcp}. */
    static final String UCX_TCP = "ucx-tcp";
    static final String PERFTEST_POSIX = "ucx_perftest-posix";
    static final String PERFTEST_TCP = "ucx_perftest-tcp";

    /** redis-benchmark's command line, as run: one client, no pipelining, SET then GET of SIZE bytes. */
    static final String REDIS_BENCHMARK = "redis-benchmark -p PORT -t set,get -n OPS -d SIZE -c 1 -P 1 --csv";
    static final String REDIS_SERVER = "redis-server --port PORT --save \"\" --appendonly no --proto-max-bulk-len 1gb "
            + "--client-query-buffer-limit 1gb";
    static final String IPERF3_CLIENT = "iperf3 -c 127.0.0.1 -p PORT -t 3 -P STREAMS -J";

    private TransferSystems() {
    }

    /** The registry: every system, in the order a round measures them. */
    static List<TransferSystem> known() {
        return List.of(
                new TransferSystem(MEMCPY, "MemorySegment.copy between two page-aligned buffers: the floor of every copy",
                        List.of(), Optional::empty, true, rig -> size -> List.of(memcpy(size, rig))),
                TransferSystem.transport(LOCAL, "the store over the local transport (one JVM)", LocalTransport::new, true),
                TransferSystem.transport(SHM, "the store over the shm transport (a /dev/shm file mapped twice)",
                        () -> new ShmTransport(ShmTransport.in("/dev/shm"))),
                TransferSystem.transport(TCP, "the store over the tcp transport on loopback (4 connections), grants "
                        + "checked", () -> tcpTransport(TcpTransport::new)),
                TransferSystem.transport(TCP_UNCHECKED, "as tcp, with grants.checked=false (what checking grants costs)",
                        () -> tcpTransport(c -> new TcpTransport(TcpTransport.withGrantsChecked(c, false)))),
                TransferSystem.transport(TCP_TLS, "as tcp, with TLS 1.3 and client certificates (keytool-made, once a run)",
                        () -> tcpTransport(c -> {
                            BenchCertificates.Stores tls = BenchCertificates.get();
                            return new TcpTransport(TcpTransport.withTls(c, tls.keystore().toString(),
                                    tls.truststore().toString(), BenchCertificates.PASSWORD));
                        })),
                TransferSystem.transport(UCX_POSIX, "the store over the ucx transport, UCX_TLS=posix,self",
                        () -> new UcxTransport(UcxTransport.with("posix,self"))),
                TransferSystem.transport(UCX_TCP, "the store over the ucx transport, UCX_TLS=tcp",
                        () -> new UcxTransport(UcxTransport.with("tcp"))),
                redis(),
                UcxPerftest.system(PERFTEST_POSIX, UcxPerftest.TLS_POSIX, "ucx_perftest"),
                UcxPerftest.system(PERFTEST_TCP, UcxPerftest.TLS_TCP, "ucx_perftest"),
                iperf3());
    }

    /** The systems {@code value} (comma-separated names) picks, in the registry's order; a {@link BenchArgs.Mistake} names the known ones. */
    static List<TransferSystem> select(String option, String value, List<TransferSystem> known) {
        Map<String, TransferSystem> byName = new LinkedHashMap<>();
        known.forEach(s -> byName.put(s.name(), s));
        List<String> asked = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            String name = part.strip();
            if (name.isEmpty()) {
                throw new BenchArgs.Mistake(option + " takes system names separated by commas, was '" + value
                        + "'; known: " + String.join(", ", byName.keySet()));
            }
            if (!byName.containsKey(name)) {
                throw new BenchArgs.Mistake(option + ": unknown system '" + name + "'; known: "
                        + String.join(", ", byName.keySet()));
            }
            asked.add(name);
        }
        return known.stream().filter(s -> asked.contains(s.name())).toList();
    }

    /** One line per system for {@code --help}: name, what it is, and why it cannot run here if it cannot. */
    static String describe(List<TransferSystem> known) {
        int width = known.stream().mapToInt(s -> s.name().length()).max().orElse(0);
        return known.stream().map(s -> String.format(Locale.ROOT, "    %-" + width + "s  %s%s", s.name(), s.about(),
                s.missing().get().map(r -> "\n    " + " ".repeat(width) + "  NOT AVAILABLE HERE: " + r).orElse("")))
                .collect(Collectors.joining("\n"));
    }

    /** A tcp transport opened on the loopback settings every tcp row shares. */
    private interface TcpOpener {
        TcpTransport open(TcpTransport.Config loopback) throws IOException;
    }

    private static TcpTransport tcpTransport(TcpOpener opener) {
        try {
            // -Dtransfer.tcp.spin.us=0 measures the transport without its poll before sleeping
            return opener.open(TcpTransport.loopback(4, 4 << 20, 60_000,
                    Long.getLong("transfer.tcp.spin.us", TcpTransport.DEFAULT_SPIN_WAIT_US)));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Result memcpy(long size, TransferSystem.Rig rig) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = TransferBenchmark.buffer(a, size);
            MemorySegment dst = TransferBenchmark.buffer(a, size);
            src.fill((byte) 1);
            dst.fill((byte) 0);
            int n = rig.ops(size) * 2;
            rig.warmUp(n / 2, i -> MemorySegment.copy(src, 0, dst, 0, size));
            long[] t = new long[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                MemorySegment.copy(src, 0, dst, 0, size);
                t[i] = System.nanoTime() - t0;
            }
            return TransferBenchmark.result(MEMCPY, "copy", size, t);
        }
    }

    private static Optional<String> missing(String why, String... programs) {
        for (String p : programs) {
            if (Processes.which(p).isEmpty()) {
                return Optional.of(p + " not installed (" + why + ")");
            }
        }
        return Optional.empty();
    }

    private static List<String> words(String template, Map<String, String> values) {
        List<String> out = new ArrayList<>();
        for (String w : template.split(" ")) {
            out.add(w.equals("\"\"") ? "" : values.getOrDefault(w, w));
        }
        return out;
    }

    /** A Redis server on loopback for the whole run, measured by redis-benchmark per size and round. */
    private static TransferSystem redis() {
        String install = "apt-get install redis-server redis-tools";
        return new TransferSystem(REDIS, "a Redis server on loopback, SET and GET through redis-benchmark",
                List.of(REDIS_SERVER + "   (once per run)", REDIS_BENCHMARK + "   (OPS = the size's operations)"),
                () -> missing(install, "redis-server", "redis-cli", "redis-benchmark"), true, rig -> {
                    Optional<String> missing = missing(install, "redis-server", "redis-cli", "redis-benchmark");
                    if (missing.isPresent()) {
                        throw new TransferSystem.Unavailable(missing.get());
                    }
                    int port = Processes.freePort();
                    String p = String.valueOf(port);
                    Path log = Files.createTempFile("redis-server-", ".log");
                    Process server = Processes.start(words(REDIS_SERVER, Map.of("PORT", p)), Map.of(), log);
                    TransferSystem.Session session = new TransferSystem.Session() {
                        @Override
                        public List<Result> measure(long size) throws Exception {
                            int n = rig.ops(size);
                            Processes.Finished f = Processes.run(words(REDIS_BENCHMARK, Map.of("PORT", p, "OPS",
                                    String.valueOf(n), "SIZE", String.valueOf(size))), Map.of(), Duration.ofSeconds(600));
                            List<Result> measured = redisResults(f.output(), size, n);
                            if (measured.isEmpty()) {
                                throw new IllegalStateException("redis-benchmark printed no SET or GET figures"
                                        + Processes.said(f.output()));
                            }
                            return measured;
                        }

                        @Override
                        public void close() throws Exception {
                            Processes.kill(server);
                            Files.deleteIfExists(log);
                        }
                    };
                    try {
                        String ping = "";
                        for (int i = 0; i < 100 && !ping.contains("PONG") && server.isAlive(); i++) {
                            ping = Processes.run(List.of("redis-cli", "-p", p, "ping"), Map.of(), Duration.ofSeconds(5))
                                    .output();
                            if (!ping.contains("PONG")) {
                                Thread.sleep(50);
                            }
                        }
                        if (!ping.contains("PONG")) {
                            throw new IllegalStateException("redis-server on port " + port + " did not answer: "
                                    + ping.strip() + Processes.saidTail(log));
                        }
                        return session;
                    } catch (Exception e) {
                        session.close();
                        throw e;
                    }
                });
    }

    /**
     * redis-benchmark's {@code --csv} rows as results, columns found by the header's names
     * ({@code "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
     * "p99_latency_ms","max_latency_ms"} in Redis 7), not by position: read by position, one off,
     * the figures shown as Redis's p50 and p99 were its p95 and maximum.
     */
    static List<Result> redisResults(String csv, long size, int n) {
        List<Result> out = new ArrayList<>();
        List<String> header = null;
        for (String line : csv.split("\n")) {
            List<String> f = List.of(line.replace("\"", "").trim().split(","));
            if (f.getFirst().equals("test")) {
                header = f;
            } else if (header != null && (f.getFirst().equals("SET") || f.getFirst().equals("GET"))) {
                double rps = Double.parseDouble(f.get(header.indexOf("rps")));
                double p50 = Double.parseDouble(f.get(header.indexOf("p50_latency_ms")));
                double p99 = Double.parseDouble(f.get(header.indexOf("p99_latency_ms")));
                out.add(new Result(REDIS, f.getFirst().equals("SET") ? "put" : "get", size, n,
                        rps * size / (1 << 20), p50, p99));
            }
        }
        return out;
    }

    /** The loopback TCP limit: one and four iperf3 streams for 3 s, once per round (rows iperf3-1, iperf3-4). */
    private static TransferSystem iperf3() {
        return new TransferSystem(IPERF3, "loopback TCP limit: iperf3 with 1 and 4 streams, 3 s each, once per round",
                List.of("iperf3 -s -1 -p PORT   (server)", IPERF3_CLIENT + "   (client)"),
                () -> missing("apt-get install iperf3", "iperf3"), false, rig -> size -> {
                    List<Result> out = new ArrayList<>();
                    for (int streams : new int[] {1, 4}) {
                        int port = Processes.freePort();
                        Path log = Files.createTempFile("iperf3-", ".log");
                        Process server = Processes.start(List.of("iperf3", "-s", "-1", "-p", String.valueOf(port)),
                                Map.of(), log);
                        try {
                            Thread.sleep(300); // iperf3 has no readiness signal; a failed connect below is reported, not hidden
                            String json = Processes.run(words(IPERF3_CLIENT, Map.of("PORT", String.valueOf(port),
                                    "STREAMS", String.valueOf(streams))), Map.of(), Duration.ofSeconds(30)).output();
                            var bps = new ObjectMapper().readTree(json).at("/end/sum_received/bits_per_second");
                            if (!bps.isNumber()) {
                                throw new IllegalStateException("iperf3 printed no bandwidth" + Processes.said(json));
                            }
                            out.add(new Result(IPERF3 + "-" + streams, "stream", 0, streams,
                                    bps.asDouble() / 8 / (1 << 20), 0, 0));
                        } finally {
                            Processes.kill(server);
                            Files.deleteIfExists(log);
                        }
                    }
                    return out;
                });
    }
}
