package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * When the proxy is ready to route. It answers /health once one prefill and one decode look
 * healthy, and it takes a new instance for healthy until {@code fail.threshold} probes have failed:
 * both can hold while it is still counting the failed probes of workers that were starting, which
 * then make them unhealthy (and the first requests 503) until the next probe heals them. So the
 * demo waits until the proxy's own last probe of every instance succeeded after every worker had
 * answered healthy.
 */
final class ProxyReadiness {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ProxyReadiness() {
    }

    static void await(DemoHttp http, String proxy, ManagedProcess process, int instances, Instant workersUp,
            Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.get(proxy + "/instances", Duration.ofSeconds(2));
                JsonNode list = JSON.readTree(r.body()).path("instances");
                long ready = 0;
                for (JsonNode i : list) {
                    ready += probedHealthySince(i, workersUp) ? 1 : 0;
                }
                if (r.statusCode() == 200 && list.size() == instances && ready == instances) {
                    return;
                }
                last = DemoHttp.abbreviate(r.body());
            } catch (IOException e) {
                last = e.toString();
            }
            if (process.process().waitFor(200, TimeUnit.MILLISECONDS)) {
                throw new ManagedProcess.StartupFailure(process.name() + " (pid " + process.pid()
                        + ") exited while probing the workers, see " + process.log());
            }
        }
        throw new ManagedProcess.StartupFailure("the proxy did not probe every worker healthy within "
                + timeout.toSeconds() + " s: " + last);
    }

    /** Healthy, no failure since, and last probed (successfully, then) no earlier than {@code since}. */
    static boolean probedHealthySince(JsonNode instance, Instant since) {
        String last = instance.path("last_probe").asText("");
        try {
            return instance.path("healthy").asBoolean() && instance.path("consecutive_failures").asInt(-1) == 0
                    && !last.isEmpty() && !Instant.parse(last).isBefore(since);
        } catch (DateTimeParseException e) {
            return false;
        }
    }
}
