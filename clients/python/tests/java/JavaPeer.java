import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.rpc.impl.RemoteMasterService;
import org.mooncake.osgi.transport.tcp.TcpTransport;

/**
 * The Java client, as ClusterIT drives it, for the Python tests: puts a file's bytes under a key
 * or gets a key's bytes into a file, over the master RPC and the tcp transport. Run as a source
 * file with the distribution's jars on the class path:
 * {@code java -cp JARS JavaPeer.java MASTER OP...}, each OP {@code put:KEY:FILE:REPLICAS} or
 * {@code get:KEY:FILE} (one JVM for several, since each start costs seconds). Exit status 0, or 3
 * with the failed OP and the store's ErrorCode name on stderr.
 */
public class JavaPeer {
    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        RemoteMasterService master = new RemoteMasterService(
                new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5000, 16 << 20);
        try (TcpTransport net = new TcpTransport(TcpTransport.loopback(4, 1 << 20, 10_000))) {
            EmbeddedStoreClient client = EmbeddedStoreClient.create(master, List.of(net), "java-peer-" + ProcessHandle.current().pid(),
                    "default", "tcp", InstantSource.system());
            for (int i = 1; i < args.length; i++) {
                String[] op = args[i].split(":");
                Path file = Path.of(op[2]);
                try {
                    if (op[0].equals("put")) {
                        client.put(op[1], Files.readAllBytes(file),
                                ReplicateConfig.builder().replicaCount(Integer.parseInt(op[3])).build());
                    } else {
                        Files.write(file, client.get(op[1]));
                    }
                } catch (StoreException e) {
                    System.err.println("\n" + args[i] + " " + e.errorCode() + ": " + e.getMessage());
                    System.exit(3);
                }
            }
        } finally {
            master.close();
        }
    }
}
