package org.mooncake.osgi.epd.demo;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

import com.sun.net.httpserver.HttpServer;

/**
 * A trivial child process for the supervisor's tests: {@code serve PORT DELAY_MS} answers
 * {@code /health} after a delay; {@code never} never listens; {@code exit CODE} fails at once;
 * {@code stubborn PORT} serves but does not end on SIGTERM (its shutdown hook never returns).
 */
public final class FakeService {
    private FakeService() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("fake: booting " + String.join(" ", args));
        switch (args[0]) {
            case "serve" -> {
                Thread.sleep(Long.parseLong(args[2])); // a process that takes a while to come up
                serve(Integer.parseInt(args[1]));
            }
            case "never" -> System.out.println("fake: booting forever");
            case "exit" -> {
                System.out.println("fake: boom");
                System.exit(Integer.parseInt(args[1]));
            }
            case "stubborn" -> {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    System.out.println("fake: ignoring SIGTERM");
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
                serve(Integer.parseInt(args[1]));
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        new CountDownLatch(1).await();
    }

    private static void serve(int port) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 10);
        server.createContext("/health", x -> {
            x.sendResponseHeaders(200, 2);
            x.getResponseBody().write("up".getBytes());
            x.close();
        });
        server.start();
        System.out.println("fake: serving on " + port);
    }
}
