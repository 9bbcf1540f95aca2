package org.mooncake.osgi.store.admin.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.osgi.framework.Bundle;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.log.LogService;

/**
 * Writes what the framework's own services log (Declarative Services, ConfigAdmin, FileInstall)
 * to the container's log, where operators look. They log through the OSGi Log Service, which
 * otherwise only keeps entries in memory: a component that failed to start, a configuration file
 * that could not be read, a configuration a component refused, all went unseen.
 *
 * <p>Only warnings and errors: at info level the framework reports every bundle and service
 * event. Each is one line under the logging bundle's symbolic name, its message followed by the
 * causes' messages (where the reason is: "For input string: notaport"); the stack trace follows
 * at debug level. Our own bundles log through {@link System.Logger} directly, so nothing is
 * written twice. Threads: the Log Service calls the listener on its own thread, one entry after
 * another.
 */
@Component(service = {}, immediate = true)
public final class FrameworkLog {
    private final LogListener listener = FrameworkLog::write;

    /**
     * Listens to {@code reader}, then writes the warnings and errors it kept from before (a
     * bundle that failed while the container started). Listening first leaves no gap; an entry
     * logged in the millisecond this starts may be written twice, never lost.
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addReader(LogReaderService reader) {
        reader.addLogListener(listener);
        long since = System.currentTimeMillis(); // after: what the listener missed is older than this
        List<LogEntry> history = new ArrayList<>();
        for (Object e : Collections.list(reader.getLog())) { // a raw Enumeration in this API version
            history.add((LogEntry) e);
        }
        for (LogEntry e : earlierWarnings(history, since)) {
            write(e);
        }
    }

    void removeReader(LogReaderService reader) {
        reader.removeLogListener(listener);
    }

    /** Of {@code newestFirst} (the Log Service's history), the warnings and errors up to {@code until}, oldest first. */
    static List<LogEntry> earlierWarnings(List<LogEntry> newestFirst, long until) {
        List<LogEntry> kept = new ArrayList<>();
        for (LogEntry e : newestFirst) {
            if (e.getTime() <= until && e.getLevel() <= LogService.LOG_WARNING) {
                kept.add(e);
            }
        }
        Collections.reverse(kept);
        return kept;
    }

    static void write(LogEntry e) {
        if (e.getLevel() > LogService.LOG_WARNING) {
            return;
        }
        System.Logger log = System.getLogger(loggerName(e.getBundle()));
        log.log(levelOf(e.getLevel()), line(e.getMessage(), e.getException()));
        if (e.getException() != null && log.isLoggable(Level.DEBUG)) {
            log.log(Level.DEBUG, "the stack trace of the entry above", e.getException());
        }
    }

    /**
     * {@code message}, then each cause's own words. The Log Service wraps every exception of the
     * chain as "class: message"; wrappers that say nothing ("InvocationTargetException: null")
     * are left out.
     */
    static String line(String message, Throwable t) {
        StringBuilder b = new StringBuilder(message == null ? "" : message);
        for (Throwable c = t; c != null && c != c.getCause(); c = c.getCause()) {
            String said = c.getMessage() == null ? c.getClass().getName() : c.getMessage();
            if (!said.endsWith(": null") && !said.equals(c.getClass().getName()) && b.indexOf(said) < 0) {
                b.append(b.isEmpty() ? "" : " <- ").append(said);
            }
        }
        return b.toString();
    }

    static String loggerName(Bundle b) {
        String name = b == null ? null : b.getSymbolicName();
        return name == null ? "osgi" : name;
    }

    /** Of the Log Service's levels that are written (1 error, 2 warning; 1.4's audit arrives as 0 or error). */
    static Level levelOf(int osgiLevel) {
        return osgiLevel == LogService.LOG_WARNING ? Level.WARNING : Level.ERROR;
    }
}
