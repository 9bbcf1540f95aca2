package org.mooncake.osgi.store.rpc.impl;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * A connection that writes request frames itself, as any program may: it names whatever tenant
 * and client id it likes, which the Java client never does. Over TLS with the given context
 * (its certificate is who it is), or in plain text when the context is null.
 */
final class RawTlsClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private long ids;

    RawTlsClient(int port, SSLContext tls) throws IOException {
        if (tls == null) {
            socket = new Socket("127.0.0.1", port);
        } else {
            SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port);
            s.setSSLParameters(ClusterTls.parameters(tls, false));
            socket = s;
        }
        socket.setSoTimeout(10_000);
        if (socket instanceof SSLSocket s) {
            s.startHandshake();
        }
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** Connects and says HELLO; fails with an IOException when the server refuses the connection. */
    static RawTlsClient greeted(int port, SSLContext tls) throws IOException {
        RawTlsClient c = new RawTlsClient(port, tls);
        try {
            Messages.Response hello = c.call("HELLO", Frames.PROTOCOL_VERSION);
            if (hello.code() != 0) {
                throw new IOException("HELLO refused: " + hello.message());
            }
            return c;
        } catch (IOException e) {
            c.close();
            throw e;
        }
    }

    /** One request frame with these positional arguments, and the response frame to it. */
    Messages.Response call(String op, Object... args) throws IOException {
        ArrayNode a = Messages.CBOR.createArrayNode();
        for (Object v : args) {
            a.add(Messages.CBOR.valueToTree(v));
        }
        Frames.write(out, Messages.CBOR.writeValueAsBytes(new Messages.Request(++ids, op, 0, a)));
        return Messages.CBOR.readValue(Frames.read(in, 1 << 20), Messages.Response.class);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
