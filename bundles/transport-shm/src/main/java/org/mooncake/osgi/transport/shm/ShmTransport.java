package org.mooncake.osgi.transport.shm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.mooncake.osgi.store.memory.HostIdentity;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.memory.Checksums;
import org.mooncake.osgi.store.memory.MemoryCopy;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;
import org.mooncake.osgi.store.spi.transport.Transport;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Segments as shared files ({@code /dev/shm}) mapped with FFM by their owner and by every
 * process on the same host that reads or writes them: a transfer is a single copy between two
 * mappings, completed when {@link #submit} returns. The endpoint names the host, so processes on
 * other hosts never try (they use tcp).
 */
@Component(service = Transport.class, property = Transport.PROTOCOL_PROPERTY + "=" + ShmTransport.PROTOCOL,
        configurationPid = ShmTransport.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = ShmTransport.Config.class)
public final class ShmTransport implements Transport, AutoCloseable {
    public static final String PROTOCOL = "shm";
    public static final String PID = "org.mooncake.osgi.transport.shm";
    private static final System.Logger LOG = System.getLogger(ShmTransport.class.getName());

    @ObjectClassDefinition(name = "Mooncake shared-memory transport")
    public @interface Config {
        @AttributeDefinition(description = "Folder of the segment files; a tmpfs such as /dev/shm keeps them in memory")
        String directory() default "/dev/shm";
    }

    /** Settings outside ConfigAdmin (tests, embedding): segment files in {@code directory}. */
    public static Config in(String directory) {
        return new Config() {
            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return Config.class;
            }

            @Override
            public String directory() {
                return directory;
            }
        };
    }

    /** A segment this process allocated: its file, the owner's mapping and its control page. */
    private record Owned(Path file, MemorySegment memory, ControlPage control, OwnerLock lock) {
    }

    /**
     * A peer's mapping of a segment file, by endpoint address: the segment and its control page,
     * in an arena of their own, unmapped once the segment is seen withdrawn.
     */
    private record Peer(Arena arena, MemorySegment memory, ControlPage control) {
        /** Unmaps; false while another thread is inside the memory in a way that pins it (a checksum). */
        boolean unmap() {
            try {
                arena.close();
                return true;
            } catch (IllegalStateException pinned) {
                return false;
            }
        }
    }

    private final Path directory;
    /** This host's identity and the separator, the prefix of every address it serves. */
    private final String hostPrefix = HostIdentity.get() + "|";
    private final ConcurrentMap<String, Owned> owned = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Peer> mapped = new ConcurrentHashMap<>();
    /** Withdrawn peers' mappings that were still pinned when seen withdrawn: unmapped later. */
    private final java.util.Queue<Peer> unmapLater = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** The owner's control pages: they live as long as this transport. */
    private final Arena mappings = Arena.ofShared();

    private final String configuredDirectory;

    @Activate
    public ShmTransport(Config c) {
        configuredDirectory = c.directory();
        Path dir = Path.of(c.directory());
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            dir = Path.of(System.getProperty("java.io.tmpdir"));
            LOG.log(Level.WARNING, "{0} is not a writable folder; shm segments go to {1}", c.directory(), dir);
        }
        this.directory = dir;
        OwnerLock.removeOrphans(dir);
    }

    /**
     * A new directory is read at the next start only: without this DS would restart the
     * transport, and a client whose segment it serves with it, withdrawing the segment and every
     * object in it.
     */
    @Modified
    void modified(Config c) {
        if (!c.directory().equals(configuredDirectory)) {
            LOG.log(Level.WARNING, "shm transport: directory {0} applies when the transport restarts (restart bundle "
                    + "org.mooncake.osgi.transport.shm); the restart withdraws the segments it serves and the objects "
                    + "in them. Segment files stay in {1} until then", c.directory(), directory);
        }
    }

    /** Its copies are {@link MemoryCopy}'s: one pass where the native kernel runs here. */
    @Override
    public boolean checksumsInOnePass() {
        return Checksums.copiesInOnePass();
    }

    @Override
    public String protocol() {
        return PROTOCOL;
    }

    /**
     * A file of the segment's size plus one {@link ControlPage} at its end; the segment itself is
     * mapped in {@code arena}, the control page in this transport's, so that withdrawing works
     * even after the owner let go of the memory. The file and its lock are created readable and
     * writable by this user only ({@link OwnerOnlyFiles}): peers on the host map it as the same user.
     *
     * <p>The file is written full of zeros before it is mapped, so that every page is backed: a
     * sparse file on a tmpfs that fills up (Docker gives {@code /dev/shm} 64 MB by default) would
     * fault on a later write with SIGBUS, which a Java copy turns into an {@code InternalError}
     * but which ends the process inside the native copy kernel. Written through the channel, a
     * full file system is an {@code IOException} here instead: the segment fails now, whole, with
     * the remedy named, and leaves no file.
     */
    @Override
    public MemorySegment allocateSegment(String segmentName, long sizeBytes, Arena arena) {
        long fileBytes = sizeBytes + ControlPage.SIZE;
        try {
            long usable = Files.getFileStore(directory).getUsableSpace();
            if (fileBytes > usable) {
                throw new UncheckedIOException(new IOException(noRoom(sizeBytes, usable)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot tell the free space of " + directory, e);
        }
        Path file = directory.resolve("mooncake-" + UUID.randomUUID() + ".seg");
        OwnerLock lock;
        try {
            lock = OwnerLock.take(file); // first: a segment file never exists unclaimed
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the owner lock of shared segment file " + file, e);
        }
        try (FileChannel ch = OwnerOnlyFiles.createNew(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            backEveryPage(ch, fileBytes, sizeBytes);
            MemorySegment memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, sizeBytes, arena);
            ControlPage control = ControlPage.create(ch.map(FileChannel.MapMode.READ_WRITE, sizeBytes, ControlPage.SIZE,
                    mappings));
            owned.put(segmentName, new Owned(file, memory, control, lock));
            return memory;
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            lock.release();
            throw new UncheckedIOException("cannot create shared segment file " + file, e);
        }
    }

    /** Writes zeros over the whole file, a MiB at a time; a full file system says so by name. */
    private void backEveryPage(FileChannel ch, long fileBytes, long sizeBytes) throws IOException {
        java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocateDirect(1 << 20);
        try {
            for (long off = 0; off < fileBytes;) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), fileBytes - off));
                off += ch.write(zeros, off);
            }
        } catch (IOException full) {
            throw new IOException(noRoom(sizeBytes, Files.getFileStore(directory).getUsableSpace()), full);
        }
    }

    private String noRoom(long sizeBytes, long usable) {
        return "no room in " + directory + " for a shared segment of " + sizeBytes + " bytes (" + usable
                + " bytes free): give it more (docker run --shm-size), mount fewer or smaller segments, or set "
                + PID + " directory";
    }

    @Override
    public SegmentEndpoint expose(String segmentName, MemorySegment memory) {
        Owned o = owned.get(segmentName);
        if (o == null || o.memory.address() != memory.address()) {
            throw new IllegalArgumentException("shm can expose only segments it allocated (" + segmentName + ")");
        }
        return new SegmentEndpoint(PROTOCOL, hostPrefix + o.file, segmentName);
    }

    @Override
    public void withdraw(String segmentName) {
        Owned o = owned.remove(segmentName);
        if (o != null) {
            o.control.withdraw(); // peers that mapped it refuse it from their next request on
            try {
                Files.deleteIfExists(o.file);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "cannot delete {0}: {1}", o.file, e);
            }
            o.lock.release();
        }
    }

    /** One copy between two mappings of a file on this host. */
    @Override
    public int cost(SegmentEndpoint endpoint) {
        return COST_SHARED_MEMORY;
    }

    @Override
    public boolean canReach(SegmentEndpoint endpoint) {
        return PROTOCOL.equals(endpoint.protocol()) && endpoint.address().startsWith(hostPrefix);
    }

    @Override
    public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
        return MemoryCopy.each(batch, this::run);
    }

    private TransferStatus run(TransferRequest r) {
        if (!canReach(r.remote())) {
            return TransferStatus.failed("segment " + r.remote().segmentName() + " is on another host");
        }
        String address = r.remote().address();
        try {
            Peer p = mapped.get(address);
            if (p == null) {
                p = map(address);
            }
            if (p.control.withdrawn()) {
                if (mapped.remove(address, p)) {
                    unmap(p);
                }
                return TransferStatus.failed(address + " (segment withdrawn)");
            }
            return MemoryCopy.run(r, p.memory);
        } catch (IOException e) {
            return TransferStatus.failed(e.toString());
        } catch (IllegalStateException unmapped) {
            // another thread saw it withdrawn and unmapped it between our look-up and our read
            return TransferStatus.failed(address + " (segment withdrawn)");
        }
    }

    /** Maps a segment file once per peer; a file without a valid control page is refused. */
    private Peer map(String address) throws IOException {
        Path file = Path.of(address.substring(hostPrefix.length()));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = ch.size() - ControlPage.SIZE;
            if (size < 0) {
                throw new IOException(file + " is not a shm segment file (too short)");
            }
            Arena arena = Arena.ofShared();
            Peer fresh;
            try {
                ControlPage control = ControlPage.open(ch.map(FileChannel.MapMode.READ_WRITE, size, ControlPage.SIZE, arena),
                        file);
                fresh = new Peer(arena, ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena), control);
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
            Peer raced = mapped.putIfAbsent(address, fresh);
            if (raced != null) {
                fresh.unmap();
                return raced;
            }
            return fresh;
        } catch (NoSuchFileException gone) {
            throw new NoSuchFileException(file + " (segment withdrawn)");
        }
    }

    @Deactivate
    @Override
    public void close() {
        owned.keySet().forEach(this::withdraw);
        mapped.values().forEach(Peer::unmap);
        mapped.clear();
        unmapLater.forEach(Peer::unmap);
        unmapLater.clear();
        mappings.close();
    }

    /**
     * Unmaps a withdrawn segment, now or (if a transfer still pins it) at a later withdrawal; a
     * copy still running in it fails cleanly, as any transfer against a withdrawn segment does.
     */
    private void unmap(Peer withdrawn) {
        unmapLater.removeIf(Peer::unmap);
        if (!withdrawn.unmap()) {
            unmapLater.add(withdrawn);
        }
    }
}
