package dev.cairn.bench.load;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Relay-to-client frames read from their UTF-8 bytes: the verb, the second element and an EVENT's id,
 * the rest (the event's body) never decoded. Why: the tools that read hundreds of thousands of EVENT
 * frames a second (query, fan-out) spent most of their own CPU decoding each frame into a String (JFR of
 * QueryLoad: 75% of its samples in {@code String.<init>} / {@code decodeUTF8_UTF16}; most events carry
 * non-ASCII text, so the JDK takes its slow path), on the two cores the relay under test shares with them.
 * Same reading rules as {@link Frames}, which stays the reference: a head whose strings hold an escape or a
 * non-ASCII byte is read by {@link Frames#head} from the decoded frame.
 */
final class FrameBytes {
  private FrameBytes() {}

  /**
   * Hands each complete text message of {@code ws} to {@code handler} as its bytes, fragments joined;
   * binary messages are skipped. Replaces Vert.x's text message handler (which decodes every message).
   */
  static void textMessages(WebSocket ws, Consumer<byte[]> handler) {
    Buffer[] partial = {null};
    boolean[] inText = {false};
    ws.frameHandler(frame -> {
      if (frame.isText()) {
        inText[0] = !frame.isFinal();
        if (frame.isFinal()) {
          handler.accept(frame.binaryData().getBytes());
        } else {
          partial[0] = Buffer.buffer().appendBuffer(frame.binaryData());
        }
      } else if (frame.isContinuation() && inText[0]) {
        partial[0].appendBuffer(frame.binaryData());
        if (frame.isFinal()) {
          inText[0] = false;
          byte[] whole = partial[0].getBytes();
          partial[0] = null;
          handler.accept(whole);
        }
      } else if (frame.isBinary() || frame.isContinuation()) {
        inText[0] = false;
      }
    });
  }

  /** The frame as text, for messages and notes (not on the hot path). */
  static String text(byte[] f) {
    return new String(f, StandardCharsets.UTF_8);
  }

  /** Verb and second element, or null when the frame does not start like {@code ["VERB","x"}. */
  static Frames.Head head(byte[] f) {
    int i = skipWs(f, 0);
    if (i >= f.length || f[i] != '[') return null;
    int verbStart = skipWs(f, i + 1);
    int verbEnd = plainStringEnd(f, verbStart);
    if (verbEnd < 0) return Frames.head(text(f));
    String verb = ascii(f, verbStart + 1, verbEnd);
    i = skipWs(f, verbEnd + 1);
    if (i >= f.length || f[i] != ',') return new Frames.Head(verb, null, i);
    int secondStart = skipWs(f, i + 1);
    if (secondStart >= f.length || f[secondStart] != '"') return new Frames.Head(verb, null, secondStart);
    int secondEnd = plainStringEnd(f, secondStart);
    if (secondEnd < 0) return Frames.head(text(f));
    return new Frames.Head(verb, ascii(f, secondStart + 1, secondEnd), secondEnd + 1);
  }

  /** The id of the event in an EVENT frame (the value of its "id" key, see {@link Frames#eventId}), or null. */
  static String eventId(byte[] f) {
    for (int i = 0; i + 4 <= f.length; i++) {
      if (f[i] != '"' || f[i + 1] != 'i' || f[i + 2] != 'd' || f[i + 3] != '"') continue;
      int j = i + 4;
      while (j < f.length && f[j] == ' ') j++;
      if (j >= f.length || f[j] != ':') continue;
      j++;
      while (j < f.length && f[j] == ' ') j++;
      if (j + 65 < f.length && f[j] == '"') return ascii(f, j + 1, j + 65);
    }
    return null;
  }

  /** Index of the closing quote of the string opening at {@code start}; -1 if it is not plain ASCII without escapes. */
  private static int plainStringEnd(byte[] f, int start) {
    if (start >= f.length || f[start] != '"') return -1;
    for (int i = start + 1; i < f.length; i++) {
      byte b = f[i];
      if (b == '"') return i;
      if (b == '\\' || b < 0) return -1;
    }
    return -1;
  }

  private static int skipWs(byte[] f, int i) {
    while (i < f.length && (f[i] == ' ' || f[i] == '\t' || f[i] == '\n' || f[i] == '\r')) i++;
    return i;
  }

  private static String ascii(byte[] f, int from, int to) {
    return new String(f, from, to - from, StandardCharsets.ISO_8859_1);
  }
}
