package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Features and profiles as the launcher reads them: bundles, start order, framework properties, configurations, variables. */
class FeatureReaderTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;

    @BeforeEach
    void profilesFolder() throws IOException {
        Files.createDirectories(dir.resolve(FeatureReader.PROFILES));
    }

    private void feature(String name, String json) throws IOException {
        Files.writeString(dir.resolve(name + ".json"), json);
    }

    /** A profile composing {@code features}, with the rest of its feature JSON in {@code more}. */
    private Profile profile(String name, List<String> features, String more) throws IOException {
        ObjectNode json = (ObjectNode) JSON.readTree("{" + more + "}");
        json.put("id", "x:profile-" + name + ":osgifeature:1");
        ObjectNode extension = json.withObjectProperty("extensions").putObject(Profile.EXTENSION);
        extension.put("kind", "mandatory").put("type", "json");
        features.forEach(extension.putObject("json").putArray("features")::add);
        Files.writeString(dir.resolve(FeatureReader.PROFILES).resolve(name + ".json"), JSON.writeValueAsString(json));
        return new FeatureReader(dir).profile(name);
    }

    private static void assertMentions(Throwable e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' missing from: " + e.getMessage());
        }
    }

    @Test
    void startOrderIsReadAsANumberOrAStringAndTheEarliestOfTwoFeaturesWins() throws IOException {
        feature("a", """
                {"id": "x:a:osgifeature:1", "bundles": [
                  {"id": "g:first:1", "start-order": 1}, {"id": "g:plain:1"}, {"id": "g:second:1", "start-order": "2"}]}""");
        feature("b", """
                {"id": "x:b:osgifeature:1", "bundles": [{"id": "g:second:1", "start-order": 5}, {"id": "g:late:1", "start-order": 3}]}""");
        LaunchPlan ab = profile("ab", List.of("a", "b"), "").resolve(Map.of());
        assertEquals(List.of("g:first:1", "g:plain:1", "g:second:1", "g:late:1"), List.copyOf(ab.bundles().keySet()));
        assertEquals(Map.of("g:first:1", 1, "g:second:1", 2, "g:late:1", 3), ab.startOrder());
        assertEquals(ab.startOrder(), profile("ba", List.of("b", "a"), "").resolve(Map.of()).startOrder());
    }

    @Test
    void aStartOrderThatIsNoWholeNumberFromOneIsRefusedWithTheFileAndTheBundle() throws IOException {
        for (String bad : List.of("0", "-1", "1.5", "\"soon\"", "true")) {
            feature("bad", "{\"id\": \"x:bad:osgifeature:1\", \"bundles\": [{\"id\": \"g:b:1\", \"start-order\": " + bad + "}]}");
            IOException e = assertThrows(IOException.class, () -> profile("p", List.of("bad"), ""), bad);
            assertMentions(e, "bad.json", "g:b:1", "start-order");
        }
    }

    @Test
    void frameworkPropertiesComeFromTheExtensionAndTwoFeaturesMayNotDisagree() throws IOException {
        feature("a", """
                {"id": "x:a:osgifeature:1", "extensions": {"framework-properties":
                  {"kind": "mandatory", "type": "json", "json": {"p": "1", "q": true}}}}""");
        feature("same", """
                {"id": "x:same:osgifeature:1", "extensions": {"framework-properties": {"type": "json", "json": {"p": "1"}}}}""");
        feature("other", """
                {"id": "x:other:osgifeature:1", "extensions": {"framework-properties": {"type": "json", "json": {"p": "2"}}}}""");
        assertEquals(Map.of("p", "1", "q", "true"), profile("s", List.of("a", "same"), "").resolve(Map.of()).frameworkProperties());
        Profile disagree = profile("d", List.of("a", "other"), "");
        assertMentions(assertThrows(IOException.class, () -> disagree.resolve(Map.of())), "a and other", "'1' and '2'");
        feature("text", """
                {"id": "x:text:osgifeature:1", "extensions": {"framework-properties": {"type": "text", "text": ["p=1"]}}}""");
        assertMentions(assertThrows(IOException.class, () -> profile("t", List.of("text"), "")), "text.json", "framework-properties");
    }

    @Test
    void configurationsKeepTheirTypesAndFactoryNamesAndTheProfileOverridesItsFeatures() throws IOException {
        feature("a", """
                {"id": "x:a:osgifeature:1",
                 /* the Feature format allows comments */
                 "configurations": {
                   "my.pid": {"name": "a", "count:Integer": 3, "ports:int[]": [1, 2], "kept": true},
                   "my.factory~first": {"tags:String[]": ["x", "y"]}}}""");
        Profile p = profile("p", List.of("a"), """
                "configurations": {"my.pid": {"name": "from the profile"}, "other.pid": {}}""");
        Map<String, Map<String, Object>> config = p.resolve(Map.of()).configurations();
        assertEquals(Set.of("my.pid", "my.factory~first", "other.pid"), config.keySet());
        Map<String, Object> mine = config.get("my.pid");
        assertEquals("from the profile", mine.get("name"));
        assertEquals(Integer.valueOf(3), mine.get("count"));
        assertArrayEquals(new int[] {1, 2}, (int[]) mine.get("ports"));
        assertEquals(Boolean.TRUE, mine.get("kept"));
        assertArrayEquals(new String[] {"x", "y"}, (String[]) config.get("my.factory~first").get("tags"));
        assertEquals(Map.of(), config.get("other.pid"), "an empty configuration is still one (it activates a component)");
    }

    @Test
    void twoFeaturesThatSetOneConfigurationPropertyDifferentlyAreRefusedWithBothNames() throws IOException {
        feature("a", "{\"id\": \"x:a:osgifeature:1\", \"configurations\": {\"my.pid\": {\"n\": 1}}}");
        feature("b", "{\"id\": \"x:b:osgifeature:1\", \"configurations\": {\"my.pid\": {\"n\": 2}}}");
        Profile p = profile("p", List.of("a", "b"), "");
        assertMentions(assertThrows(IOException.class, () -> p.resolve(Map.of())), "features a and b", "my.pid", "'1' and '2'");
    }

    @Test
    void aVariableTakesItsDefaultOrItsSetValueEvenInATypedValue() throws IOException {
        feature("runtime", "{\"id\": \"x:runtime:osgifeature:1\"}");
        Profile p = profile("web", List.of("runtime"), """
                "variables": {"http.port": 8000, "bind": "127.0.0.1", "ratio": 0.5, "master": null},
                "configurations": {"my.pid": {"port:Integer": "${http.port}", "url": "http://${bind}:${http.port}/",
                                              "master": "${master}", "ratio:Double": "${ratio}"}},
                "extensions": {"framework-properties": {"type": "json", "json": {"org.osgi.service.http.port": "${http.port}"}}}""");
        assertEquals(Set.of("http.port", "bind", "ratio", "master"), p.variables());
        LaunchPlan defaults = p.resolve(Map.of("master", "m:1"));
        assertEquals(Integer.valueOf(8000), defaults.configurations().get("my.pid").get("port"));
        assertEquals("http://127.0.0.1:8000/", defaults.configurations().get("my.pid").get("url"));
        assertEquals(0.5, defaults.configurations().get("my.pid").get("ratio"));
        assertEquals(Map.of("org.osgi.service.http.port", "8000"), defaults.frameworkProperties());
        LaunchPlan set = p.resolve(Map.of("master", "m:1", "http.port", "0", "bind", "a\"b"));
        assertEquals(Integer.valueOf(0), set.configurations().get("my.pid").get("port"));
        assertEquals("http://a\"b:0/", set.configurations().get("my.pid").get("url"), "a value is text, never JSON");
        assertEquals(Map.of("org.osgi.service.http.port", "0"), set.frameworkProperties());
        IOException notANumber = assertThrows(IOException.class, () -> p.resolve(Map.of("master", "m:1", "http.port", "x")));
        assertMentions(notANumber, "web.json", "port:Integer", "http.port=x");
    }

    @Test
    void anUnknownSetIsRefusedAndAVariableWithoutDefaultMustBeSet() throws IOException {
        feature("runtime", "{\"id\": \"x:runtime:osgifeature:1\"}");
        Profile p = profile("node", List.of("runtime"), """
                "variables": {"master": null, "segment.size": 1024},
                "configurations": {"c": {"m": "${master}", "s:Long": "${segment.size}"}}""");
        assertMentions(assertThrows(IllegalArgumentException.class, () -> p.resolve(Map.of("master", "h:1", "segment.szie", "1"))),
                "profile node has no variable 'segment.szie'", "it has: master, segment.size");
        assertMentions(assertThrows(IllegalArgumentException.class, () -> p.resolve(Map.of())),
                "needs a value for 'master'", "--master HOST:PORT", "node.json");
        Profile none = profile("plain", List.of("runtime"), "");
        assertMentions(assertThrows(IllegalArgumentException.class, () -> none.resolve(Map.of("master", "h:1"))), "it has: none");
    }

    @Test
    void aFeatureWithoutIdOrNotJsonOrWithABareBundleIdIsRefusedNamingTheFile() throws IOException {
        Map<String, List<String>> cases = Map.of(
                "{\"bundles\": [{\"id\": \"g:a:1\"}]}", List.of("needs an \"id\""),
                "{\"id\": 7}", List.of("needs an \"id\""),
                "{\"id\": \"nocolons\"}", List.of("'nocolons'", "groupId:artifactId"),
                "{\"id\": \"x:a:osgifeature:1\",\n \"bundles\": [{\"id\": \"g:a:1\"}\n", List.of("not valid JSON", "line 3"),
                "{\"id\": \"x:a:osgifeature:1\", \"id\": \"x:b:osgifeature:1\"}", List.of("not valid JSON", "id"),
                "{\"id\": \"x:a:osgifeature:1\", \"bundles\": [\"g:a:1\"]}", List.of("bundle entry 1", "an object with an \"id\""),
                "{\"id\": \"x:a:osgifeature:1\", \"bundles\": [{\"id\": \"g:a\"}]}", List.of("bundle entry 1", "'g:a'"),
                "{\"id\": \"x:a:osgifeature:1\", \"variables\": {\"v\": [1]}}", List.of("variable v"),
                "{\"id\": \"x:a:osgifeature:1\", \"configurations\": {\"p\": {\"k\": \"${typo}\"}}}",
                List.of("configuration p, property k uses ${typo}", "declares no such name"),
                "[]", List.of("a feature is a JSON object"));
        for (var c : cases.entrySet()) {
            feature("broken", c.getKey());
            IOException e = assertThrows(IOException.class, () -> new FeatureReader(dir).feature("broken"), c.getKey());
            assertMentions(e, dir.resolve("broken.json").toString());
            assertMentions(e, c.getValue().toArray(String[]::new));
        }
    }

    @Test
    void aProfileNamesKnownFeaturesInItsExtensionAndAnUnknownProfileListsTheKnownOnes() throws IOException {
        feature("runtime", "{\"id\": \"x:runtime:osgifeature:1\"}");
        profile("good", List.of("runtime"), "");
        assertMentions(assertThrows(IOException.class, () -> profile("typo", List.of("runtim"), "")),
                "typo.json", "names feature \"runtim\"", "known: runtime");
        Files.writeString(dir.resolve("profiles/plain.json"), "{\"id\": \"x:plain:osgifeature:1\"}");
        assertMentions(assertThrows(IOException.class, () -> new FeatureReader(dir).profile("plain")),
                "plain.json", "\"mooncake-profile\" extension");
        assertMentions(assertThrows(IOException.class, () -> new FeatureReader(dir).profile("nope")),
                "no profile nope", "known: good, plain, typo");
    }
}
