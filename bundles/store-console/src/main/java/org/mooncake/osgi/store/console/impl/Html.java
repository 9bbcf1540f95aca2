package org.mooncake.osgi.store.console.impl;

import java.util.Locale;

import org.owasp.encoder.Encode;

/**
 * Builds the page's HTML. Every text and attribute value goes through the OWASP encoder for its
 * context; only the fixed markup of this class is written raw. Figures carry an {@code id} and
 * their exact value in {@code data-value}, so a script or a test reads them without parsing the
 * grouped number shown.
 */
final class Html {
    private final StringBuilder b = new StringBuilder();

    /** Opens the page: its own small style sheet (the console's styles tables and buttons), then a wrapper. */
    Html begin() {
        b.append("<style>#mooncake h2.mooncake-section { font-size: 1.15em; font-weight: bold; margin: 1.2em 0 0.4em 0; }"
                + " #mooncake form { margin: 0.6em 0; } #mooncake #policy-active { white-space: nowrap; } #mooncake table.nicetable { margin-bottom: 0.4em; }</style>\n"
                + "<div id=\"mooncake\">\n");
        return this;
    }

    Html end() {
        b.append("</div>\n");
        return this;
    }

    Html section(String id, String title) {
        b.append("<h2 class=\"mooncake-section\" id=\"").append(Encode.forHtmlAttribute(id)).append("\">")
                .append(Encode.forHtml(title)).append("</h2>\n");
        return this;
    }

    Html paragraph(String id, String text) {
        b.append("<p id=\"").append(Encode.forHtmlAttribute(id)).append("\">").append(Encode.forHtml(text)).append("</p>\n");
        return this;
    }

    /** A status line in the console's style. */
    Html statusLine(String id, String text, boolean error) {
        b.append("<p class=\"statline ").append(error ? "ui-state-error" : "ui-state-highlight").append("\" id=\"")
                .append(Encode.forHtmlAttribute(id)).append("\">").append(Encode.forHtml(text)).append("</p>\n");
        return this;
    }

    Html table(String id, String... headers) {
        b.append("<table class=\"nicetable\" id=\"").append(Encode.forHtmlAttribute(id)).append("\"><thead><tr>");
        for (String h : headers) {
            b.append("<th>").append(Encode.forHtml(h)).append("</th>");
        }
        b.append("</tr></thead><tbody>\n");
        return this;
    }

    Html row() {
        b.append("<tr>");
        return this;
    }

    Html endRow() {
        b.append("</tr>\n");
        return this;
    }

    Html endTable() {
        b.append("</tbody></table>\n");
        return this;
    }

    Html cell(String text) {
        b.append("<td>").append(Encode.forHtml(text)).append("</td>");
        return this;
    }

    Html cell(String id, String text) {
        b.append("<td id=\"").append(Encode.forHtmlAttribute(id)).append("\">").append(Encode.forHtml(text)).append("</td>");
        return this;
    }

    /** A count or a size in bytes, grouped for reading. */
    Html number(String id, long value) {
        return figure(id, Long.toString(value), String.format(Locale.ROOT, "%,d", value));
    }

    /** A duration given in nanoseconds, shown in milliseconds. */
    Html millis(String id, long nanos) {
        return figure(id, Long.toString(nanos), String.format(Locale.ROOT, "%.3f ms", nanos / 1e6));
    }

    /** A fraction shown as a percentage. */
    Html percent(String id, double ratio) {
        return figure(id, Double.toString(ratio), String.format(Locale.ROOT, "%.1f %%", 100 * ratio));
    }

    Html decimal(String id, double value) {
        return figure(id, Double.toString(value), String.format(Locale.ROOT, "%.4g", value));
    }

    private Html figure(String id, String exact, String shown) {
        b.append("<td id=\"").append(Encode.forHtmlAttribute(id)).append("\" data-value=\"")
                .append(Encode.forHtmlAttribute(exact)).append("\">").append(Encode.forHtml(shown)).append("</td>");
        return this;
    }

    Html form(String id, String method, String action) {
        b.append("<form id=\"").append(Encode.forHtmlAttribute(id)).append("\" method=\"").append(method)
                .append("\" action=\"").append(Encode.forHtmlAttribute(action)).append("\">");
        return this;
    }

    Html endForm() {
        b.append("</form>\n");
        return this;
    }

    Html hidden(String name, String value) {
        b.append("<input type=\"hidden\" name=\"").append(Encode.forHtmlAttribute(name)).append("\" value=\"")
                .append(Encode.forHtmlAttribute(value)).append("\">");
        return this;
    }

    Html select(String id, String name) {
        b.append("<select id=\"").append(Encode.forHtmlAttribute(id)).append("\" name=\"")
                .append(Encode.forHtmlAttribute(name)).append("\">");
        return this;
    }

    Html option(String value, String label, boolean selected) {
        b.append("<option value=\"").append(Encode.forHtmlAttribute(value)).append('"').append(selected ? " selected" : "")
                .append('>').append(Encode.forHtml(label)).append("</option>");
        return this;
    }

    Html endSelect() {
        b.append("</select> ");
        return this;
    }

    Html button(String id, String label) {
        b.append("<button type=\"submit\" class=\"ui-button\" id=\"").append(Encode.forHtmlAttribute(id)).append("\">")
                .append(Encode.forHtml(label)).append("</button> ");
        return this;
    }

    Html link(String id, String href, String label) {
        b.append("<a id=\"").append(Encode.forHtmlAttribute(id)).append("\" href=\"").append(Encode.forHtmlAttribute(href))
                .append("\">").append(Encode.forHtml(label)).append("</a>");
        return this;
    }

    @Override
    public String toString() {
        return b.toString();
    }
}
