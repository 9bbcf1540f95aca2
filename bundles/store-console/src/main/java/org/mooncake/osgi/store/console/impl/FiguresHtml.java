package org.mooncake.osgi.store.console.impl;

import java.util.List;

import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.MemoryKindStats;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.master.TypeStats;

/** The page's figures: the store as a whole, its segments, each data type, eviction rounds, transfers. */
final class FiguresHtml {
    private FiguresHtml() {
    }

    static void store(Html h, MasterStats s) {
        h.section("store", "Store");
        h.table("store-summary", "capacity (B)", "used (B)", "used", "objects", "puts in flight", "segments", "clients",
                "puts refused for space");
        h.row().number("store-capacity", s.capacityBytes()).number("store-used", s.usedBytes())
                .percent("store-used-ratio", s.usedRatio()).number("store-objects", s.objects())
                .number("store-processing-puts", s.processingPuts()).number("store-segments", s.segments())
                .number("store-clients", s.clients()).number("store-failed-puts-no-space", s.failedPutsNoSpace()).endRow();
        h.endTable();
        if (!s.memoryKinds().isEmpty()) {
            h.table("memory-kinds", "memory", "segments", "capacity (B)", "used (B)", "used");
            for (MemoryKindStats k : s.memoryKinds()) {
                String id = "memory-" + k.kind();
                h.row().cell(k.kind().toString()).number(id + "-segments", k.segments())
                        .number(id + "-capacity", k.capacityBytes()).number(id + "-used", k.usedBytes())
                        .percent(id + "-used-ratio", k.usedRatio()).endRow();
            }
            h.endTable();
        }
    }

    static void segments(Html h, List<SegmentStats> segments) {
        h.section("segments", "Segments");
        if (segments.isEmpty()) {
            h.paragraph("segments-none", "No segment is mounted.");
            return;
        }
        h.table("segment-table", "segment", "client", "memory", "capacity (B)", "used (B)", "used", "reached at");
        for (SegmentStats s : segments) {
            String id = "segment-" + s.name();
            double ratio = s.capacityBytes() == 0 ? 0 : (double) s.usedBytes() / s.capacityBytes();
            h.row().cell(id + "-name", s.name()).cell(s.clientId()).cell(s.memoryKind().toString())
                    .number(id + "-capacity", s.capacityBytes()).number(id + "-used", s.usedBytes())
                    .percent(id + "-used-ratio", ratio)
                    .cell(s.endpoints().isEmpty() ? s.protocol() : String.join(", ", s.endpoints())).endRow();
        }
        h.endTable();
    }

    /** Every data type that holds objects or has been read or evicted since the master started. */
    static void types(Html h, List<TypeStats> types) {
        h.section("types", "Data types");
        List<TypeStats> active = types.stream()
                .filter(t -> t.objects() + t.hits() + t.misses() + t.evictions() > 0).toList();
        if (active.isEmpty()) {
            h.paragraph("types-none", "No object has been stored or read yet.");
            return;
        }
        h.table("type-table", "data type", "objects", "bytes", "hits", "misses", "evictions", "evicted bytes");
        for (TypeStats t : active) {
            String id = "type-" + t.dataType().name();
            h.row().cell(t.dataType().name()).number(id + "-objects", t.objects()).number(id + "-bytes", t.bytes())
                    .number(id + "-hits", t.hits()).number(id + "-misses", t.misses())
                    .number(id + "-evictions", t.evictions()).number(id + "-evicted-bytes", t.evictedBytes()).endRow();
        }
        h.endTable();
    }

    static void eviction(Html h, MasterStats s) {
        h.section("eviction", "Eviction rounds");
        long mean = s.evictionRounds() == 0 ? 0 : s.totalEvictionRoundNanos() / s.evictionRounds();
        h.table("eviction-table", "rounds", "last round", "mean round", "all rounds");
        h.row().number("eviction-rounds", s.evictionRounds()).millis("eviction-last", s.lastEvictionRoundNanos())
                .millis("eviction-mean", mean).millis("eviction-total", s.totalEvictionRoundNanos()).endRow();
        h.endTable();
    }

    static void transfers(Html h, List<TransferStats> transfers, boolean hasClient) {
        h.section("transfers", "Transfers by protocol");
        if (transfers.isEmpty()) {
            h.paragraph("transfers-none", hasClient ? "This process's client has moved nothing yet."
                    : "No store client runs in this process.");
            return;
        }
        h.table("transfer-table", "protocol", "writes", "bytes written", "failed writes", "reads", "bytes read",
                "failed reads", "checksum mismatches");
        for (TransferStats t : transfers) {
            String id = "transfer-" + t.protocol();
            h.row().cell(t.protocol()).number(id + "-writes", t.writes()).number(id + "-bytes-written", t.bytesWritten())
                    .number(id + "-failed-writes", t.failedWrites()).number(id + "-reads", t.reads())
                    .number(id + "-bytes-read", t.bytesRead()).number(id + "-failed-reads", t.failedReads())
                    .number(id + "-checksum-mismatches", t.checksumMismatches()).endRow();
        }
        h.endTable();
    }
}
