package dev.cairn.nostr;

/**
 * Note contents with what real ones carry — accents, CJK, emoji (surrogate pairs, skin tones, variation
 * selectors), symbols, quotes, backslashes and every JSON escape (tab, CR LF, backspace, form feed,
 * another control character as a six-character escape) — at lengths from a short reply to a long post:
 * what the start-up warm-ups publish and store, so the JIT compiles the text paths (UTF-8/UTF-16, JSON
 * escapes) for real traffic rather than for ASCII only. A branch the warm-up never took is compiled as
 * a trap: the first client text that takes it throws the compiled method away (measured: the first
 * benchmark notes, with CR LF and symbols, did so to the JSON writer until these texts had them).
 */
public final class SampleText {
  private static final String[] PIECES = {
      "GM nostr! ", "Café au lait, naïve résumé; ", "日本語のテキストと絵文字 ", "🎉🚀🔥 ", "\"quoted\" words, ",
      "a back\\slash, ", "a\ttab, ", "a new\nline, ", "Ελληνικά και русский текст. ", "#nostr #bitcoin ",
      "https://example.com/a/path?q=1 ", "ok 👍🏽 ", "line one\r\nline two, ", "bell\b form\f unit\u001f, ",
      "☕ ⚡ — 🏔️ ", "{json} [array] 100% <b>&amp;</b> "};

  private SampleText() {}

  /** The {@code n}-th sample: 20 to about 1,000 characters, deterministic. */
  public static String of(int n) {
    int length = 20 + (int) ((n * 2_654_435_761L) >>> 32) % 980;
    StringBuilder b = new StringBuilder(length + 40).append(n).append(": ");
    for (int i = n; b.length() < length; i++) {
      b.append(PIECES[Math.floorMod(i * 7 + n, PIECES.length)]);
    }
    return b.toString();
  }
}
