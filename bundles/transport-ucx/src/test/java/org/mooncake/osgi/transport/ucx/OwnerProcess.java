package org.mooncake.osgi.transport.ucx;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.mooncake.osgi.store.master.SegmentEndpoint;

/**
 * The owner of a segment in a process of its own, for {@link VanishedPeerProcessTest}: a storage
 * node as a peer meets it. Arguments: {@code tls timeoutMs size}. Creates a UcxTransport, allocates
 * and exposes segment "owned" of {@code size} bytes filled with {@link #pattern}, prints
 * {@code endpoint <protocol> <address> <segmentName>} on stdout, then serves commands from stdin:
 * {@code get <offset>} prints {@code byte <value>} (what the segment holds there, to see a peer's
 * WRITE arrive), {@code close} closes the transport and prints {@code closed} (the process stays,
 * the memory stays mapped); end of input or anything else ends the process.
 */
public final class OwnerProcess {
    static final String SEGMENT = "owned";

    private OwnerProcess() {
    }

    /** The byte at {@code offset} of the owner's segment as exposed. */
    static byte pattern(long offset) {
        return (byte) (offset * 31 + 7);
    }

    public static void main(String[] args) throws IOException {
        String tls = args[0];
        long timeoutMs = Long.parseLong(args[1]);
        long size = Long.parseLong(args[2]);
        Arena arena = Arena.ofShared(); // never closed: the memory outlives the transport, as in a store
        UcxTransport transport = new UcxTransport(UcxTransport.with(tls, timeoutMs, true));
        MemorySegment memory = transport.allocateSegment(SEGMENT, size, arena);
        for (long i = 0; i < size; i++) {
            memory.set(ValueLayout.JAVA_BYTE, i, pattern(i));
        }
        SegmentEndpoint ep = transport.expose(SEGMENT, memory);
        System.out.println("endpoint " + ep.protocol() + " " + ep.address() + " " + ep.segmentName());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null;) {
            if (line.equals("close")) {
                transport.close();
                System.out.println("closed");
            } else if (line.startsWith("get ")) {
                System.out.println("byte " + memory.get(ValueLayout.JAVA_BYTE, Long.parseLong(line.substring(4))));
            } else {
                break;
            }
            System.out.flush();
        }
        System.exit(0);
    }
}
