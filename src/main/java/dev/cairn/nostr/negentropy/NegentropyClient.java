package dev.cairn.nostr.negentropy;

import java.util.List;

/**
 * The initiating side: opens with {@link #initiate}, then feeds each server reply to {@link
 * #reconcile}, which reports the differences found so far and returns the next message, or null
 * when nothing is left to ask.
 *
 * <pre>{@code
 * NegentropyClient client = Negentropy.client(storage, 0);
 * byte[] msg = client.initiate();
 * List<byte[]> have = new ArrayList<>(), need = new ArrayList<>();
 * while (msg != null) {
 *   msg = client.reconcile(send(msg), have, need);
 * }
 * // have: ids only this side has; need: ids only the server has
 * }</pre>
 *
 * <p>With a frame size limit on either side a range may be reconciled more than once, so the same
 * id can be reported in several rounds; callers that cannot tolerate that should deduplicate. Not
 * thread-safe.
 */
public final class NegentropyClient {
  private final Reconciler reconciler;
  private boolean initiated;

  NegentropyClient(NegentropyStorage storage, long frameSizeLimit) {
    this.reconciler = new Reconciler(storage, frameSizeLimit, true);
  }

  /** The first message (for NEG-OPEN). Once per client. */
  public byte[] initiate() {
    if (initiated) {
      throw new IllegalStateException("already initiated");
    }
    initiated = true;
    return reconciler.initiate();
  }

  /**
   * Processes a server reply: appends to {@code haveIds} the ids this side has and the server
   * lacks, to {@code needIds} the ids the server has and this side lacks, and returns the next
   * message to send, or null when reconciliation is complete.
   */
  public byte[] reconcile(byte[] reply, List<byte[]> haveIds, List<byte[]> needIds)
      throws NegentropyException {
    byte[] next = reconciler.reconcile(reply, haveIds, needIds);
    return next.length == 1 ? null : next;
  }
}
