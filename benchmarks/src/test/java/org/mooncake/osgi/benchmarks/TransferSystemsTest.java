package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.mooncake.osgi.transport.local.LocalTransport;

class TransferSystemsTest {
    private static List<String> names(List<TransferSystem> systems) {
        return systems.stream().map(TransferSystem::name).toList();
    }

    /** The registry is the run's order, each name once; every goal's systems are among them. */
    @Test
    void theRegistryNamesEverySystemOnceInTheOrderARoundRuns() {
        List<String> names = names(TransferSystems.known());
        assertEquals(List.of("memcpy", "local", "shm", "tcp", "tcp-unchecked", "tcp-tls", "ucx-posix", "ucx-tcp", "redis",
                "ucx_perftest-posix", "ucx_perftest-tcp", "iperf3"), names);
        for (TransferGoals.Goal g : TransferGoals.GOALS) {
            for (String system : List.of(g.numerator().system(), g.denominator().system())) {
                assertTrue(names.contains(system.replaceFirst("-1$", "")), system);
            }
        }
    }

    /** {@code --systems} picks by name and keeps the registry's order; a name it does not know is refused with the known ones. */
    @Test
    void selectionKeepsTheRegistrysOrderAndRefusesUnknownNames() {
        List<TransferSystem> known = TransferSystems.known();
        assertEquals(List.of("memcpy", "local", "ucx_perftest-posix"),
                names(TransferSystems.select("--systems", "ucx_perftest-posix, local,memcpy,local", known)));
        assertEquals("--systems: unknown system 'ucx'; known: memcpy, local, shm, tcp, tcp-unchecked, tcp-tls, ucx-posix, "
                + "ucx-tcp, redis, ucx_perftest-posix, ucx_perftest-tcp, iperf3",
                assertThrows(BenchArgs.Mistake.class, () -> TransferSystems.select("--systems", "tcp,ucx", known))
                        .getMessage());
        assertTrue(assertThrows(BenchArgs.Mistake.class, () -> TransferSystems.select("--systems", "tcp,,shm", known))
                .getMessage().startsWith("--systems takes system names separated by commas, was 'tcp,,shm'; known: memcpy"));
        assertThrows(BenchArgs.Mistake.class, () -> TransferSystems.select("--systems", "", known));
    }

    /** A row of the store over a transport is a name and a factory; a factory that cannot make one here makes the row "not run". */
    @Test
    void aTransportRowIsANameAndAFactoryAndSaysWhenItCannotRun() throws Exception {
        TransferSystem broken = TransferSystem.transport("ucx-posix", "the store over ucx", () -> {
            throw new UnsatisfiedLinkError("no ucp in java.library.path");
        });
        assertEquals(Optional.empty(), broken.missing().get(), "asked cheaply, without making a transport");
        TransferSystem.Unavailable u = assertThrows(TransferSystem.Unavailable.class,
                () -> broken.starter().start(new TransferSystem.Rig(1, 1, 0)));
        assertTrue(u.getMessage().contains("no ucp in java.library.path"), u.getMessage());

        int[] made = {0};
        TransferSystem local = TransferSystem.transport("local2", "a second local row", () -> {
            made[0]++;
            return new LocalTransport();
        }, true);
        try (TransferSystem.Session s = local.starter().start(new TransferSystem.Rig(0.001, 1, 0))) {
            assertEquals(1, made[0], "one probe at the start");
            List<TransferBenchmark.Result> rows = s.measure(4096);
            assertEquals(List.of("put", "get"), rows.stream().map(TransferBenchmark.Result::op).toList());
            for (TransferBenchmark.Result r : rows) {
                assertEquals("local2", r.system());
                assertTrue(r.mibPerSecond() > 0 && r.ops() >= 3, r.toString());
            }
            assertEquals(2, made[0], "one instance shared by both peers");
        }
    }

    /**
     * The three tcp rows move objects through the store: grants checked (the store client mounts
     * its segment with a grant key, the master signs a grant per replica, the transport sends it),
     * not checked, and over TLS with certificates keytool made for the run.
     */
    @Test
    void theTcpRowsWithGrantsWithoutAndOverTlsMoveObjects() throws Exception {
        List<TransferSystem> tcp = TransferSystems.select("--systems", "tcp,tcp-unchecked,tcp-tls", TransferSystems.known());
        for (TransferSystem system : tcp) {
            try (TransferSystem.Session s = system.starter().start(new TransferSystem.Rig(0.0001, 1, 0))) {
                for (TransferBenchmark.Result r : s.measure(64 << 10)) {
                    assertEquals(system.name(), r.system());
                    assertTrue(r.mibPerSecond() > 0 && r.ops() >= 3, r.toString());
                }
            }
        }
    }

    @Test
    void systemNamesAreOneWord() {
        Transport t = new LocalTransport();
        assertThrows(IllegalArgumentException.class, () -> TransferSystem.transport("ucx posix", "", () -> t));
        assertThrows(IllegalArgumentException.class, () -> TransferSystem.transport("a,b", "", () -> t));
    }

    /** {@code --help}'s list says which systems cannot run here, and why. */
    @Test
    void theHelpListSaysWhatIsNotAvailableHere() {
        TransferSystem absent = UcxPerftest.system("ucx_perftest-posix", "posix,self", "/nonexistent/ucx_perftest");
        String list = TransferSystems.describe(List.of(TransferSystems.known().getFirst(), absent));
        assertTrue(list.contains("memcpy              MemorySegment.copy"), list);
        assertTrue(list.contains("NOT AVAILABLE HERE: /nonexistent/ucx_perftest not installed (apt-get install ucx-utils)"),
                list);
        assertEquals(3, list.lines().count(), list);
    }
}
