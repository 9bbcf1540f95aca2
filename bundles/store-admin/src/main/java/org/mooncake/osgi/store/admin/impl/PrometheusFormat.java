package org.mooncake.osgi.store.admin.impl;

import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.TypeStats;

/** Renders master statistics in the Prometheus text exposition format (version 0.0.4). */
final class PrometheusFormat {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusFormat() {
    }

    /**
     * Master statistics, with what each eviction policy has learned ({@code EvictionPolicy.learned()}, by policy name),
     * as {@code mooncake_eviction_policy_learned{policy, figure}}, and whether this process copies
     * and checksums in one pass ({@code Checksums.copiesInOnePass()}).
     */
    static String render(MasterStats s, Map<String, Map<String, Double>> learned, boolean copiesInOnePass) {
        return render(s, learned, copiesInOnePass, List.of());
    }

    /**
     * As {@link #render(MasterStats, Map, boolean)}, with what this process's store client has
     * moved by protocol ({@code StoreClient.transferStats()}; empty where there is no client):
     * {@code mooncake_client_transfers_total{protocol, op, outcome}},
     * {@code mooncake_client_transfer_bytes_total{protocol, op}} and
     * {@code mooncake_client_checksum_mismatches_total{protocol}}. Without a master ({@code s}
     * null: a worker or proxy process that runs no store) the master's figures are left out.
     */
    static String render(MasterStats s, Map<String, Map<String, Double>> learned, boolean copiesInOnePass,
            List<TransferStats> transfers) {
        StringBuilder b = new StringBuilder(4096);
        gauge(b, "mooncake_checksummed_copy_one_pass",
                "1 where copy transports here copy and checksum in one pass (the native kernel), 0 where in two",
                copiesInOnePass ? 1 : 0);
        if (s != null) {
            master(b, s, learned);
        }
        if (!transfers.isEmpty()) {
            transfers(b, transfers);
        }
        return b.toString();
    }

    private static void master(StringBuilder b, MasterStats s, Map<String, Map<String, Double>> learned) {
        gauge(b, "mooncake_capacity_bytes", "Bytes of all mounted segments", s.capacityBytes());
        gauge(b, "mooncake_used_bytes", "Bytes allocated to objects", s.usedBytes());
        gauge(b, "mooncake_used_ratio", "Used bytes over capacity", s.usedRatio());
        gauge(b, "mooncake_objects", "Readable objects", s.objects());
        gauge(b, "mooncake_processing_puts", "Puts started and not yet ended", s.processingPuts());
        gauge(b, "mooncake_segments", "Mounted segments", s.segments());
        gauge(b, "mooncake_clients", "Live clients", s.clients());
        if (!s.memoryKinds().isEmpty()) {
            header(b, "mooncake_memory_capacity_bytes", "gauge", "Bytes of mounted segments by the memory they live in");
            s.memoryKinds().forEach(k -> b.append("mooncake_memory_capacity_bytes{memory_kind=\"").append(k.kind().name())
                    .append("\"} ").append(k.capacityBytes()).append('\n'));
            header(b, "mooncake_memory_used_bytes", "gauge", "Bytes allocated to objects by the memory they live in");
            s.memoryKinds().forEach(k -> b.append("mooncake_memory_used_bytes{memory_kind=\"").append(k.kind().name())
                    .append("\"} ").append(k.usedBytes()).append('\n'));
        }
        counter(b, "mooncake_put_no_space_total", "Puts refused with NO_AVAILABLE_HANDLE", s.failedPutsNoSpace());
        counter(b, "mooncake_eviction_rounds_total", "Eviction rounds run", s.evictionRounds());
        counter(b, "mooncake_eviction_round_seconds_total", "Time spent in eviction rounds",
                s.totalEvictionRoundNanos() / 1e9);
        gauge(b, "mooncake_eviction_last_round_seconds", "Duration of the last eviction round",
                s.lastEvictionRoundNanos() / 1e9);
        header(b, "mooncake_eviction_policy_active", "gauge", "1 for the policy planning eviction rounds");
        for (String p : s.availablePolicies()) {
            b.append("mooncake_eviction_policy_active{policy=\"").append(escape(p)).append("\"} ")
                    .append(p.equals(s.activePolicy()) ? 1 : 0).append('\n');
        }
        if (!learned.isEmpty()) {
            header(b, "mooncake_eviction_policy_learned", "gauge", "What an eviction policy has learned (see the policy's docs)");
            learned.forEach((policy, figures) -> figures.forEach((figure, v) -> b.append(
                    "mooncake_eviction_policy_learned{policy=\"").append(escape(policy)).append("\",figure=\"")
                    .append(escape(figure)).append("\"} ").append(number(v)).append('\n')));
        }
        perType(b, s, "mooncake_type_objects", "gauge", "Readable objects by data type", TypeStats::objects);
        perType(b, s, "mooncake_type_bytes", "gauge", "Bytes of readable objects by data type", TypeStats::bytes);
        perType(b, s, "mooncake_type_hits_total", "counter", "Reads that found the object", TypeStats::hits);
        perType(b, s, "mooncake_type_misses_total", "counter",
                "Reads that found nothing (type UNKNOWN when the key was absent)", TypeStats::misses);
        perType(b, s, "mooncake_type_evictions_total", "counter", "Objects evicted", TypeStats::evictions);
        perType(b, s, "mooncake_type_evicted_bytes_total", "counter", "Bytes evicted", TypeStats::evictedBytes);
    }

    private static void transfers(StringBuilder b, List<TransferStats> transfers) {
        header(b, "mooncake_client_transfers_total", "counter",
                "Transfers this process's client ran, by protocol, op (write: put, read: get) and outcome");
        for (TransferStats t : transfers) {
            transfer(b, "mooncake_client_transfers_total", t.protocol(), "write", "ok", t.writes());
            transfer(b, "mooncake_client_transfers_total", t.protocol(), "write", "failed", t.failedWrites());
            transfer(b, "mooncake_client_transfers_total", t.protocol(), "read", "ok", t.reads());
            transfer(b, "mooncake_client_transfers_total", t.protocol(), "read", "failed", t.failedReads());
        }
        header(b, "mooncake_client_transfer_bytes_total", "counter", "Bytes of completed transfers, by protocol and op");
        for (TransferStats t : transfers) {
            transfer(b, "mooncake_client_transfer_bytes_total", t.protocol(), "write", null, t.bytesWritten());
            transfer(b, "mooncake_client_transfer_bytes_total", t.protocol(), "read", null, t.bytesRead());
        }
        header(b, "mooncake_client_checksum_mismatches_total", "counter",
                "Reads whose bytes did not match the object's checksum (the next replica is tried)");
        for (TransferStats t : transfers) {
            b.append("mooncake_client_checksum_mismatches_total{protocol=\"").append(escape(t.protocol())).append("\"} ")
                    .append(t.checksumMismatches()).append('\n');
        }
    }

    private static void transfer(StringBuilder b, String name, String protocol, String op, String outcome, long v) {
        b.append(name).append("{protocol=\"").append(escape(protocol)).append("\",op=\"").append(op);
        if (outcome != null) {
            b.append("\",outcome=\"").append(outcome);
        }
        b.append("\"} ").append(v).append('\n');
    }

    private static void perType(StringBuilder b, MasterStats s, String name, String kind, String help,
            java.util.function.ToLongFunction<TypeStats> value) {
        header(b, name, kind, help);
        for (TypeStats t : s.types()) {
            b.append(name).append("{type=\"").append(t.dataType().name()).append("\"} ")
                    .append(value.applyAsLong(t)).append('\n');
        }
    }

    private static void gauge(StringBuilder b, String name, String help, double v) {
        header(b, name, "gauge", help);
        b.append(name).append(' ').append(number(v)).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, double v) {
        header(b, name, "counter", help);
        b.append(name).append(' ').append(number(v)).append('\n');
    }

    /** The HELP and TYPE lines of a family; help text escapes backslashes and line breaks. */
    static void header(StringBuilder b, String name, String kind, String help) {
        b.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(kind).append('\n');
    }

    /**
     * A sample value as Prometheus reads it: whole numbers without a fraction, NaN and infinities
     * by name, anything else as the shortest decimal that reads back as the same double (a fixed
     * number of significant digits would round a start time in epoch seconds to the nearest 10 s).
     */
    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    /** A label value: backslash, double quote and line feed escaped. */
    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
