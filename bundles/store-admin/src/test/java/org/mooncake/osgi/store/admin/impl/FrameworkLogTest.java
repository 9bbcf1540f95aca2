package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.log.LogService;

class FrameworkLogTest {
    /** With no bundle, entries are written under this name. */
    private final Logger osgi = Logger.getLogger("osgi");
    private final List<LogRecord> written = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            written.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        osgi.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        osgi.removeHandler(capture);
    }

    private record Entry(int level, String message, Throwable exception, long time) implements LogEntry {
        @Override
        public Bundle getBundle() {
            return null;
        }

        @Override
        public ServiceReference getServiceReference() {
            return null;
        }

        @Override
        public int getLevel() {
            return level;
        }

        @Override
        public String getMessage() {
            return message;
        }

        @Override
        public Throwable getException() {
            return exception;
        }

        @Override
        public long getTime() {
            return time;
        }
    }

    /** What the Log Service does to an exception it keeps: "class: message" at every level of the chain. */
    private static RuntimeException wrapped(String said, Throwable cause) {
        return new RuntimeException(said, cause);
    }

    @Test
    void aLineCarriesTheCausesWordsWithoutTheWrappersThatSayNothing() {
        Throwable chain = wrapped("java.lang.reflect.InvocationTargetException: null",
                wrapped("java.lang.IllegalArgumentException: data_type: unknown data type NOPE",
                        wrapped("org.mooncake.osgi.store.api.StoreException: unknown data type NOPE", null)));
        assertEquals("[TypeRuleConfiguration(10)] : Error during instantiation"
                + " <- java.lang.IllegalArgumentException: data_type: unknown data type NOPE"
                + " <- org.mooncake.osgi.store.api.StoreException: unknown data type NOPE",
                FrameworkLog.line("[TypeRuleConfiguration(10)] : Error during instantiation", chain));
        assertEquals("java.lang.NumberFormatException: For input string: \"x\"",
                FrameworkLog.line(null, new RuntimeException(new NumberFormatException("For input string: \"x\""))));
        assertEquals("plain", FrameworkLog.line("plain", null));
    }

    @Test
    void warningsAndErrorsAreWrittenAtTheirLevelAndTheRestIsNot() {
        FrameworkLog.write(new Entry(LogService.LOG_ERROR, "failed", new IllegalStateException("why"), 1));
        FrameworkLog.write(new Entry(LogService.LOG_WARNING, "careful", null, 2));
        FrameworkLog.write(new Entry(LogService.LOG_INFO, "ServiceEvent REGISTERED", null, 3));
        FrameworkLog.write(new Entry(LogService.LOG_DEBUG, "detail", null, 4));
        assertEquals(2, written.size(), written.toString());
        assertEquals(Level.SEVERE, written.get(0).getLevel());
        assertEquals("failed <- why", written.get(0).getMessage());
        assertEquals(Level.WARNING, written.get(1).getLevel());
        assertEquals("careful", written.get(1).getMessage());
    }

    @Test
    void aReaderIsListenedToAndItsEarlierWarningsAreWrittenOldestFirst() {
        List<LogListener> listeners = new ArrayList<>();
        long now = System.currentTimeMillis();
        List<LogEntry> history = List.of( // as the Log Service keeps it: newest first
                new Entry(LogService.LOG_INFO, "started", null, now - 1),
                new Entry(LogService.LOG_ERROR, "second failure", null, now - 2),
                new Entry(LogService.LOG_WARNING, "first warning", null, now - 3));
        LogReaderService reader = new LogReaderService() {
            @Override
            public void addLogListener(LogListener l) {
                listeners.add(l);
            }

            @Override
            public void removeLogListener(LogListener l) {
                listeners.remove(l);
            }

            @Override
            public Enumeration getLog() {
                return Collections.enumeration(history);
            }
        };
        FrameworkLog forwarder = new FrameworkLog();
        forwarder.addReader(reader);
        assertEquals(List.of("first warning", "second failure"), written.stream().map(LogRecord::getMessage).toList());

        assertEquals(1, listeners.size());
        listeners.getFirst().logged(new Entry(LogService.LOG_WARNING, "later", null, now + 1));
        assertEquals("later", written.getLast().getMessage());

        forwarder.removeReader(reader);
        assertTrue(listeners.isEmpty());
    }

    @Test
    void historyAfterTheListenerStartedIsLeftToTheListener() {
        List<LogEntry> newestFirst = List.of(new Entry(LogService.LOG_ERROR, "after", null, 20),
                new Entry(LogService.LOG_ERROR, "at", null, 10), new Entry(LogService.LOG_ERROR, "before", null, 5));
        assertEquals(List.of("before", "at"),
                FrameworkLog.earlierWarnings(newestFirst, 10).stream().map(LogEntry::getMessage).toList());
    }
}
