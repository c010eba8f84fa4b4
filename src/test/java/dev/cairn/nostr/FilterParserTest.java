package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FilterParserTest {
  private static final String A = "aa".repeat(32);
  private static final String B = "bb".repeat(32);

  private static void rejects(String json, String message) {
    assertEquals(message,
        assertThrows(InvalidMessageException.class, () -> FilterParser.parse(json)).getMessage());
  }

  @Test
  void parsesEveryField() throws Exception {
    Filter f = FilterParser.parse("{\"ids\":[\"" + A + "\"],\"authors\":[\"" + A + "\",\"" + B
        + "\",\"" + A + "\"],\"kinds\":[0,1,65535],\"#e\":[\"x\",\"y\"],\"#T\":[],"
        + "\"since\":10,\"until\":20,\"limit\":5,\"search\":\"best nostr\"}");
    assertEquals(Set.of(A), f.ids());
    assertEquals(Set.of(A, B), f.authors());
    assertEquals(Set.of(0, 1, 65535), f.kinds());
    assertEquals(Map.of('e', Set.of("x", "y"), 'T', Set.of()), f.tags());
    assertEquals(10L, f.since());
    assertEquals(20L, f.until());
    assertEquals(5, f.limit());
    assertEquals("best nostr", f.search());
  }

  @Test
  void absentFieldsAreNullAndUnknownOnesIgnored() throws Exception {
    Filter f = FilterParser.parse("{\"foo\":{\"ids\":[1]},\"#\":[1],\"#ab\":2,\"#1\":[3],"
        + "\"limit\":null,\"since\":null}");
    assertNull(f.ids());
    assertNull(f.authors());
    assertNull(f.kinds());
    assertEquals(Map.of(), f.tags());
    assertNull(f.since());
    assertNull(f.until());
    assertNull(f.limit());
    assertNull(f.search());
  }

  @Test
  void hugeLimitIsClampedAndZeroKept() throws Exception {
    assertEquals(Integer.MAX_VALUE, FilterParser.parse("{\"limit\":10000000000000000000000}").limit());
    assertEquals(0, FilterParser.parse("{\"limit\":0}").limit());
  }

  @Test
  void rejectsMalformedFields() {
    rejects("{\"ids\":[\"" + A.toUpperCase() + "\"]}",
        "invalid: filter ids must be 64 lowercase hex characters");
    rejects("{\"ids\":[\"abc\"]}", "invalid: filter ids must be 64 lowercase hex characters");
    rejects("{\"authors\":[1]}", "invalid: filter authors must be 64 lowercase hex characters");
    rejects("{\"authors\":\"" + A + "\"}", "invalid: filter authors must be an array");
    rejects("{\"kinds\":[65536]}", "invalid: filter kinds must be integers between 0 and 65535");
    rejects("{\"kinds\":[-1]}", "invalid: filter kinds must be integers between 0 and 65535");
    rejects("{\"kinds\":[\"1\"]}", "invalid: filter kinds must be integers between 0 and 65535");
    rejects("{\"kinds\":1}", "invalid: filter kinds must be an array");
    rejects("{\"#e\":\"x\"}", "invalid: filter #e must be an array of strings");
    rejects("{\"#p\":[1]}", "invalid: filter #p must be an array of strings");
    rejects("{\"since\":-1}", "invalid: filter since must be a non-negative integer");
    rejects("{\"until\":1.5}", "invalid: filter until must be a non-negative integer");
    rejects("{\"until\":\"5\"}", "invalid: filter until must be a non-negative integer");
    rejects("{\"limit\":-1}", "invalid: filter limit must be a non-negative integer");
    rejects("{\"limit\":1e2}", "invalid: filter limit must be a non-negative integer");
    rejects("{\"search\":1}", "invalid: filter search must be a string");
    rejects("{\"kinds\":[1],\"kinds\":[2]}", "invalid: duplicate filter field \"kinds\"");
    rejects("{\"#e\":[],\"#e\":[]}", "invalid: duplicate filter field \"#e\"");
    rejects("[]", "invalid: filter must be a JSON object");
    rejects("{\"kinds\":[1]", "invalid: filter is not valid JSON");
    rejects("{\"kinds\":[-1]}}", "invalid: filter is not valid JSON");
  }
}
