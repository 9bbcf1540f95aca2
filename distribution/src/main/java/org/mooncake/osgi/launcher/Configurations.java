package org.mooncake.osgi.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Applies configurations through the framework's ConfigurationAdmin once it runs. The launcher
 * sees that service only as an object (the API lives in a bundle), so the few calls it needs go
 * through the interface by reflection. Unlike a .cfg file, a configuration set this way cannot be
 * missed by FileInstall starting before its config installer is ready.
 */
final class Configurations {
    private static final String CM = "org.osgi.service.cm.ConfigurationAdmin";
    private static final String CONFIGURATION = "org.osgi.service.cm.Configuration";

    private final Object admin;

    private Configurations(Object admin) {
        this.admin = admin;
    }

    static Configurations await(BundleContext ctx, long timeoutMs) throws BundleException {
        ServiceTracker<Object, Object> t = new ServiceTracker<>(ctx, CM, null);
        t.open(true);
        try {
            Object cm = t.waitForService(timeoutMs);
            if (cm == null) {
                throw new BundleException("ConfigurationAdmin did not start within " + timeoutMs + " ms");
            }
            return new Configurations(cm);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BundleException("interrupted while waiting for ConfigurationAdmin");
        }
    }

    /**
     * Sets the configuration {@code pid}, or for {@code factoryPid~name} (as a feature names one)
     * the factory configuration {@code name} of {@code factoryPid}.
     */
    void set(String pid, Map<String, ?> props) throws BundleException {
        int tilde = pid.indexOf('~');
        if (tilde > 0) {
            setFactory(pid.substring(0, tilde), pid.substring(tilde + 1), props);
        } else {
            update(call(admin, CM, "getConfiguration", new Class<?>[] {String.class, String.class}, pid, "?"), props);
        }
    }

    void setFactory(String factoryPid, String name, Map<String, ?> props) throws BundleException {
        update(call(admin, CM, "getFactoryConfiguration", new Class<?>[] {String.class, String.class, String.class},
                factoryPid, name, "?"), props);
    }

    private static void update(Object configuration, Map<String, ?> props) throws BundleException {
        Dictionary<String, Object> d = new Hashtable<>(props);
        call(configuration, CONFIGURATION, "update", new Class<?>[] {Dictionary.class}, d);
    }

    private static Object call(Object target, String iface, String method, Class<?>[] types, Object... args)
            throws BundleException {
        try {
            Method m = interfaceOf(target.getClass(), iface).getMethod(method, types);
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw new BundleException(iface + "." + method + " failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new BundleException("cannot call " + iface + "." + method + ": " + e, e);
        }
    }

    private static Class<?> interfaceOf(Class<?> type, String name) throws ClassNotFoundException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals(name)) {
                    return i;
                }
            }
        }
        throw new ClassNotFoundException(name + " is not implemented by " + type);
    }
}
