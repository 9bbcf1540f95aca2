package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class TransferTableTest {
    private static final Map<Role, Metrics> WINDOW = Map.of(
            Role.ENCODER, Metrics.parse("""
                    mooncake_epd_hidden_state_bytes_total{op="put"} 8388608
                    mooncake_epd_hidden_state_transfer_seconds_sum{op="put"} 0.04
                    mooncake_epd_hidden_state_transfer_seconds_count{op="put"} 8
                    """),
            Role.PREFILL, Metrics.parse("""
                    mooncake_epd_hidden_state_bytes_total{op="get"} 8388608
                    mooncake_epd_hidden_state_transfer_seconds_sum{op="get"} 0.02
                    mooncake_epd_hidden_state_transfer_seconds_count{op="get"} 8
                    mooncake_epd_kv_bytes_total{op="put"} 5242880
                    mooncake_epd_kv_transfer_seconds_sum{op="put"} 0.1
                    mooncake_epd_kv_transfer_seconds_count{op="put"} 40
                    """));

    @Test
    void rowsComeFromTheConnectorsCountersOnTheirWorkers() {
        List<TransferRow> rows = TransferTable.fromRun(WINDOW);
        assertEquals(List.of("hidden save", "hidden load", "KV save", "KV load"), rows.stream().map(TransferRow::name).toList());
        TransferRow save = rows.get(0);
        assertEquals(Role.ENCODER, save.worker());
        assertEquals(8, save.objects());
        assertEquals(1 << 20, save.meanObjectBytes());
        assertEquals(200, save.mibPerS(), 1e-9);
        assertEquals(400, rows.get(1).mibPerS(), 1e-9);
        assertEquals(50, rows.get(2).mibPerS(), 1e-9);
        TransferRow load = rows.get(3);
        assertEquals(0, load.objects());
        assertEquals("no transfers", load.note());
        assertTrue(Double.isNaN(load.mibPerS()));
        assertEquals("n/a", load.verdict());
    }

    @Test
    void aWindowsRateIsTheMedianRequestsAndItsTotalsAddUp() {
        List<Map<Role, Metrics>> requests = new java.util.ArrayList<>();
        for (double seconds : new double[] {0.004, 0.005, 0.050}) { // one request met a pause
            requests.add(Map.of(Role.ENCODER, Metrics.parse("mooncake_epd_hidden_state_bytes_total{op=\"put\"} 1048576\n"
                    + "mooncake_epd_hidden_state_transfer_seconds_sum{op=\"put\"} " + seconds + "\n"
                    + "mooncake_epd_hidden_state_transfer_seconds_count{op=\"put\"} 1\n")));
        }
        requests.add(Map.of()); // a request that moved nothing (text only) has no rate
        TransferRow save = TransferTable.fromWindow(requests).getFirst();
        assertEquals(3, save.objects());
        assertEquals(3 << 20, save.bytes());
        assertEquals(0.059, save.seconds(), 1e-12);
        assertEquals(200, save.mibPerS(), 1e-9, "1 MiB in 5 ms, not the mean's 51 MiB/s");
    }

    @Test
    void theVerdictIsTheRatioToThePlainRateAgainstTheGoal() {
        TransferRow row = TransferTable.fromRun(WINDOW).getFirst();
        assertEquals("PASS", row.withPlain(new ProbeResult.Figure(8, 8 << 20, 0.028, 285.0), "").verdict(), "0.70");
        assertEquals("MISS", row.withPlain(new ProbeResult.Figure(8, 8 << 20, 0.028, 286.0), "").verdict(), "0.699");
        assertEquals(0.5, row.withPlain(new ProbeResult.Figure(8, 8 << 20, 0.02, 400.0), "").ratio(), 1e-9);
    }

    @Test
    void theMedianProbeIsKept() {
        List<ProbeResult.Figure> f = List.of(new ProbeResult.Figure(1, 1, 1, 300), new ProbeResult.Figure(1, 1, 1, 100),
                new ProbeResult.Figure(1, 1, 1, 900), new ProbeResult.Figure(1, 1, 1, 200),
                new ProbeResult.Figure(1, 1, 1, 250));
        assertEquals(250, TransferTable.median(f).mibPerS());
    }

    @Test
    void probesMoveWhatOneRequestMovedWithinTheProbesLimits() throws Exception {
        Map<Role, Metrics> many = Map.of(Role.ENCODER, Metrics.parse("""
                mooncake_epd_hidden_state_bytes_total{op="put"} 1677721600
                mooncake_epd_hidden_state_transfer_seconds_sum{op="put"} 8
                mooncake_epd_hidden_state_transfer_seconds_count{op="put"} 200
                """));
        try (FakeCluster cluster = new FakeCluster(Set.of())) {
            List<TransferRow> rows = TransferTable.probe(TransferTable.fromRun(many), cluster,
                    new DemoHttp(Duration.ofSeconds(10)), 0);
            TransferRow save = rows.getFirst();
            assertEquals(8, save.plain().objects(), "a request's 17 objects of 8 MiB, 64 MiB of them at most");
            assertEquals(64L << 20, save.plain().bytes());
            assertEquals("plain: 8 of 17 objects a probe", save.note());
            assertEquals(1250.0, save.plain().mibPerS());
            assertEquals(null, rows.get(1).plain(), "nothing moved, nothing probed");
        }
    }

    @Test
    void probesIdleAboutARequestsTimeWithinABound() {
        assertEquals(450, TransferTable.gapMs(450.4));
        assertEquals(600, TransferTable.gapMs(5_000));
        assertEquals(0, TransferTable.gapMs(Double.NaN));
    }
}
