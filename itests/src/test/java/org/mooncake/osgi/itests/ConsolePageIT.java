package org.mooncake.osgi.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.inject.Inject;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.master.TypeStats;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.support.ui.Select;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;

/**
 * The Felix Web Console in a real headless Chromium, on loopback with the default login: the
 * Mooncake page shows the figures of puts and gets this test made, its policy control switches
 * the policy that {@code store:policy} reports (after a confirmation), and the Configuration page
 * shows our components' metatype forms. Saves screenshots to {@code target/console/}: the page
 * before the switch, the confirmation, and the page after it ({@code mooncake-page.png}, with what
 * cost-aware has learned; docs/console/ keeps a copy).
 */
@RunWith(BrowserExam.class)
@ExamReactorStrategy(PerClass.class)
public class ConsolePageIT {
    private static final int KV_SIZE = 1000;
    private static final int HIDDEN_SIZE = 500;

    @Inject
    private StoreClient client;

    @Inject
    private MasterService master;

    @Inject
    private CommandProcessor shell;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws IOException {
        return ConsoleContainer.options("127.0.0.1");
    }

    /** What {@code store:policy} prints in the Gogo shell. */
    private String storePolicy() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        CommandSession session = shell.createSession(new ByteArrayInputStream(new byte[0]), print, print);
        try {
            return String.valueOf(session.execute("store:policy"));
        } finally {
            session.close();
        }
    }

    /** Three KVCACHE objects read twice each, two HIDDEN_STATE objects read once, one key that is not there. */
    private void putAndGet() {
        ReplicateConfig kv = ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).build();
        ReplicateConfig hidden = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).build();
        for (int i = 0; i < 3; i++) {
            client.put("kv-" + i, StoreInContainerIT.payload(i, KV_SIZE), kv);
        }
        for (int i = 0; i < 2; i++) {
            client.put("hidden-" + i, StoreInContainerIT.payload(10 + i, HIDDEN_SIZE), hidden);
        }
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(StoreInContainerIT.payload(i, KV_SIZE), client.get("kv-" + i));
            }
        }
        for (int i = 0; i < 2; i++) {
            assertArrayEquals(StoreInContainerIT.payload(10 + i, HIDDEN_SIZE), client.get("hidden-" + i));
        }
        try {
            client.get("never-stored");
            throw new AssertionError("a key never stored was found");
        } catch (StoreException e) {
            assertEquals(ErrorCode.OBJECT_NOT_FOUND, e.errorCode());
        }
    }

    private static long figure(Browser b, String id) {
        return Long.parseLong(b.await(By.id(id)).getDomAttribute("data-value"));
    }

    private static TypeStats type(MasterStats s, ObjectDataType t) {
        return s.types().stream().filter(x -> x.dataType() == t).findFirst().orElseThrow();
    }

    @Test
    public void theMooncakePageShowsTheStoresFiguresAndSwitchesThePolicy() throws Exception {
        Await.until("four policies deployed", () -> master.stats().availablePolicies()
                .containsAll(List.of("lease-lru", "type-aware", "cost-aware", "hierarchical")));
        Await.until("type-aware, the highest-ranked, active", () -> "type-aware".equals(master.stats().activePolicy()));
        putAndGet();
        ConsoleHttp http = new ConsoleHttp(context);
        try (Browser b = new Browser()) {
            b.open(http.console("admin", "admin") + "/mooncake");
            b.await(By.id("type-table"));
            MasterStats s = master.stats();
            // the page against what this test did
            assertEquals(3, figure(b, "type-KVCACHE-objects"));
            assertEquals(3 * KV_SIZE, figure(b, "type-KVCACHE-bytes"));
            assertEquals(6, figure(b, "type-KVCACHE-hits"));
            assertEquals(2, figure(b, "type-HIDDEN_STATE-objects"));
            assertEquals(2 * HIDDEN_SIZE, figure(b, "type-HIDDEN_STATE-bytes"));
            assertEquals(2, figure(b, "type-HIDDEN_STATE-hits"));
            assertEquals(1, figure(b, "type-UNKNOWN-misses"));
            assertEquals(5, figure(b, "store-objects"));
            // and against the master's own figures, every one the page shows of it
            for (ObjectDataType t : List.of(ObjectDataType.KVCACHE, ObjectDataType.HIDDEN_STATE, ObjectDataType.UNKNOWN)) {
                TypeStats ts = type(s, t);
                String id = "type-" + t.name() + "-";
                assertEquals(ts.objects(), figure(b, id + "objects"));
                assertEquals(ts.bytes(), figure(b, id + "bytes"));
                assertEquals(ts.hits(), figure(b, id + "hits"));
                assertEquals(ts.misses(), figure(b, id + "misses"));
                assertEquals(ts.evictions(), figure(b, id + "evictions"));
            }
            assertEquals(s.capacityBytes(), figure(b, "store-capacity"));
            assertEquals(s.usedBytes(), figure(b, "store-used"));
            assertEquals(s.evictionRounds(), figure(b, "eviction-rounds"));
            SegmentStats segment = master.segments().get(0);
            assertEquals(segment.capacityBytes(), figure(b, "segment-" + segment.name() + "-capacity"));
            assertEquals(segment.usedBytes(), figure(b, "segment-" + segment.name() + "-used"));
            TransferStats local = client.transferStats().stream().filter(t -> t.protocol().equals("local")).findFirst()
                    .orElseThrow();
            assertEquals(5, figure(b, "transfer-local-writes"));
            assertEquals(3 * KV_SIZE + 2 * HIDDEN_SIZE, figure(b, "transfer-local-bytes-written"));
            assertEquals(local.reads(), figure(b, "transfer-local-reads"));
            assertEquals(local.bytesRead(), figure(b, "transfer-local-bytes-read"));
            assertEquals("type-aware", b.await(By.id("policy-active")).getText());
            screenshot(b, "mooncake-page-type-aware.png");

            // choose cost-aware: a confirmation first, and nothing changes until it is given
            new Select(b.await(By.id("policy-select"))).selectByValue("cost-aware");
            b.await(By.id("policy-switch")).click();
            String question = b.await(By.id("policy-confirm-question")).getText();
            assertTrue(question, question.contains("from type-aware to cost-aware?"));
            screenshot(b, "mooncake-policy-confirm.png");
            assertEquals("type-aware", master.stats().activePolicy());
            assertTrue(storePolicy().startsWith("active: type-aware"));
            b.await(By.id("policy-confirm-button")).click();
            String switched = b.await(By.id("policy-switched")).getText();
            assertTrue(switched, switched.contains("Eviction policy set to cost-aware"));
            Await.until("store:policy reports cost-aware", () -> storePolicy().startsWith("active: cost-aware"));
            b.open(http.console(null, null) + "/mooncake");
            assertEquals("cost-aware", b.await(By.id("policy-active")).getText());
            String settings = b.await(By.id("policy-settings")).getText();
            assertTrue(settings, storePolicy().contains(settings.lines().findFirst().orElseThrow()));
            screenshot(b, "mooncake-page.png");
        }
    }

    private static void screenshot(Browser b, String name) throws IOException {
        Path dir = Path.of(System.getProperty("basedir", "."), "target", "console");
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), ((TakesScreenshot) b.driver).getScreenshotAs(OutputType.BYTES));
    }

    @Test
    public void theConfigurationPageShowsTheMastersMetatypeForm() throws Exception {
        ConsoleHttp http = new ConsoleHttp(context);
        try (Browser b = new Browser()) {
            b.open(http.console("admin", "admin") + "/configMgr/org.mooncake.osgi.store.master");
            // the console opens the PID's form in a dialog once its script has read the metatype
            String form = b.awaitText(By.id("editorTable"), "eviction.policy");
            assertTrue(form, form.contains("Name of the eviction policy to use"));
            screenshot(b, "configuration-master.png");
        }
    }

    /** The token of the confirmation form the page shows for {@code policy}. */
    private static String confirmationToken(ConsoleHttp http, String policy) throws Exception {
        String page = http.get("/mooncake?policy=" + policy, "admin:admin").body();
        Matcher m = Pattern.compile("name=\"token\" value=\"([0-9a-f]+)\"").matcher(page);
        assertTrue(page, m.find());
        return m.group(1);
    }

    @Test
    public void aSwitchPostedWithoutThePagesTokenOrForAnUnknownPolicyChangesNothing() throws Exception {
        ConsoleHttp http = new ConsoleHttp(context);
        Await.until("the console is up", () -> http.get("/mooncake", "admin:admin").statusCode() == 200);
        String before = master.stats().activePolicy();
        HttpResponse<String> forged = http.post("/mooncake", "admin:admin", "policy=lease-lru&token=forged");
        assertEquals(403, forged.statusCode());
        assertTrue(forged.body(), forged.body().contains("must be confirmed on the Mooncake page"));
        String token = confirmationToken(http, "lease-lru");
        HttpResponse<String> unknown = http.post("/mooncake", "admin:admin", "policy=no-such-policy&token=" + token);
        assertEquals(400, unknown.statusCode());
        assertTrue(unknown.body(), unknown.body().contains("No eviction policy named 'no-such-policy' is deployed here"));
        assertEquals(before, master.stats().activePolicy());
        assertTrue(storePolicy().startsWith("active: " + before));
    }

    @Test
    public void onLoopbackTheConsoleAsksForTheDefaultLoginAndTakesIt() throws Exception {
        ConsoleHttp http = new ConsoleHttp(context);
        Await.until("the console is up", () -> http.get("/mooncake", null).statusCode() == 401);
        assertEquals(200, http.get("/mooncake", "admin:admin").statusCode());
        assertEquals(401, http.get("/mooncake", "admin:wrong").statusCode());
    }
}
