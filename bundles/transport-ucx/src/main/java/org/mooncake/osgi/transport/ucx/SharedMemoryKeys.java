package org.mooncake.osgi.transport.ucx;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks a packed remote key before {@code ucp_ep_rkey_unpack} sees it: shared memory it names
 * (posix, sysv) that no longer exists fails the request here, because UCX cannot be allowed to fail.
 *
 * <p>UCX 1.13 (up to 1.18; fixed upstream in 1.19 by commit 8721af17d3, "UCP/RKEY: Keep md_map
 * consistent with tl_rkey") handles a key it cannot attach (posix: {@code shm_open} of a segment the
 * owner freed) by destroying the half-built key with the failed memory domain still in its map: the
 * failed slot (and any after it) still holds the handle of a key destroyed earlier, since keys come
 * from a memory pool. posix then {@code munmap}s that stale address and frees that stale pointer a
 * second time: a stray unmap and a double free in this process, which crashed the JVM later in
 * unrelated code (a C2 compiler thread). UCX logs it as "failed to unpack remote key" followed by a
 * failed munmap of a nonsense length, when it is lucky.
 *
 * <p>The packed key (ucp_rkey.c, 1.13): md_map u64, mem_type u8, then for each bit of md_map a
 * u8 size and that many bytes. A posix key is {@code seg_id u64, address u64, length u64} (+ the
 * directory where not {@code /dev/shm}), its seg_id flagged in its top bits; a sysv key is
 * {@code shmid u32, owner_ptr u64}. An entry is taken for one of them only if it has that shape and
 * describes memory at the address the request will access; anything else is left to UCX. What
 * remains: memory freed between this check and the unpack (microseconds) still meets the bug.
 */
final class SharedMemoryKeys {
    private static final long PROCFS = 1L << 63;
    private static final long SHM_OPEN = 1L << 62;
    private static final long PID_NS = 1L << 60;
    private static final long MMID_MASK = ~(0xFL << 60);
    private static final int POSIX_KEY = 24;
    private static final int SYSV_KEY = 12;
    private static final int PROCFS_BITS = 30;

    private SharedMemoryKeys() {
    }

    /** What shared memory {@code packed} names that is gone ("posix /dev/shm/..."), or null if none is known gone. */
    static String missing(byte[] packed, long address) {
        try {
            ByteBuffer b = ByteBuffer.wrap(packed).order(ByteOrder.nativeOrder());
            long mdMap = b.getLong();
            b.get(); // memory type
            for (int i = 0; i < Long.bitCount(mdMap); i++) {
                int size = Byte.toUnsignedInt(b.get());
                byte[] key = new byte[size];
                b.get(key);
                String gone = entry(ByteBuffer.wrap(key).order(ByteOrder.nativeOrder()), size, address);
                if (gone != null) {
                    return gone;
                }
            }
            return null;
        } catch (IOException | RuntimeException e) { // BufferUnderflowException among them
            return null; // not a key laid out as expected: UCX decides
        }
    }

    private static String entry(ByteBuffer k, int size, long address) throws IOException {
        if (size >= POSIX_KEY) {
            long segId = k.getLong(0);
            long base = k.getLong(8);
            long length = k.getLong(16);
            if (length <= 0 || Long.compareUnsigned(base, address) > 0 || Long.compareUnsigned(address - base,
                    length) >= 0) {
                return null; // not memory the request accesses
            }
            long mmid = segId & MMID_MASK;
            Path file;
            if ((segId & PROCFS) != 0) {
                if ((segId & PID_NS) != 0 || size != POSIX_KEY || (segId & SHM_OPEN) != 0) {
                    return null; // another PID namespace: not ours to look at
                }
                long pid = mmid & ((1L << PROCFS_BITS) - 1);
                long fd = mmid >>> PROCFS_BITS;
                file = Path.of("/proc/" + pid + "/fd/" + fd);
            } else if ((segId & SHM_OPEN) != 0) {
                if (size != POSIX_KEY) {
                    return null;
                }
                file = Path.of("/dev/shm/ucx_shm_posix_" + Long.toHexString(mmid));
            } else {
                int end = POSIX_KEY;
                while (end < size && k.get(end) != 0) {
                    end++;
                }
                if (end == POSIX_KEY || end == size || (segId & ~MMID_MASK) != 0) {
                    return null; // no directory: not a posix key
                }
                String dir = new String(k.array(), POSIX_KEY, end - POSIX_KEY, StandardCharsets.UTF_8);
                file = Path.of(dir + "/ucx_shm_posix_" + Long.toHexString(mmid));
            }
            // notExists: true only where the file is known to be gone (not where it cannot be looked at)
            return Files.notExists(file, LinkOption.NOFOLLOW_LINKS) ? "posix shared memory " + file : null;
        }
        if (size == SYSV_KEY) {
            long shmid = Integer.toUnsignedLong(k.getInt(0));
            long owner = k.getLong(4);
            if (owner == 0 || Long.compareUnsigned(owner, address) > 0 || address - owner >= (1L << 40)) {
                return null;
            }
            Path list = Path.of("/proc/sysvipc/shm");
            if (!Files.isReadable(list)) {
                return null;
            }
            List<String> lines = Files.readAllLines(list);
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 1 && f[1].equals(Long.toString(shmid))) {
                    return null;
                }
            }
            return "sysv shared memory id " + shmid;
        }
        return null;
    }
}
