package org.mooncake.osgi.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Docs and code describe the product as it is, not the order it was built in: no numbered
 * reference to the development history ("session N", "sessions N-M" with digits), which a reader
 * cannot look up; a date, where one is needed, is a commit. The product's own sessions (an EPD session,
 * the policy workload's session mode, {@code --sessions N}) are words, not numbered references.
 * And every relative link in the docs leads to a file, and to a heading of it, that exists.
 */
class DocsHaveNoHistoryTest {
    /** "session(s)" or "issue(s)", at most one space and a '#', a digit: a numbered work session or tracker issue. */
    static final Pattern NUMBERED_HISTORY = Pattern.compile("(?i)(?<![\\p{L}\\p{N}_])(?:sessions?|issues?) ?#?\\d");
    /** The one product use it also matches: the benchmarks' {@code --sessions N} option. */
    static final Pattern SESSIONS_OPTION = Pattern.compile("--$");
    static final Set<String> TEXT_EXTENSIONS = Set.of(
            "java", "md", "sh", "json", "xml", "txt", "c", "h", "properties", "cfg", "config", "bnd", "yml", "yaml", "py", "cmd");
    static final Set<String> TEXT_NAMES = Set.of("mooncake", "run", "mvnw");
    static final Set<String> SKIPPED_DIRECTORIES = Set.of("target", ".git", "runtime", "node_modules");

    @Test
    void noDocOrSourceFileRefersToNumberedDevelopmentSessions() throws IOException {
        Path root = repositoryRoot();
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = textFiles(root)) {
            files.forEach(file -> numberedHistory(read(file)).forEach(
                    hit -> found.add(root.relativize(file) + ":" + hit)));
        }
        assertEquals(List.of(), found, "numbered references to the development history; name a commit instead");
    }

    @Test
    void thePatternFindsHistoryAndLeavesTheProductsSessionsAlone() {
        // the examples are built from parts, so that this file does not match its own pattern
        String session = "session";
        assertEquals(List.of("1: until " + session + " 20 the checksum"), numberedHistory("until " + session + " 20 the checksum"));
        assertEquals(1, numberedHistory("Session" + " 19: what changed").size());
        assertEquals(1, numberedHistory("in " + session + "s 12-14").size());
        assertEquals(1, numberedHistory(session + "s 5 and 6").size());
        assertEquals(1, numberedHistory("(" + session + "10)").size());
        String issue = "issue";
        assertEquals(1, numberedHistory("1 MiB (" + issue + " 3); the store").size());
        assertEquals(1, numberedHistory("see " + issue + " #31").size());
        assertEquals(List.of(), numberedHistory("a known " + issue + " of UCX 1.13"));
        assertEquals(List.of(), numberedHistory("`--quick --sessions 50` runs 50 sessions"));
        assertEquals(List.of(), numberedHistory("saves 97% in session mode, 10% of unique bytes"));
        assertEquals(List.of(), numberedHistory("600 sessions, scale 0.006; an EPD session; Gogo session"));
        assertEquals(List.of(), numberedHistory("the session, 12% point; groupSess" + "ion1 is an identifier"));
    }

    @Test
    void everyRelativeLinkInTheDocsLeadsToAnExistingFileAndHeading() throws IOException {
        Path root = repositoryRoot();
        Map<Path, MarkdownPage> pages = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path page : docPages(root)) {
            for (MarkdownPage.Link link : page(pages, page).links()) {
                String problem = problem(page, link.target(), pages);
                if (problem != null) {
                    broken.add(root.relativize(page) + ":" + link.line() + ": " + link.target() + " (" + problem + ")");
                }
            }
        }
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void anchorsAreGitHubs() {
        assertEquals("master-metadata-operations-masteropsbenchmark",
                MarkdownPage.slug("Master metadata operations (`MasterOpsBenchmark`)"));
        assertEquals("the-operators-hot-swap-workflow", MarkdownPage.slug("The operator's hot-swap workflow"));
        assertEquals("orgmooncakeosgistoremaster", MarkdownPage.slug("`org.mooncake.osgi.store.master`"));
        assertEquals("see-the-docs", MarkdownPage.slug("See [the docs](docs/x.md)"));
        MarkdownPage page = MarkdownPage.parse("# A\n## A\n```\n# not a heading [x](y.md)\n```\ntext `[c](d.md)` [e](f.md#g)\n");
        assertEquals(Set.of("a", "a-1"), page.anchors());
        assertEquals(List.of(new MarkdownPage.Link(6, "f.md#g")), page.links());
    }

    /** Each hit as "line: text around it". */
    static List<String> numberedHistory(String text) {
        List<String> hits = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = NUMBERED_HISTORY.matcher(lines[i]);
            while (m.find()) {
                String before = lines[i].substring(0, m.start());
                if (!SESSIONS_OPTION.matcher(before).find()) {
                    hits.add((i + 1) + ": " + lines[i].substring(Math.max(0, m.start() - 6), Math.min(lines[i].length(), m.end() + 20)).strip());
                }
            }
        }
        return hits;
    }

    private static String problem(Path page, String target, Map<Path, MarkdownPage> pages) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return null; // http:, https:, mailto: — not this test's business
        }
        int hash = target.indexOf('#');
        String file = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(linked)) {
            return "no such file";
        }
        if (anchor != null && linked.toString().endsWith(".md") && !page(pages, linked).anchors().contains(anchor)) {
            return "no such heading";
        }
        return null;
    }

    private static MarkdownPage page(Map<Path, MarkdownPage> pages, Path file) {
        return pages.computeIfAbsent(file, f -> MarkdownPage.parse(read(f)));
    }

    private static List<Path> docPages(Path root) throws IOException {
        List<Path> result = new ArrayList<>();
        result.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(result::add);
        }
        return result;
    }

    private static Stream<Path> textFiles(Path root) throws IOException {
        return Files.walk(root)
                .filter(p -> root.relativize(p).toString().isEmpty() || !skipped(root.relativize(p)))
                .filter(Files::isRegularFile)
                .filter(DocsHaveNoHistoryTest::isText);
    }

    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            if (SKIPPED_DIRECTORIES.contains(part.toString())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isText(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return TEXT_NAMES.contains(name) || (dot > 0 && TEXT_EXTENSIONS.contains(name.substring(dot + 1)));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** The checkout's root: the first folder upwards from here with the Maven wrapper and docs/. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("mvnw")) && Files.isDirectory(d.resolve("docs"))) {
                return d;
            }
        }
        throw new IllegalStateException("no checkout root (mvnw beside docs/) above " + dir);
    }

    @Test
    void theRootIsFound() {
        Path root = repositoryRoot();
        assertTrue(Files.isRegularFile(root.resolve("README.md")), root.toString());
        assertFalse(skipped(Path.of("docs", "benchmarks.md")));
        assertTrue(skipped(Path.of("benchmarks", "target", "x.md")));
    }
}
