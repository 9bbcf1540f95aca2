package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the launcher reads from feature files beyond their bundles: start order and framework properties. */
class FeatureReaderTest {
    @TempDir
    Path dir;

    private FeatureReader write(String name, String json) throws IOException {
        Files.writeString(dir.resolve(name + ".json"), json);
        return new FeatureReader(dir);
    }

    @Test
    void startOrderIsReadAsANumberOrAStringAndTheEarliestOfTwoFeaturesWins() throws IOException {
        write("a", """
                {"id": "x:a:osgifeature:1", "bundles": [
                  {"id": "g:first:1", "start-order": 1}, {"id": "g:plain:1"}, {"id": "g:second:1", "start-order": "2"}]}""");
        FeatureReader features = write("b", """
                {"id": "x:b:osgifeature:1", "bundles": [{"id": "g:second:1", "start-order": 5}, {"id": "g:late:1", "start-order": 3}]}""");
        assertEquals(Map.of("g:first:1", 1, "g:second:1", 2), features.read("a").startOrder());
        assertEquals(Map.of("g:first:1", 1, "g:second:1", 2, "g:late:1", 3), features.startOrderOf(List.of("a", "b")));
        assertEquals(Map.of("g:first:1", 1, "g:second:1", 2, "g:late:1", 3), features.startOrderOf(List.of("b", "a")));
    }

    @Test
    void aStartOrderThatIsNoWholeNumberFromOneIsRefusedWithTheFileAndTheBundle() throws IOException {
        for (String bad : List.of("0", "-1", "1.5", "\"soon\"", "true")) {
            FeatureReader features = write("bad", "{\"id\": \"x:bad:osgifeature:1\", \"bundles\": [{\"id\": \"g:b:1\", \"start-order\": "
                    + bad + "}]}");
            IOException e = assertThrows(IOException.class, () -> features.read("bad"), bad);
            assertTrue(e.getMessage().contains("bad.json") && e.getMessage().contains("g:b:1")
                    && e.getMessage().contains("start-order"), e.getMessage());
        }
    }

    @Test
    void frameworkPropertiesComeFromTheExtensionAndTwoFeaturesMayNotDisagree() throws IOException {
        write("a", """
                {"id": "x:a:osgifeature:1", "bundles": [], "extensions": {"framework-properties":
                  {"kind": "mandatory", "type": "json", "json": {"p": "1", "q": true}}}}""");
        write("same", """
                {"id": "x:same:osgifeature:1", "bundles": [], "extensions": {"framework-properties":
                  {"type": "json", "json": {"p": "1"}}}}""");
        FeatureReader features = write("other", """
                {"id": "x:other:osgifeature:1", "bundles": [], "extensions": {"framework-properties":
                  {"type": "json", "json": {"p": "2"}}}}""");
        assertEquals(Map.of("p", "1", "q", "true"), features.frameworkPropertiesOf(List.of("a", "same")));
        IOException e = assertThrows(IOException.class, () -> features.frameworkPropertiesOf(List.of("a", "other")));
        assertTrue(e.getMessage().contains("a and other") && e.getMessage().contains("'1' and '2'"), e.getMessage());
        FeatureReader text = write("text", """
                {"id": "x:text:osgifeature:1", "bundles": [], "extensions": {"framework-properties": {"type": "text", "text": "p=1"}}}""");
        IOException wrongType = assertThrows(IOException.class, () -> text.read("text"));
        assertTrue(wrongType.getMessage().contains("framework-properties"), wrongType.getMessage());
    }

    @Test
    void aProfilesFrameworkPropertiesTakeVariablesLikeItsConfiguration() throws IOException {
        Files.writeString(dir.resolve("profiles.json"), """
                {"web": {"features": ["a"], "framework": {"org.osgi.service.http.port": "${http.port:8000}"},
                         "config": {"pid": {"k": "${other}"}}}}""");
        Profile web = new FeatureReader(dir).profile("web");
        assertEquals(java.util.Set.of("http.port", "other"), web.variables());
        assertEquals(Map.of("org.osgi.service.http.port", "8000"), web.resolveFramework(Map.of()));
        assertEquals(Map.of("org.osgi.service.http.port", "0"), web.resolveFramework(Map.of("http.port", "0", "other", "x")));
        IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
                () -> web.resolveFramework(Map.of("http.prot", "1")));
        assertTrue(typo.getMessage().contains("no variable 'http.prot'"), typo.getMessage());
    }
}
