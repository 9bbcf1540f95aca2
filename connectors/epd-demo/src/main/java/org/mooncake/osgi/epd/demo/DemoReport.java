package org.mooncake.osgi.epd.demo;

import java.util.List;

/**
 * Everything a run found, for the printed report, the JSON and the chart. {@code load} is null
 * when the load phase did not run; {@code failures} lists every failed check (cases, processes,
 * load answers), the reason for exit status 1.
 */
public record DemoReport(DemoOptions options, MachineInfo machine, String startedAt, double seconds,
        List<ProcessInfo> processes, List<CaseResult> cases, List<TransferRow> transfers, Load load,
        List<String> failures) {

    /** A process of the run. */
    public record ProcessInfo(String role, String instance, String url, long pid, String log, double startSeconds) {
    }

    /** The load phase of each path run (null if not), and how many answers were compared and equal. */
    public record Load(int rounds, LoadRun epd, LoadRun aggregated, int compared, int exact) {
    }

    public DemoReport {
        processes = List.copyOf(processes);
        cases = List.copyOf(cases);
        transfers = List.copyOf(transfers);
        failures = List.copyOf(failures);
    }

    public int passed() {
        return (int) cases.stream().filter(CaseResult::passed).count();
    }

    public int compared() {
        return cases.stream().mapToInt(CaseResult::compared).sum();
    }

    public int exact() {
        return cases.stream().mapToInt(CaseResult::exact).sum();
    }
}
