package org.mooncake.osgi.transport.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A TLS link: the JDK's SSLSocket layered over the connection's channel. Bytes pass through one
 * buffer of {@value #PIECE} bytes a link, copied from or into segment memory a piece at a time;
 * a frame's header and the first piece of its payload go to the TLS layer in one write. Used by
 * one thread at a time, as every link is.
 */
final class TlsLink implements Link {
    static final int PIECE = 256 << 10;
    private final SocketChannel channel;
    private final SSLSocket ssl;
    private final InputStream in;
    private final OutputStream out;
    /** The channel's own stream: whether ciphertext is waiting, for {@link #awaitReadable}. */
    private final InputStream raw;
    private final byte[] buffer = new byte[PIECE];
    private final MemorySegment bufferMemory = MemorySegment.ofArray(buffer);

    private TlsLink(SocketChannel channel, SSLSocket ssl) throws IOException {
        this.channel = channel;
        this.ssl = ssl;
        this.in = ssl.getInputStream();
        this.out = ssl.getOutputStream();
        this.raw = channel.socket().getInputStream();
    }

    /**
     * TLS over a connected channel, handshaken within {@code handshakeTimeoutMs}: the server end
     * requires the peer's certificate, and either end fails unless the other's chains to the
     * cluster CA ({@link DataPathTls}).
     */
    static TlsLink open(SSLContext context, SocketChannel channel, boolean server, int handshakeTimeoutMs)
            throws IOException {
        Socket plain = channel.socket();
        SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(plain,
                plain.getInetAddress().getHostAddress(), plain.getPort(), true);
        ssl.setUseClientMode(!server);
        ssl.setSSLParameters(DataPathTls.parameters(context, server));
        plain.setSoTimeout(handshakeTimeoutMs);
        ssl.startHandshake();
        plain.setSoTimeout(0); // from here on the requester's sweep, or the peer's close, ends a stuck link
        return new TlsLink(channel, ssl);
    }

    /** The session's protocol, for tests and logs. */
    String protocol() {
        return ssl.getSession().getProtocol();
    }

    @Override
    public void write(ByteBuffer head, MemorySegment payload) throws IOException {
        int n = head.remaining();
        head.get(buffer, 0, n);
        long size = payload == null ? 0 : payload.byteSize();
        long off = 0;
        do {
            int take = (int) Math.min(buffer.length - n, size - off);
            if (take > 0) {
                MemorySegment.copy(payload, off, bufferMemory, n, take);
                off += take;
                n += take;
            }
            out.write(buffer, 0, n);
            n = 0;
        } while (off < size);
        out.flush();
    }

    @Override
    public ByteBuffer readFully(ByteBuffer b) throws IOException {
        int want = b.remaining();
        if (in.readNBytes(b.array(), b.arrayOffset() + b.position(), want) < want) {
            throw new EOFException("peer closed the connection");
        }
        b.position(b.limit());
        return b.flip();
    }

    @Override
    public void receive(MemorySegment into) throws IOException {
        for (long off = 0; off < into.byteSize();) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, into.byteSize() - off));
            if (n < 0) {
                throw new EOFException("peer closed the connection");
            }
            MemorySegment.copy(bufferMemory, 0, into, off, n);
            off += n;
        }
    }

    /** Decrypted bytes already buffered, or ciphertext waiting in the kernel, end the poll. */
    @Override
    public void awaitReadable(long spinNanos) throws IOException {
        if (spinNanos <= 0 || in.available() > 0) {
            return;
        }
        Wire.awaitReadable(raw, spinNanos);
    }

    @Override
    public SocketChannel channel() {
        return channel;
    }
}
