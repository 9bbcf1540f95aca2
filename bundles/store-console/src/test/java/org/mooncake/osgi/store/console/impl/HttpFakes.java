package org.mooncake.osgi.store.console.impl;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/** A request with some headers and a response that records status, headers and body: what the security provider touches. */
final class HttpFakes {
    private HttpFakes() {
    }

    static HttpServletRequest request(Map<String, String> headers) {
        return (HttpServletRequest) Proxy.newProxyInstance(HttpFakes.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getHeader" -> headers.get((String) args[0]);
                    case "getRemoteAddr" -> "192.0.2.9";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** What a response was given. */
    static final class Recorded {
        int status = 200;
        final Map<String, String> headers = new HashMap<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();

        String body() {
            return body.toString(StandardCharsets.UTF_8);
        }

        HttpServletResponse response() {
            ServletOutputStream out = new ServletOutputStream() {
                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                }

                @Override
                public void write(int b) {
                    body.write(b);
                }
            };
            return (HttpServletResponse) Proxy.newProxyInstance(HttpFakes.class.getClassLoader(),
                    new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "setStatus" -> status = (Integer) args[0];
                            case "setHeader" -> headers.put((String) args[0], (String) args[1]);
                            case "setContentType" -> headers.put("Content-Type", (String) args[0]);
                            case "getOutputStream" -> {
                                return out;
                            }
                            case "setContentLength", "flushBuffer" -> {
                            }
                            default -> throw new UnsupportedOperationException(method.getName());
                        }
                        return null;
                    });
        }
    }
}
