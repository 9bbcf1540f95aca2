package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One connection's byte stream, plain ({@link PlainLink}: the channel itself, gathering writes
 * and reads straight into segment memory) or TLS ({@link TlsLink}). Frames are coded once, in
 * {@link Wire}, over either. Closing the channel from another thread (a timeout, a shutdown)
 * fails whatever blocks on either kind.
 */
interface Link extends AutoCloseable {

    /** {@code head}, then all of {@code payload} when not null. */
    void write(ByteBuffer head, MemorySegment payload) throws IOException;

    /** Fills {@code b} from the stream and returns it flipped; an end of stream first is an EOFException. */
    ByteBuffer readFully(ByteBuffer b) throws IOException;

    /** Fills all of {@code into} from the stream. */
    void receive(MemorySegment into) throws IOException;

    /** Polls for up to {@code spinNanos} for the next byte before the caller's blocking read (see {@link Wire#awaitReadable}). */
    void awaitReadable(long spinNanos) throws IOException;

    /** The connection under the stream: closing it ends the link. */
    SocketChannel channel();

    @Override
    default void close() throws IOException {
        channel().close();
    }

    static Link plain(SocketChannel channel) {
        return new PlainLink(channel);
    }
}
