import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.InstantSource;
import java.util.List;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.rpc.impl.RemoteMasterService;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * The Java client's side of {@code clients/python/bench.py}: {@code putFrom} / {@code getInto} over
 * the master RPC and the tcp transport, one thread and one connection per peer, as the Python
 * client is timed. Run as a source file with the distribution's jars on the class path:
 * {@code java -cp JARS JavaBench.java MASTER CHUNK_BYTES}; then each stdin line
 * {@code SIZE COUNT PREFIX} puts COUNT objects of SIZE bytes under PREFIX-i and gets them back,
 * answering {@code PUT_NANOS GET_NANOS} on stdout (one JVM for every run: its JIT stays warm).
 */
public class JavaBench {
    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        int chunkBytes = Integer.parseInt(args[1]);
        RemoteMasterService master = new RemoteMasterService(
                new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5000, 16 << 20);
        try (TcpTransport net = new TcpTransport(TcpTransport.loopback(1, chunkBytes, 30_000));
                Arena arena = Arena.ofShared()) {
            EmbeddedStoreClient client = EmbeddedStoreClient.create(master, List.of(net),
                    "java-bench-" + ProcessHandle.current().pid(), "default", "tcp", InstantSource.system());
            ReplicateConfig one = ReplicateConfig.builder().replicaCount(1).build();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
            System.out.println("ready");
            for (String line; (line = in.readLine()) != null;) {
                String[] f = line.trim().split(" ");
                long size = Long.parseLong(f[0]);
                int count = Integer.parseInt(f[1]);
                MemorySegment source = arena.allocate(size);
                MemorySegment target = arena.allocate(size);
                for (long i = 0; i < size; i += 8) {
                    source.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    client.putFrom(f[2] + "-" + i, source, one);
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < count; i++) {
                    client.getInto(f[2] + "-" + i, target);
                }
                long t2 = System.nanoTime();
                System.out.println((t1 - t0) + " " + (t2 - t1));
            }
        } finally {
            master.close();
        }
    }
}
