package org.mooncake.osgi.distribution;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Every configuration PID our bundles declare, read from the metatype XML that bnd generated
 * into each bundle the distribution ships ({@code system/org/mooncake/osgi/<artifact>/<version>/*.jar},
 * {@code OSGI-INF/metatype/*.xml}). Where a dirty build folder holds several versions of one
 * bundle, the newest jar speaks for it.
 */
final class MetatypeCatalog {

    /** One attribute: its id, type, cardinality (0: a single value) and default, absent where it has none. */
    record Attribute(String id, String type, int cardinality, Optional<String> defaultValue) {
        boolean list() {
            return cardinality != 0;
        }
    }

    /** What a PID (or factory PID) takes, and the bundle that declares it. */
    record Designate(String pid, boolean factory, List<Attribute> attributes, String bundle) {
        Optional<Attribute> attribute(String id) {
            return attributes.stream().filter(a -> a.id().equals(id)).findFirst();
        }
    }

    private MetatypeCatalog() {
    }

    /** The designates of the newest jar of each of our bundles under {@code system}, by PID. */
    static Map<String, Designate> of(Path system) throws Exception {
        Path ours = system.resolve("org/mooncake/osgi");
        if (!Files.isDirectory(ours)) {
            throw new IllegalStateException("no bundles of ours in " + ours + ": build the distribution first");
        }
        Map<String, Designate> byPid = new TreeMap<>();
        try (Stream<Path> artifacts = Files.list(ours)) {
            for (Path artifact : artifacts.filter(Files::isDirectory).sorted().toList()) {
                Optional<Path> jar = newestJar(artifact);
                if (jar.isPresent()) {
                    for (Designate d : read(jar.get())) {
                        Designate twice = byPid.put(d.pid(), d);
                        if (twice != null) {
                            throw new IllegalStateException(d.pid() + " is declared by " + twice.bundle() + " and " + d.bundle());
                        }
                    }
                }
            }
        }
        return byPid;
    }

    private static Optional<Path> newestJar(Path artifact) throws IOException {
        try (Stream<Path> files = Files.walk(artifact, 2)) {
            return files.filter(p -> p.toString().endsWith(".jar")).max(Comparator.comparing(MetatypeCatalog::modified));
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The designates of one bundle's metatype documents. */
    static List<Designate> read(Path jar) throws Exception {
        List<Designate> out = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry e : file.stream().filter(e -> e.getName().startsWith("OSGI-INF/metatype/")
                    && e.getName().endsWith(".xml")).toList()) {
                try (InputStream in = file.getInputStream(e)) {
                    out.addAll(designates(parse(in), jar.getFileName().toString()));
                }
            }
        }
        return out;
    }

    private static Document parse(InputStream in) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(in);
    }

    private static List<Designate> designates(Document doc, String bundle) {
        Map<String, List<Attribute>> ocds = new HashMap<>();
        for (Element ocd : elements(doc.getElementsByTagName("OCD"))) {
            List<Attribute> ads = new ArrayList<>();
            for (Element ad : elements(ocd.getElementsByTagName("AD"))) {
                String cardinality = ad.getAttribute("cardinality");
                ads.add(new Attribute(ad.getAttribute("id"), ad.getAttribute("type"),
                        cardinality.isEmpty() ? 0 : Integer.parseInt(cardinality),
                        ad.hasAttribute("default") ? Optional.of(ad.getAttribute("default")) : Optional.empty()));
            }
            ocds.put(ocd.getAttribute("id"), List.copyOf(ads));
        }
        List<Designate> out = new ArrayList<>();
        for (Element d : elements(doc.getElementsByTagName("Designate"))) {
            String ref = ((Element) d.getElementsByTagName("Object").item(0)).getAttribute("ocdref");
            boolean factory = d.hasAttribute("factoryPid") && !d.getAttribute("factoryPid").isEmpty();
            String pid = factory ? d.getAttribute("factoryPid") : d.getAttribute("pid");
            List<Attribute> ads = ocds.get(ref);
            if (ads == null) {
                throw new IllegalStateException(bundle + ": " + pid + " names OCD " + ref + ", which is not there");
            }
            out.add(new Designate(pid, factory, ads, bundle));
        }
        return out;
    }

    private static List<Element> elements(NodeList nodes) {
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            out.add((Element) nodes.item(i));
        }
        return out;
    }
}
