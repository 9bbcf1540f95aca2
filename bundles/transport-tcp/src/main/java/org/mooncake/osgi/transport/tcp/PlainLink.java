package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A plain TCP link: a frame and its payload leave in one gathering write, and payloads move
 * between the socket and native segment memory with no copy in between.
 */
final class PlainLink implements Link {
    private final SocketChannel channel;
    /** The channel's stream, only to ask whether bytes are waiting; made at the first poll. */
    private InputStream polled;

    PlainLink(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void write(ByteBuffer head, MemorySegment payload) throws IOException {
        if (payload == null || payload.byteSize() > Integer.MAX_VALUE || !Wire.viewable(payload)) {
            Wire.writeFully(channel, head);
            if (payload != null) {
                Wire.send(channel, payload);
            }
            return;
        }
        ByteBuffer[] both = {head, payload.asByteBuffer()};
        while (both[1].hasRemaining()) {
            channel.write(both);
        }
    }

    @Override
    public ByteBuffer readFully(ByteBuffer b) throws IOException {
        return Wire.readFully(channel, b);
    }

    @Override
    public void receive(MemorySegment into) throws IOException {
        Wire.receive(channel, into);
    }

    @Override
    public void awaitReadable(long spinNanos) throws IOException {
        if (spinNanos <= 0) {
            return;
        }
        if (polled == null) {
            polled = channel.socket().getInputStream();
        }
        Wire.awaitReadable(polled, spinNanos);
    }

    @Override
    public SocketChannel channel() {
        return channel;
    }
}
