package org.mooncake.osgi.benchmarks.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The fault suite's short run: a real cluster (a master, two storage nodes, one client process,
 * and a storage node on shm over a small tmpfs where one can be mounted) from the built
 * distribution, one fault of each cheap kind, and the table must reconcile with nothing
 * corrupt, half-visible or lost. The long runs are documented in docs/faults.md.
 */
class FaultSuiteIT {
    @Test
    void aFewFaultsOfEachCheapKindReconcileWithNothingCorruptOrLost() throws Exception {
        Path distribution = Path.of(System.getProperty("mooncake.distribution", "../distribution/target/mooncake"));
        Path out = Files.createDirectories(Path.of("target", "fault-it"));
        List<FaultKind> kinds = List.of(FaultKind.CLIENT_KILL_PUT, FaultKind.CLIENT_KILL_GET, FaultKind.STORAGE_STALL,
                FaultKind.STORAGE_KILL, FaultKind.TRANSPORT_SWAP, FaultKind.FULL_SHM_TMPFS);
        FaultRun run = new FaultSuite(new FaultSuite.Options(kinds.size(), kinds, 3, out, 0, 2, 1, distribution)).run();
        FaultReport r = run.report();
        String table = FaultTable.text(run);
        // full-shm-tmpfs mounts a tmpfs: where that is refused (not root) the run says so and does the others
        boolean tmpfs = run.notes().stream().noneMatch(n -> n.startsWith("full-shm-tmpfs skipped"));
        List<String> expected = kinds.stream().filter(k -> tmpfs || k != FaultKind.FULL_SHM_TMPFS).map(FaultKind::id)
                .sorted().toList();
        assertEquals(expected, r.faultsByKind().keySet().stream().sorted().toList(), "each kind: " + table);
        assertTrue(r.reconciles(), table);
        assertEquals(0, r.corrupt() + r.halfVisible(), table);
        assertEquals(0L, r.objects().get("corrupt"), table);
        assertEquals(0, r.lost(), table);
        assertEquals(0, r.unrecovered(), table);
        assertTrue(r.succeeded() > 0 && r.objects().get("readable") > 0, table);
        assertTrue(Files.size(out.resolve("faults.png")) > 0 && Files.readString(out.resolve("faults.json"))
                .contains("\"reconciles\" : true"), "the JSON and the chart are written");
    }
}
