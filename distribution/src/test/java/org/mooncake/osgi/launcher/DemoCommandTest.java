package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** {@code mooncake demo epd} goes to the demo, which has its own options and help. */
class DemoCommandTest {
    private static String[] run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new String[] {Integer.toString(p.exitValue()), new String(p.getInputStream().readAllBytes())};
    }

    @Test
    void theDemosHelpIsItsOwnAndTheLaunchersNamesIt() throws Exception {
        String[] demo = run("demo", "epd", "--help");
        assertEquals("0", demo[0], demo[1]);
        assertTrue(demo[1].startsWith("usage: mooncake demo epd [--out DIR]"), demo[1]);
        String[] launcher = run("--help");
        assertEquals("0", launcher[0], launcher[1]);
        assertTrue(launcher[1].contains("\n       mooncake demo epd [--out DIR]"), launcher[1]);
    }

    @Test
    void aMissingOrUnknownDemoAndAnUnknownOptionAreRefused() throws Exception {
        String[] none = run("demo");
        assertEquals("2", none[0], none[1]);
        assertTrue(none[1].startsWith("mooncake: which demo? (there is one: epd)"), none[1]);
        String[] other = run("demo", "pd");
        assertEquals("2", other[0], other[1]);
        assertTrue(other[1].startsWith("mooncake: unknown demo pd (there is one: epd)"), other[1]);
        String[] option = run("demo", "epd", "--fast");
        assertEquals("2", option[0], option[1]);
        assertTrue(option[1].startsWith("mooncake demo epd: unknown option --fast\nusage: mooncake demo epd"), option[1]);
    }
}
