package org.mooncake.osgi.benchmarks;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Draws JMH JSON results as bar charts (PNG): one bar per benchmark, grouped by the series
 * parameter, with the score's error as error bars.
 *
 * <p>{@code JmhCharts RESULT.json OUT.png TITLE [SERIES_PARAM [BASELINE]]}: with a baseline
 * benchmark, each bar is its score over the baseline's in the same series (sizes far apart
 * then share one axis).
 */
public final class JmhCharts {
    private JmhCharts() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: JmhCharts RESULT.json OUT.png TITLE [SERIES_PARAM [BASELINE]]");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        JsonNode results = new ObjectMapper().readTree(new File(args[0]));
        String seriesParam = args.length > 3 ? args[3] : null;
        Map<String, Map<String, double[]>> series = new LinkedHashMap<>();
        String unit = "";
        // a parameter with one value throughout says nothing on an axis label
        Map<String, java.util.Set<String>> values = new LinkedHashMap<>();
        for (JsonNode r : results) {
            r.path("params").properties().forEach(p -> values.computeIfAbsent(p.getKey(), k -> new java.util.HashSet<>())
                    .add(p.getValue().asText()));
        }
        for (JsonNode r : results) {
            String name = r.get("benchmark").asText().replaceAll(".*\\.", "");
            String category = name;
            String s = "score";
            JsonNode params = r.path("params");
            if (seriesParam != null && params.has(seriesParam)) {
                s = params.get(seriesParam).asText();
                List<String> rest = new ArrayList<>();
                params.fieldNames().forEachRemaining(f -> {
                    if (!f.equals(seriesParam) && values.get(f).size() > 1) {
                        rest.add(f + "=" + params.get(f).asText());
                    }
                });
                category = rest.isEmpty() ? name : String.join(" ", rest);
            }
            JsonNode m = r.get("primaryMetric");
            unit = m.get("scoreUnit").asText();
            double err = m.get("scoreError").isNumber() ? m.get("scoreError").asDouble() : 0;
            series.computeIfAbsent(s, k -> new LinkedHashMap<>()).put(category,
                    new double[] {m.get("score").asDouble(), Double.isNaN(err) ? 0 : err});
        }
        if (args.length > 4) {
            series = relativeTo(series, args[4]);
            unit = "x " + args[4];
        }
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500).title(args[2]).yAxisTitle(unit).build();
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (var e : series.entrySet()) {
            List<String> xs = new ArrayList<>(e.getValue().keySet());
            List<Double> ys = xs.stream().map(x -> e.getValue().get(x)[0]).toList();
            List<Double> errs = xs.stream().map(x -> e.getValue().get(x)[1]).toList();
            chart.addSeries(e.getKey(), xs, ys, errs);
        }
        BitmapEncoder.saveBitmap(chart, args[1], BitmapEncoder.BitmapFormat.PNG);
        System.out.println("wrote " + args[1]);
    }

    /** Each {score, error} over the baseline category's score in its series; a series without the baseline is left out. */
    static Map<String, Map<String, double[]>> relativeTo(Map<String, Map<String, double[]>> series, String baseline) {
        Map<String, Map<String, double[]>> out = new LinkedHashMap<>();
        series.forEach((s, bars) -> {
            double[] base = bars.get(baseline);
            if (base != null && base[0] > 0) {
                Map<String, double[]> scaled = new LinkedHashMap<>();
                bars.forEach((c, v) -> scaled.put(c, new double[] {v[0] / base[0], v[1] / base[0]}));
                out.put(s, scaled);
            }
        });
        return out;
    }
}
