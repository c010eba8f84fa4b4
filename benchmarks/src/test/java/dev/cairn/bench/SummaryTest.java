package dev.cairn.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.bench.report.Summary;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary puts the relays of one run side by side, with Cairn/peer ratios and which way is better. */
class SummaryTest {
  static String render(List<JsonObject> results, JsonArray jmh, JsonObject machine) throws Exception {
    Method m = Summary.class.getDeclaredMethod("render", List.class, JsonArray.class, JsonObject.class);
    m.setAccessible(true);
    return (String) m.invoke(null, results, jmh, machine);
  }

  static JsonObject ingest(String relay, double perS, double p50, boolean ok) {
    return new JsonObject().put("scenario", "ingest").put("tool", "java-windowed").put("level", "50x20")
        .put("relay", relay).put("accepted_per_s", perS).put("event_ok_p50_ms", p50).put("ok", ok);
  }

  @Test
  void twoRelaysSideBySide() throws Exception {
    JsonArray jmh = new JsonArray().add(new JsonObject().put("benchmark", "dev.cairn.bench.jmh.VerifyBench.bareLibsecp256k1")
        .put("threads", 2).put("params", new JsonObject())
        .put("primaryMetric", new JsonObject().put("score", 40000.0).put("scoreError", 1.0).put("scoreUnit", "ops/s")));
    JsonObject fanout = new JsonObject().put("scenario", "fanout").put("tool", "java").put("level", "overload")
        .put("relay", "Cairn").put("deliveries_per_s", 1000.0).put("subscribers_closed", 3)
        .put("close_reasons", "3 x connection closed, code 1008 slow consumer").put("ok", true);
    String md = render(List.of(ingest("Cairn", 3000, 20, true), ingest("strfry", 1500, 40, false), fanout), jmh,
        new JsonObject().put("cores", 2).put("relays", new JsonArray().add("Cairn").add("strfry"))
            .put("load_average", "1 at start, 2 at end"));
    assertTrue(md.contains("| level | figure | Cairn | strfry | Cairn/strfry | |"), md);
    assertTrue(md.contains("| 50x20 | accepted events/s | 3,000 | 1,500 | 2.00 | higher is better |"), md);
    assertTrue(md.contains("| 50x20 | EVENT→OK p50 ms | 20 | 40 | 0.50 | lower is better |"), md);
    assertTrue(md.contains("| 50x20 | % of the libsecp256k1 verify ceiling | 7.50 | 3.75 | 2.00 | higher is better |"), md);
    assertTrue(md.contains("| 50x20 | checks | passed | **FAILED** |"), md);
    assertTrue(md.contains("overload, Cairn: closed subscribers: 3 x connection closed, code 1008 slow consumer"), md);
    assertTrue(md.contains("| load_average | 1 at start, 2 at end |"), md);
    assertTrue(md.contains("## Failures"), md);
  }

  @Test
  void oneRelayHasNoRatioColumn() throws Exception {
    String md = render(List.of(ingest("Cairn", 3000, 20, true)), new JsonArray(),
        new JsonObject().put("cores", 2).put("relays", new JsonArray().add("Cairn")));
    assertTrue(md.contains("| level | figure | Cairn |\n"), md);
    assertFalse(md.contains("Cairn/"), md);
    assertFalse(md.contains("## Failures"), md);
  }
}
