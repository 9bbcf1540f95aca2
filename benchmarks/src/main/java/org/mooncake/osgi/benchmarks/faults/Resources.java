package org.mooncake.osgi.benchmarks.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Heap in use (after a full GC, by {@code jcmd}) and open file descriptors of the cluster's processes. */
record Resources(Map<String, Sample> byProcess) {
    /** One process at one moment; -1 where it could not be read. */
    record Sample(long pid, long heapUsedKiB, long fds) {
    }

    /** A process at the start and the end of a soak; a different pid means it was restarted in between. */
    record Change(String process, Sample start, Sample end) {
    }

    private static final Pattern USED = Pattern.compile("used (\\d+)K");

    static Resources sample(Map<String, Process> processes) {
        Map<String, Sample> m = new LinkedHashMap<>();
        processes.forEach((name, p) -> m.put(name, new Sample(p.pid(), heapKiB(p.pid()), fds(p.pid()))));
        return new Resources(m);
    }

    static List<Change> compare(Resources start, Resources end) {
        List<Change> out = new ArrayList<>();
        start.byProcess.forEach((name, s) -> out.add(new Change(name, s, end.byProcess.get(name))));
        return out;
    }

    static long fds(long pid) {
        try (var s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return s.count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The heap in use after a full collection ({@code jcmd PID GC.run}, then {@code GC.heap_info}). */
    static long heapKiB(long pid) {
        try {
            String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            run(List.of(jcmd, Long.toString(pid), "GC.run"));
            Matcher m = USED.matcher(run(List.of(jcmd, Long.toString(pid), "GC.heap_info")));
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException | InterruptedException e) {
            return -1;
        }
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
        return new String(out, StandardCharsets.UTF_8);
    }
}
