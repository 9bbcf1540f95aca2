package org.mooncake.osgi.epd.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class DemoOptionsTest {
    private static final Path CWD = Path.of("/somewhere/else");

    @Test
    void defaultsAreTheDemoModelBothPathsThreeRoundsAndAnOutFolderInTheCallersDirectory() {
        DemoOptions o = DemoOptions.parse(List.of(), CWD);
        assertEquals(CWD.resolve("epd-demo-out"), o.out());
        assertEquals(ModelSize.DEMO, o.model());
        assertEquals(DemoOptions.Mode.BOTH, o.mode());
        assertEquals(3, o.rounds());
        assertFalse(o.keep());
        assertFalse(o.help());
    }

    @Test
    void everyOptionIsRead() {
        DemoOptions o = DemoOptions.parse(List.of("--out", "runs/a", "--model", "tiny", "--mode", "epd", "--rounds", "0",
                "--keep"), CWD);
        assertEquals(Path.of("/somewhere/else/runs/a"), o.out(), "relative to the caller's directory");
        assertEquals(ModelSize.TINY, o.model());
        assertEquals(DemoOptions.Mode.EPD, o.mode());
        assertEquals(0, o.rounds());
        assertTrue(o.keep());
        assertEquals(Path.of("/abs"), DemoOptions.parse(List.of("--out", "/abs"), CWD).out());
        assertTrue(DemoOptions.Mode.AGGREGATED.aggregated() && !DemoOptions.Mode.AGGREGATED.epd());
    }

    @Test
    void unknownOptionsAndBadValuesAreRefusedWithTheReason() {
        assertEquals("unknown option --fast",
                assertThrows(IllegalArgumentException.class, () -> DemoOptions.parse(List.of("--fast"), CWD)).getMessage());
        assertEquals("--model must be demo or tiny, was huge", assertThrows(IllegalArgumentException.class,
                () -> DemoOptions.parse(List.of("--model", "huge"), CWD)).getMessage());
        assertEquals("--mode must be both, epd or aggregated, was all", assertThrows(IllegalArgumentException.class,
                () -> DemoOptions.parse(List.of("--mode", "all"), CWD)).getMessage());
        assertEquals("--out needs a value", assertThrows(IllegalArgumentException.class,
                () -> DemoOptions.parse(List.of("--out"), CWD)).getMessage());
        assertEquals("--out needs a value", assertThrows(IllegalArgumentException.class,
                () -> DemoOptions.parse(List.of("--out", "--keep"), CWD)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> DemoOptions.parse(List.of("--rounds", "-1"), CWD));
        assertThrows(IllegalArgumentException.class, () -> DemoOptions.parse(List.of("--rounds", "x"), CWD));
    }

    @Test
    void helpPrintsTheUsageAndExitsZero() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = EpdDemo.run(new String[] {"--help"}, print(out), print(err), CWD);
        assertEquals(0, status);
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: mooncake demo epd"), out.toString());
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anUnknownOptionExitsTwoNamingItAndShowingTheUsage() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = EpdDemo.run(new String[] {"--model", "tiny", "--bogus"}, print(out), print(err), CWD);
        assertEquals(2, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("mooncake demo epd: unknown option --bogus\nusage:"),
                err.toString());
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing started, nothing said on stdout");
    }

    private static PrintStream print(ByteArrayOutputStream b) {
        return new PrintStream(b, true, StandardCharsets.UTF_8);
    }
}
