package org.mooncake.osgi.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a Markdown page that links depend on: the anchors its headings get on GitHub, and
 * the relative links it makes. Fenced code blocks and inline code are not Markdown, so neither
 * counts.
 */
record MarkdownPage(Set<String> anchors, List<Link> links) {
    /** A link as written, on its 1-based line. */
    record Link(int line, String target) {}

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]");

    static MarkdownPage parse(String text) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        List<Link> links = new ArrayList<>();
        boolean inFence = false;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (FENCE.matcher(line).find()) {
                inFence = !inFence;
                continue;
            }
            if (inFence) {
                continue;
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
            Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (link.find()) {
                links.add(new Link(i + 1, link.group(2)));
            }
        }
        return new MarkdownPage(anchors, links);
    }

    /** GitHub's anchor for a heading: its text without markup, lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = LINK.matcher(heading).replaceAll("$1").replace("`", "");
        return NOT_IN_SLUG.matcher(text.toLowerCase(Locale.ROOT)).replaceAll("").replace(' ', '-');
    }
}
