package org.mooncake.osgi.benchmarks.policy;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * The loss anatomy's picture: the points of saving lost, stacked by data type, over the time
 * since the key's previous read; the table's "data type, since the previous read" drawn, where
 * it shows at a glance whether losses are short reuse the policy evicted too early or long reuse
 * no cache of this size keeps.
 */
final class AnatomyChart {
    private AnatomyChart() {
    }

    /** One series per data type read, one bar per gap; a bar's height is the points it lost. */
    static CategoryChart of(LossAnatomy anatomy, String title) {
        CategoryChart chart = new CategoryChartBuilder().width(900).height(520).title(title)
                .xAxisTitle("time since the key's previous read").yAxisTitle("saving lost (points of the reads' recompute cost)")
                .build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setStacked(true);
        List<String> gaps = Arrays.stream(LossAnatomy.Gap.values()).map(g -> g.label).toList();
        double all = anatomy.total().costMs;
        Map<ObjectDataType, LossAnatomy.Tally> byType = anatomy.by(LossAnatomy.Cell::type);
        for (ObjectDataType type : byType.keySet()) {
            Map<LossAnatomy.Gap, LossAnatomy.Tally> byGap = anatomy.by(c -> c.type() == type, LossAnatomy.Cell::gap);
            List<Double> lost = new ArrayList<>();
            for (LossAnatomy.Gap g : LossAnatomy.Gap.values()) {
                LossAnatomy.Tally t = byGap.get(g);
                lost.add(t == null || all == 0 ? 0 : 100 * t.lostMs() / all);
            }
            chart.addSeries(type.name(), gaps, lost);
        }
        return chart;
    }

    /** Writes {@code chart} as {@code base}.svg and {@code base}.png; returns the two files. */
    static List<Path> write(CategoryChart chart, Path base) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Path svg = base.resolveSibling(base.getFileName() + ".svg");
        Path png = base.resolveSibling(base.getFileName() + ".png");
        VectorGraphicsEncoder.saveVectorGraphic(chart, svg.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
        return List.of(svg, png);
    }
}
