package org.mooncake.osgi.epd.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A parent process for the Ctrl-C test: starts a {@link FakeService} under a {@link Supervisor}
 * with its shutdown hook, prints the child's pid and waits to be ended.
 */
public final class SupervisedParent {
    private SupervisedParent() {
    }

    public static void main(String[] args) throws Exception {
        Supervisor s = new Supervisor(Duration.ofSeconds(5));
        s.installShutdownHook();
        int port = FreePorts.pick(1).getFirst();
        ManagedProcess child = s.start("child", SupervisorTest.java(FakeService.class, "serve", Integer.toString(port), "0"),
                Map.of(), Path.of(args[0]), "http://127.0.0.1:" + port + "/health");
        child.awaitHealthy(new DemoHttp(Duration.ofSeconds(5)), Duration.ofSeconds(60));
        s.afterStop(() -> System.out.println("cleaned up after " + child.pid() + ", alive " + child.isAlive()));
        System.out.println("child " + child.pid());
        new CountDownLatch(1).await();
    }
}
