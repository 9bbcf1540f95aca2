package org.mooncake.osgi.epd.worker.impl;

import java.lang.reflect.Proxy;
import java.util.Map;

/** A component property type as DS builds it: the given values, the annotation's defaults for the rest. */
final class Configs {
    private Configs() {
    }

    static <A> A of(Class<A> type, Map<String, Object> values) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getName().equals("annotationType")) {
                return type;
            }
            Object v = values.get(method.getName());
            return v != null ? v : method.getDefaultValue();
        }));
    }
}
