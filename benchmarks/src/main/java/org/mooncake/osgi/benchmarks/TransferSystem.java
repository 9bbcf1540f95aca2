package org.mooncake.osgi.benchmarks;

import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

import org.mooncake.osgi.benchmarks.TransferBenchmark.Result;
import org.mooncake.osgi.store.spi.transport.Transport;

/**
 * One system {@code mooncake bench transfer} can measure, an entry of {@link TransferSystems}'
 * registry: the name that {@code --systems} takes and the report's rows carry, a line about it
 * for {@code --help}, the command lines it runs (printed in the report), why it cannot run here
 * (a program not installed) if it cannot, and how to start it.
 *
 * <p>A run {@linkplain Starter#start starts} each selected system once, asks the
 * {@link Session} for each size in each round (or once per round, for a system that is not
 * {@link #perSize}, such as iperf3's streams), and closes it at the end. The store over a
 * transport is the common case: {@link #transport} makes such an entry from a name and a
 * {@code Supplier<Transport>}.
 *
 * @param name     on the command line and in the results (no spaces or commas)
 * @param about    one line for {@code --help}
 * @param commands the external command lines it runs, exactly as run (placeholders in capitals); empty for
 *                 in-process systems
 * @param missing  why it cannot run on this machine, or empty; asked before it starts, cheaply (no
 *                 process started)
 * @param perSize  measured for each size (true) or once per round (false, its results have size 0)
 * @param starter  sets it up for the run
 */
public record TransferSystem(String name, String about, List<String> commands, Supplier<Optional<String>> missing,
        boolean perSize, Starter starter) {

    public TransferSystem {
        if (name.isBlank() || name.contains(",") || name.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("a system's name is one word without commas: '" + name + "'");
        }
        commands = List.copyOf(commands);
    }

    /** Sets a system up for a run; throws {@link Unavailable} when it finds it cannot run here. */
    @FunctionalInterface
    public interface Starter {
        Session start(Rig rig) throws Exception;
    }

    /** A started system: measures, then is closed once at the end of the run (also after a failure). */
    public interface Session extends AutoCloseable {
        /**
         * This system's results for one object size in this round ({@code size} 0 for a system that
         * is not {@link TransferSystem#perSize}); each a row of the report.
         */
        List<Result> measure(long size) throws Exception;

        @Override
        default void close() throws Exception {
        }
    }

    /** The system cannot run on this machine: reported as "not run" with this reason, not as a failure. */
    public static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        public Unavailable(String reason) {
            super(reason);
        }
    }

    /**
     * What a run gives each system: how many operations a size gets and how long to warm up.
     *
     * @param scale         the share of each size's operations to run ({@code --scale})
     * @param rounds        the rounds they are split into ({@code --rounds})
     * @param warmUpSeconds unrecorded operations before each measurement last at least this long ({@code --warmup})
     */
    public record Rig(double scale, int rounds, double warmUpSeconds) {
        /**
         * Operations per round for one size. Small objects get many operations: with 2,000 at
         * 64 KiB (1,000 to warm up) parts of the path were still interpreted or C1 code, and shm
         * read 6.9x memcpy instead of ~3.5x; with 20,000 a shm run lasted 60 ms, so one young GC
         * pause moved its mean by a tenth. The run's operations are split over its rounds, so more
         * rounds take little longer.
         */
        public int ops(long size) {
            int n = size <= 64 << 10 ? 100_000 : size <= 1 << 20 ? 3_000 : size < 100_000_000 ? 20 : 6;
            return Math.max(3, (int) Math.ceil(n * scale / rounds));
        }

        /**
         * Unrecorded operations before a measurement: at least {@code minOps} and at least
         * {@link #warmUpSeconds}, so that the JIT has compiled the path (Redis and ucx_perftest,
         * the peers here, are native code and need none). A count alone was not enough: shm at
         * 64 KiB ran 8.5 µs at p50 after 15,000 operations and 2.8 µs after 100,000.
         */
        public void warmUp(int minOps, IntConsumer op) {
            long until = System.nanoTime() + (long) (warmUpSeconds * 1e9);
            for (int i = 0; i < minOps || System.nanoTime() < until; i++) {
                op.accept(i);
            }
        }
    }

    /**
     * The store over one transport: a storage node and a pure client, each with an instance of
     * its own from {@code factory}, share an in-process master, and each operation is a put, a get
     * and a remove of one object (rows {@code put} and {@code get}). The factory is called once
     * when the run starts to see that the transport can be made here (a native library missing
     * makes the row "not run" with the exception's message), then twice per size and round.
     */
    public static TransferSystem transport(String name, String about, Supplier<Transport> factory) {
        return transport(name, about, factory, false);
    }

    /**
     * As {@link #transport(String, String, Supplier)}; with {@code onePeer} the storage node and
     * the client share one instance (in-process copies, which need the JVM's one registry).
     */
    public static TransferSystem transport(String name, String about, Supplier<Transport> factory, boolean onePeer) {
        return new TransferSystem(name, about, List.of(), Optional::empty, true, rig -> {
            Transport probe;
            try {
                probe = factory.get();
            } catch (RuntimeException | LinkageError e) {
                throw new Unavailable("its transport cannot be made here: " + e);
            }
            if (probe instanceof AutoCloseable c) {
                c.close();
            }
            return size -> StoreRow.measure(name, factory, onePeer, size, rig);
        });
    }
}
