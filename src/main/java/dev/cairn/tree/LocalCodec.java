package dev.cairn.tree;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * The one codec of the tree: local delivery only, the immutable record is handed over by
 * reference. No JSON inside the process. Encoding to the wire is refused: the tree never clusters.
 */
public final class LocalCodec implements MessageCodec<Object, Object> {
  public static final String NAME = "cairn-local";

  @Override
  public void encodeToWire(Buffer buffer, Object o) {
    throw new UnsupportedOperationException("tree messages are local only");
  }

  @Override
  public Object decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException("tree messages are local only");
  }

  @Override
  public Object transform(Object o) {
    return o;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
