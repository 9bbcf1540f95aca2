package org.mooncake.osgi.store.rpc.impl;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A master of another version on one loopback port: answers each request (HELLO included) on every
 * connection with what {@code answer} makes of it, and keeps every request it read.
 */
final class StandInMaster implements AutoCloseable {
    private final ServerSocket socket;
    private final Function<Messages.Request, Messages.Response> answer;
    private final List<Messages.Request> requests = new CopyOnWriteArrayList<>();

    StandInMaster(Function<Messages.Request, Messages.Response> answer) throws IOException {
        this.answer = answer;
        socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    /** A HELLO answered as a master of version 3 before it told its batch limit. */
    static Messages.Response olderHello(Messages.Request hello) {
        return new Messages.Response(hello.id(), 0, null, Messages.CBOR.valueToTree(Frames.PROTOCOL_VERSION));
    }

    InetSocketAddress address() {
        return new InetSocketAddress(socket.getInetAddress(), socket.getLocalPort());
    }

    /** The requests read so far, HELLO included, in order. */
    List<Messages.Request> requests() {
        return List.copyOf(requests);
    }

    private void accept() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            while (true) {
                Messages.Request r = Messages.CBOR.readValue(Frames.read(in, 64 << 20), Messages.Request.class);
                requests.add(r);
                Frames.write(out, Messages.CBOR.writeValueAsBytes(answer.apply(r)));
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
