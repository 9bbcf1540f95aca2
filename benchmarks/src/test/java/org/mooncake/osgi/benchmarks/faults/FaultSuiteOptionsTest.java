package org.mooncake.osgi.benchmarks.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.benchmarks.BenchArgs;

class FaultSuiteOptionsTest {
    private static final Path DIST = Path.of("dist");

    @Test
    void optionsAreReadAndDefaulted() {
        FaultSuite.Options o = FaultSuite.parse(new String[] {"--faults", "12", "--kinds", "storage-kill,clock-jump",
            "--seed", "5", "--out", "x"}, DIST);
        assertEquals(12, o.faults());
        assertEquals(List.of(FaultKind.STORAGE_KILL, FaultKind.CLOCK_JUMP), o.kinds());
        assertEquals(5, o.seed());
        assertEquals(Path.of("x"), o.out());
        assertEquals(List.of(FaultKind.values()), FaultSuite.parse(new String[0], DIST).kinds());
    }

    @Test
    void aBadCommandLineSaysWhatIsWrong() {
        BenchArgs.Mistake kind = assertThrows(BenchArgs.Mistake.class,
                () -> FaultSuite.parse(new String[] {"--kinds", "storage-kill,meteor"}, DIST));
        assertTrue(kind.getMessage().contains("meteor") && kind.getMessage().contains("master-restart"), kind.getMessage());
        assertThrows(BenchArgs.Mistake.class, () -> FaultSuite.parse(new String[] {"--faults", "0"}, DIST));
        assertThrows(BenchArgs.Mistake.class, () -> FaultSuite.parse(new String[] {"--soak", "-1"}, DIST));
        assertThrows(BenchArgs.Mistake.class, () -> FaultSuite.parse(new String[] {"--faults"}, DIST));
        assertThrows(BenchArgs.Help.class, () -> FaultSuite.parse(new String[] {"--help"}, DIST));
    }
}
