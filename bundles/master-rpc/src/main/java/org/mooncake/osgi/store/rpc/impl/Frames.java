package org.mooncake.osgi.store.rpc.impl;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * Framing of the master protocol: {@code magic:int32 "MCR1", length:int32, body[length]}, body
 * in CBOR. Anything else ends the connection it came on.
 */
final class Frames {
    static final int MAGIC = 0x4D43_5231;
    /**
     * 3: an object of more than one checksum chunk carries its chunk checksums, and its checksum is
     * theirs combined; LOOKUP_BATCH. 2: checksums are XXH3-64 {@code long}s (1: CRC32C {@code int}s).
     * Within 3, segment descriptors and stats gained {@code memoryKind} and master stats
     * {@code memoryKinds} (store.master 3.0): fields an older peer ignores, and whose absence from
     * an older peer reads as HOST and no figures, so the version did not change. Likewise later:
     * replica grants and segment grant keys (store.master 3.1); a request's relative
     * {@code timeoutMs}, a response's {@code serverTimeMs}, HELLO's {@code maxBatchKeys} and a batch
     * result's numeric {@code code}, each read by a newer peer when present and ignored by an older one.
     */
    static final int PROTOCOL_VERSION = 3;
    /**
     * The oldest version a master still serves: a client of version 2 works as before, except
     * that it is refused (INVALID_VERSION) the lease of an object written in chunks, whose
     * checksum it would take for corruption.
     */
    static final int OLDEST_SERVED_VERSION = 2;

    private Frames() {
    }

    static void write(DataOutputStream out, byte[] body) throws IOException {
        out.writeInt(MAGIC);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    static byte[] read(DataInputStream in, int maxBytes) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new BadFrame("bad magic " + Integer.toHexString(magic));
        }
        int length = in.readInt();
        if (length < 0 || length > maxBytes) {
            throw new BadFrame("frame of " + length + " bytes (limit " + maxBytes + ")");
        }
        // grown as the bytes arrive, not sized by the header: a peer that announces a large frame
        // and sends little holds little
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new EOFException("frame cut short: " + body.length + " of " + length + " bytes");
        }
        return body;
    }

    /** A frame broke the protocol. */
    static final class BadFrame extends IOException {
        private static final long serialVersionUID = 1L;

        BadFrame(String message) {
            super(message);
        }
    }
}
