// The timeline as a picture: one PNG per scenario run with every server side by side, drawn by JFreeChart
// from the same per-second numbers as the text timeline.
package dev.pumaplus.bench.loadgen;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.text.DecimalFormat;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

final class Plots {
  private static final Color[] COLORS = {new Color(0xC0392B), new Color(0x2471A3), new Color(0x229954),
      new Color(0x7D3C98), new Color(0xB9770E), new Color(0x566573)};

  private Plots() {}

  /**
   * Writes {@code file}: stacked panels sharing the time axis — p99 latency (log scale), completed rps with
   * the offered rate, errors + failed probes per second, and queue p95 from /stats (servers that report it).
   */
  static void write(String title, Map<String, Timeline> timelines, Path file) throws IOException {
    XYSeriesCollection p99 = new XYSeriesCollection();
    XYSeriesCollection rps = new XYSeriesCollection();
    XYSeriesCollection errors = new XYSeriesCollection();
    XYSeriesCollection queue = new XYSeriesCollection();
    Map<String, Color> colors = new LinkedHashMap<>();
    XYSeries offered = new XYSeries("offered");
    boolean offeredDone = false;
    int i = 0;
    for (Map.Entry<String, Timeline> e : timelines.entrySet()) {
      String name = e.getKey();
      colors.put(name, COLORS[i++ % COLORS.length]);
      XYSeries lat = new XYSeries(name), done = new XYSeries(name), err = new XYSeries(name), q = new XYSeries(name);
      boolean anyQueue = false;
      for (Timeline.Second s : e.getValue().seconds) {
        if (!Double.isNaN(s.p99Ms())) lat.add(s.t(), Math.max(0.01, s.p99Ms()));
        done.add(s.t(), s.ok());
        err.add(s.t(), s.errors() + s.probeFailures());
        if (!Double.isNaN(s.queueP95Ms())) {
          q.add(s.t(), s.queueP95Ms());
          anyQueue = true;
        }
        if (!offeredDone) offered.add(s.t(), s.offeredRps());
      }
      offeredDone = true;
      p99.addSeries(lat);
      rps.addSeries(done);
      errors.addSeries(err);
      if (anyQueue) queue.addSeries(q);
    }
    rps.addSeries(offered);

    NumberAxis time = new NumberAxis("seconds into the measured run");
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
    plot.setGap(8);
    LogAxis latencyAxis = new LogAxis("p99 latency (ms, log)");
    latencyAxis.setSmallestValue(0.01);
    latencyAxis.setTickUnit(new NumberTickUnit(1.0)); // one tick per decade: 0.1, 1, 10, 100 ms ...
    latencyAxis.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
    NumberAxis errorAxis = new NumberAxis("errors + failed probes per s");
    errorAxis.setAutoRangeMinimumSize(5);
    errorAxis.setRangeType(org.jfree.data.RangeType.POSITIVE);
    errorAxis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    plot.add(panel(p99, latencyAxis, colors, false), 3);
    plot.add(panel(rps, new NumberAxis("completed per s"), colors, true), 2);
    plot.add(panel(errors, errorAxis, colors, false), 2);
    if (queue.getSeriesCount() > 0) plot.add(panel(queue, new NumberAxis("queue p95 from /stats (ms)"), colors, false), 2);
    JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(file.toFile(), chart, 900, 260 + 120 * plot.getSubplots().size());
  }

  /** {@code legend}: whether this panel's series appear in the chart's one legend (one panel does). */
  private static XYPlot panel(XYSeriesCollection data, org.jfree.chart.axis.ValueAxis axis, Map<String, Color> colors, boolean legend) {
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
    for (int s = 0; s < data.getSeriesCount(); s++) {
      String key = data.getSeriesKey(s).toString();
      Color color = colors.getOrDefault(key, Color.GRAY);
      renderer.setSeriesPaint(s, color);
      renderer.setSeriesStroke(s, key.equals("offered")
          ? new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1, new float[] {5, 4}, 0)
          : new BasicStroke(1.6f));
      renderer.setSeriesVisibleInLegend(s, legend);
    }
    axis.setLabelFont(axis.getLabelFont().deriveFont(11f));
    XYPlot panel = new XYPlot(data, null, axis, renderer);
    panel.setBackgroundPaint(Color.WHITE);
    panel.setRangeGridlinePaint(Color.LIGHT_GRAY);
    panel.setDomainGridlinePaint(Color.LIGHT_GRAY);
    return panel;
  }
}
