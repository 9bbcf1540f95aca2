package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

/** Parsing a worker's event stream. */
class SseEventsTest {
    static final Duration WAIT = Duration.ofSeconds(5);

    static SseEvents of(String text, int max) {
        return new SseEvents(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), max, "test");
    }

    @Test
    void dataLinesCommentsAndLineEndings() throws Exception {
        try (SseEvents events = of(": keep-alive\r\ndata: {\"a\":1}\r\n\r\nevent: x\nid: 7\ndata:one\ndata: two\n\n"
                + "data: [DONE]\n\n", 1024)) {
            assertEquals(new SseEvents.Data("{\"a\":1}"), events.next(WAIT));
            assertEquals(new SseEvents.Data("one\ntwo"), events.next(WAIT));
            SseEvents.Data done = (SseEvents.Data) events.next(WAIT);
            assertTrue(done.done());
            assertInstanceOf(SseEvents.End.class, events.next(WAIT));
        }
    }

    @Test
    void anEventLargerThanTheLimitFailsTheStream() throws Exception {
        try (SseEvents events = of("data: " + "x".repeat(100) + "\n\n", 50)) {
            assertInstanceOf(SseEvents.Failed.class, events.next(WAIT));
        }
    }

    @Test
    void waitingIsBoundedAndCloseStopsTheReader() throws Exception {
        PipedOutputStream writer = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(writer);
        SseEvents events = new SseEvents(in, 1024, "piped");
        writer.write("data: a\n\n".getBytes(StandardCharsets.UTF_8));
        writer.flush();
        assertEquals(new SseEvents.Data("a"), events.next(WAIT));
        assertThrows(TimeoutException.class, () -> events.next(Duration.ofMillis(50)));
        events.close();
    }
}
