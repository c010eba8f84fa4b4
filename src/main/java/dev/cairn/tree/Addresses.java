package dev.cairn.tree;

/** Event-bus addresses of the nodes; one tree per Vert.x instance, so they are fixed names. */
public final class Addresses {
  public static final String ROOT = "cairn.root";
  public static final String POLICY = "cairn.policy";
  public static final String SIG_MANAGER = "cairn.sig";
  public static final String NETWORK_MANAGER = "cairn.network";
  public static final String DATABASE_ENGINE = "cairn.db";
  public static final String DELIVERY = "cairn.delivery";

  private Addresses() {}

  public static String sigWorker(int i) {
    return "cairn.sig.worker." + i;
  }

  public static String connWorker(int i) {
    return "cairn.network.conn." + i;
  }

  public static String listener(int i) {
    return "cairn.network.listener." + i;
  }
}
