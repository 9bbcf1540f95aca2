package org.mooncake.osgi.itests;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import org.osgi.framework.BundleContext;

/** Plain HTTP to the console of the container under test, with or without a Basic login. */
final class ConsoleHttp {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    final int port;

    ConsoleHttp(BundleContext context) {
        this.port = Integer.parseInt(context.getProperty(ConsoleContainer.HTTP_PORT));
    }

    /** The console's address on loopback, e.g. {@code http://127.0.0.1:PORT/system/console}, with a login when given. */
    String console(String user, String password) {
        return "http://" + (user == null ? "" : user + ":" + password + "@") + "127.0.0.1:" + port + "/system/console";
    }

    /** GET {@code path} under /system/console; {@code login} is "user:password" or null. */
    HttpResponse<String> get(String path, String login) throws IOException, InterruptedException {
        return http.send(request(path, login).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** POST a form ({@code application/x-www-form-urlencoded} {@code body}) to {@code path}. */
    HttpResponse<String> post(String path, String login, String body) throws IOException, InterruptedException {
        return http.send(request(path, login).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path, String login) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(console(null, null) + path)).timeout(Duration.ofSeconds(30));
        if (login != null) {
            r.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(login.getBytes(StandardCharsets.UTF_8)));
        }
        return r;
    }
}
