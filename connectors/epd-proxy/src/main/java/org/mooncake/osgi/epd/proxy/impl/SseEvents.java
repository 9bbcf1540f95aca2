package org.mooncake.osgi.epd.proxy.impl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The events of a worker's Server-Sent-Events answer, read ahead by one virtual thread so the
 * relaying thread can wait for the next one with a timeout.
 *
 * <p><b>Threads.</b> The reader thread owns the input stream while it parses and hands each
 * event's {@code data} over a small bounded queue (when the client reads slowly the reader blocks,
 * and so does the worker: TCP back-pressure, no unbounded buffering). The relaying thread owns
 * {@link #next}. {@link #close} may come from any thread: it closes the stream (the JDK client
 * then cancels the body subscription and closes the connection) and interrupts the reader.
 */
final class SseEvents implements AutoCloseable {

    /** What the reader found next. */
    sealed interface Item permits Data, End, Failed {
    }

    /** One event's data (several {@code data:} lines joined by a newline). */
    record Data(String data) implements Item {
        boolean done() {
            return "[DONE]".equals(data.strip());
        }
    }

    /** The stream ended cleanly. */
    record End() implements Item {
    }

    /** Reading failed. */
    record Failed(IOException error) implements Item {
    }

    private final InputStream in;
    private final int maxEventBytes;
    private final BlockingQueue<Item> queue = new ArrayBlockingQueue<>(32);
    private final Thread reader;
    private volatile boolean closed;

    SseEvents(InputStream in, int maxEventBytes, String name) {
        this.in = in;
        this.maxEventBytes = maxEventBytes;
        this.reader = Thread.ofVirtual().name("epd-proxy-sse-" + name).start(this::read);
    }

    /**
     * The next item, waiting at most {@code timeout}; TimeoutException when none came (the stream
     * stays open: the caller decides).
     */
    Item next(Duration timeout) throws TimeoutException, InterruptedException {
        Item item = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (item == null) {
            throw new TimeoutException("no event within " + timeout.toMillis() + " ms");
        }
        return item;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        reader.interrupt();
        try {
            in.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }

    private void read() {
        Item last;
        // buffered for parsing; close() closes the raw stream, which a blocked read cannot hold up
        InputStream buffered = new java.io.BufferedInputStream(in, 8192);
        try {
            StringBuilder data = null;
            ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            int eventBytes = 0;
            while (true) {
                int b = buffered.read();
                if (b < 0) {
                    if (data != null) {
                        put(new Data(data.toString()));
                    }
                    last = new End();
                    break;
                }
                if (b != '\n') {
                    line.write(b);
                    if (++eventBytes > maxEventBytes) {
                        throw new IOException("event larger than " + maxEventBytes + " bytes");
                    }
                    continue;
                }
                String text = line.toString(StandardCharsets.UTF_8);
                line.reset();
                if (text.endsWith("\r")) {
                    text = text.substring(0, text.length() - 1);
                }
                if (text.isEmpty()) {
                    if (data != null) {
                        put(new Data(data.toString()));
                    }
                    data = null;
                    eventBytes = 0;
                } else if (text.startsWith("data:")) {
                    String value = text.substring(text.startsWith("data: ") ? 6 : 5);
                    data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                }
                // comments (":"), event:, id: and retry: lines are not relayed
            }
        } catch (IOException e) {
            last = new Failed(e);
        } catch (InterruptedException e) {
            return; // closed by the relaying side
        }
        try {
            put(last);
        } catch (InterruptedException e) {
            // closed meanwhile
        }
    }

    private void put(Item item) throws InterruptedException {
        if (closed) {
            throw new InterruptedException("closed");
        }
        queue.put(item);
    }
}
