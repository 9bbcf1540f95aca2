package org.mooncake.osgi.epd.demo;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.imageio.ImageIO;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * {@code epd-demo.png}: the connectors' rates beside the plain store's (MiB/s), and EPD beside the
 * aggregated worker (TTFT and latency, p50 and p95), side by side in one image. A panel without
 * figures (a mode that ran no transfers or no load) is left out.
 */
public final class DemoChart {
    private static final int WIDTH = 640;
    private static final int HEIGHT = 420;

    private DemoChart() {
    }

    /** Writes the chart; returns false (writing nothing) when the run has no figures to draw. */
    public static boolean write(DemoReport r, Path file) throws IOException {
        List<BufferedImage> panels = new ArrayList<>();
        transfers(r).ifPresent(c -> panels.add(BitmapEncoder.getBufferedImage(c)));
        latency(r).ifPresent(c -> panels.add(BitmapEncoder.getBufferedImage(c)));
        if (panels.isEmpty()) {
            return false;
        }
        BufferedImage out = new BufferedImage(WIDTH * panels.size(), HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, out.getWidth(), out.getHeight());
        for (int i = 0; i < panels.size(); i++) {
            g.drawImage(panels.get(i), i * WIDTH, 0, null);
        }
        g.dispose();
        ImageIO.write(out, "png", file.toFile());
        return true;
    }

    static java.util.Optional<CategoryChart> transfers(DemoReport r) {
        List<TransferRow> rows = r.transfers().stream().filter(t -> t.plain() != null && !Double.isNaN(t.mibPerS()))
                .toList();
        if (rows.isEmpty()) {
            return java.util.Optional.empty();
        }
        CategoryChart c = chart("Store transfers: connector vs plain put/get", "MiB/s");
        List<String> names = rows.stream().map(TransferRow::name).toList();
        c.addSeries("connector", names, rows.stream().map(TransferRow::mibPerS).toList());
        c.addSeries("plain store", names, rows.stream().map(t -> t.plain().mibPerS()).toList());
        return java.util.Optional.of(c);
    }

    static java.util.Optional<CategoryChart> latency(DemoReport r) {
        DemoReport.Load l = r.load();
        if (l == null) {
            return java.util.Optional.empty();
        }
        CategoryChart c = chart("Streamed requests: EPD vs aggregated", "ms");
        List<String> names = List.of("TTFT p50", "TTFT p95", "latency p50", "latency p95");
        for (LoadRun run : new LoadRun[] {l.epd(), l.aggregated()}) {
            if (run != null && run.ok() > 0) {
                c.addSeries(run.path(), names, List.of(run.ttftMillis(50), run.ttftMillis(95), run.latencyMillis(50),
                        run.latencyMillis(95)));
            }
        }
        return c.getSeriesMap().isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(c);
    }

    private static CategoryChart chart(String title, String unit) {
        CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(unit).build();
        c.getStyler().setChartBackgroundColor(Color.WHITE);
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
        return c;
    }
}
