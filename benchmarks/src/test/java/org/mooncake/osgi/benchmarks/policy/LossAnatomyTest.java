package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mooncake.osgi.store.api.ObjectDataType;

class LossAnatomyTest {
    private static Access read(String key, String group) {
        return new Access(key, ObjectDataType.HIDDEN_STATE, 4096, 100, 100, group, -1, false);
    }

    @Test
    void eachReadAfterTheFirstIsClassedByItsNumberItsGapAndWhoReadBefore() {
        Workload w = Workload.of("handmade", List.of(
                new Request(0, List.of(read("a", "s1"), read("b", "s1"))),
                new Request(500, List.of(read("a", "s1"))), // 2nd, < 1 s, same group
                new Request(3_000, List.of(read("a", "s2"))), // 3rd, 1–5 s, another group
                new Request(30_000, List.of(read("a", "s3"), read("b", "s3"))))); // 4th, > 20 s, another; b: 2nd, > 20 s, another
        LossAnatomy anatomy = new LossAnatomy();
        Simulation.run(w, BenchPolicies.make(BenchPolicies.DEFAULT), Simulation.Settings.of(1 << 20), anatomy.newRun());

        assertEquals(4, anatomy.total().reads, "the two first reads are compulsory, not counted");
        assertEquals(4, anatomy.total().hits, "everything fits");
        Map<LossAnatomy.Nth, LossAnatomy.Tally> byNth = anatomy.by(LossAnatomy.Cell::nth);
        assertEquals(2, byNth.get(LossAnatomy.Nth.SECOND).reads);
        assertEquals(1, byNth.get(LossAnatomy.Nth.THIRD).reads);
        assertEquals(1, byNth.get(LossAnatomy.Nth.LATER).reads);
        Map<LossAnatomy.Gap, LossAnatomy.Tally> byGap = anatomy.by(LossAnatomy.Cell::gap);
        assertEquals(1, byGap.get(LossAnatomy.Gap.UNDER_1S).reads);
        assertEquals(1, byGap.get(LossAnatomy.Gap.TO_5S).reads);
        assertEquals(2, byGap.get(LossAnatomy.Gap.OVER_20S).reads);
        Map<Boolean, LossAnatomy.Tally> byGroup = anatomy.by(LossAnatomy.Cell::otherGroup);
        assertEquals(3, byGroup.get(true).reads, "a after s1 by s2, a after s2 by s3, b after s1 by s3");
        assertEquals(1, byGroup.get(false).reads);
    }

    @Test
    void aReadAfterAWriteBackThatFoundNoRoomIsToldApart() {
        Access huge = new Access("huge", ObjectDataType.HIDDEN_STATE, 2 << 20, 500, 500, "s1", -1, false);
        Workload w = Workload.of("no room", List.of(
                new Request(0, List.of(huge, read("small", "s1"))),
                new Request(500, List.of(huge, read("small", "s1"))),
                new Request(1_000, List.of(huge))));
        LossAnatomy anatomy = new LossAnatomy();
        RunResult r = Simulation.run(w, BenchPolicies.make(BenchPolicies.DEFAULT), Simulation.Settings.of(1 << 20),
                anatomy.newRun());

        assertEquals(3, r.droppedWrites, "a 2 MiB object never fits a 1 MiB store");
        Map<Boolean, LossAnatomy.Tally> byDrop = anatomy.by(LossAnatomy.Cell::afterDrop);
        assertEquals(2, byDrop.get(true).reads);
        assertEquals(0, byDrop.get(true).hits);
        assertEquals(1, byDrop.get(false).reads);
        assertEquals(1, byDrop.get(false).hits);
    }

    @Test
    void whatItCountsLostIsWhatTheBenchmarkCountsLostBeyondCompulsoryMisses() {
        Workload w = SessionWorkload.generate(60, 0.002, SessionWorkload.Mode.SESSION, 3);
        long capacity = (long) (w.uniqueBytes() * 0.05) / 4096 * 4096;
        LossAnatomy anatomy = new LossAnatomy();
        RunResult r = Simulation.run(w, BenchPolicies.make(BenchPolicies.COST_AWARE), Simulation.Settings.of(capacity), anatomy.newRun());

        LossAnatomy.Tally all = anatomy.total();
        assertTrue(all.lostMs() > 0, "the capacity was never short: nothing was compared");
        assertEquals(r.cost - r.compulsoryCost, all.costMs, 1e-6);
        assertEquals(r.hitCost, all.hitCostMs, 1e-6);
        double byType = anatomy.by(LossAnatomy.Cell::type).values().stream().mapToDouble(LossAnatomy.Tally::lostMs).sum();
        assertEquals(all.lostMs(), byType, 1e-6, "every read is in exactly one class");
        String report = anatomy.report();
        assertTrue(report.contains("| KVCACHE, 2nd |") && report.contains("| by another group |"), report);

        Simulation.run(w, BenchPolicies.make(BenchPolicies.COST_AWARE), Simulation.Settings.of(capacity), anatomy.newRun());
        assertEquals(2 * (r.cost - r.compulsoryCost), anatomy.total().costMs, 1e-6,
                "a second run of the same keys starts again with each key's first read compulsory");
    }

    @Test
    void itsChartStacksTheLostPointsOfEachTypeByGapAndIsWrittenBesideTheTable(@TempDir Path dir) throws Exception {
        Access huge = new Access("huge", ObjectDataType.HIDDEN_STATE, 2 << 20, 500, 500, "s1", -1, false);
        Access kv = new Access("kv", ObjectDataType.KVCACHE, 4096, 50, 50, "s1", -1, false);
        Workload w = Workload.of("no room", List.of(new Request(0, List.of(huge, kv)), new Request(500, List.of(huge, kv)),
                new Request(30_000, List.of(huge))));
        LossAnatomy anatomy = new LossAnatomy();
        Simulation.run(w, BenchPolicies.make(BenchPolicies.DEFAULT), Simulation.Settings.of(1 << 20), anatomy.newRun());

        org.knowm.xchart.CategoryChart chart = AnatomyChart.of(anatomy, "test");
        assertEquals(List.of("KVCACHE", "HIDDEN_STATE"), List.copyOf(chart.getSeriesMap().keySet()));
        var hidden = chart.getSeriesMap().get("HIDDEN_STATE");
        assertEquals(List.of("< 1 s", "1–5 s", "5–20 s", "> 20 s"), List.copyOf(hidden.getXData()));
        double all = anatomy.total().costMs; // 500 + 50 + 500: the huge one never fits, the KV block hits
        assertEquals(List.of(100 * 500 / all, 0.0, 0.0, 100 * 500 / all), List.copyOf(hidden.getYData()));
        assertEquals(List.of(0.0, 0.0, 0.0, 0.0), List.copyOf(chart.getSeriesMap().get("KVCACHE").getYData()));

        List<Path> files = AnatomyChart.write(chart, dir.resolve("anatomy-lease-lru-session"));
        String svg = Files.readString(files.get(0));
        assertTrue(svg.startsWith("<?xml") && svg.contains("<svg"), svg.substring(0, Math.min(200, svg.length())));
        // the encoder draws text as outlines: each series is found by its colour (its legend box, and its bars)
        java.util.Set<String> colours = new java.util.HashSet<>();
        for (var series : chart.getSeriesMap().values()) {
            java.awt.Color c = series.getFillColor();
            String rgb = "rgb(" + c.getRed() + "," + c.getGreen() + "," + c.getBlue() + ")";
            assertTrue(svg.contains("fill:" + rgb), series.getName() + " drawn in " + rgb);
            colours.add(rgb);
        }
        assertEquals(2, colours.size(), "one colour per series");
        byte[] png = Files.readAllBytes(files.get(1));
        assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G');
    }

    @Test
    void theCommandWritesItsTableAndChart(@TempDir Path dir) throws Exception {
        LossAnatomy.main(new String[] {"--sessions", "20", "--seeds", "1", "--capacity", "0.05", "--out", dir.toString()});
        String table = Files.readString(dir.resolve("anatomy-cost-aware-session.md"));
        assertTrue(table.startsWith("cost-aware on seed20-session at 5% of unique bytes, seeds 1–1 pooled"), table);
        assertTrue(table.contains("| data type, since the previous read |"), table);
        assertTrue(Files.readString(dir.resolve("anatomy-cost-aware-session.svg")).contains("<svg"));
        assertTrue(Files.size(dir.resolve("anatomy-cost-aware-session.png")) > 0);
    }
}
