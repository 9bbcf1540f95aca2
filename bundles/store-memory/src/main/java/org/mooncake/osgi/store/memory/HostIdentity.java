package org.mooncake.osgi.store.memory;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which host (and boot) this is: processes can share memory only if they agree on it. Transports
 * that reach segments through shared memory (shm, ucx) put it in their endpoints and compare it.
 * Machine id, boot id and host name; never contains {@code '|'}, so it can lead an address.
 */
public final class HostIdentity {
    private static final String ID = compute();

    private HostIdentity() {
    }

    public static String get() {
        return ID;
    }

    private static String compute() {
        StringBuilder id = new StringBuilder();
        for (String f : new String[] {"/etc/machine-id", "/proc/sys/kernel/random/boot_id"}) {
            try {
                id.append(Files.readString(Path.of(f)).trim());
            } catch (IOException | RuntimeException e) {
                // not Linux, or not readable: the host name below still separates hosts
            }
        }
        try {
            id.append('@').append(InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            id.append("@localhost");
        }
        return id.toString().replace('|', '_');
    }
}
