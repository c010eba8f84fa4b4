package dev.cairn.policy;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * SIGHUP reloads the policy rules now (as the config file poll would on its next tick). The JVM's
 * own SIGHUP handling (run the shutdown hooks and exit) is replaced once, by the first policy node
 * that has a config file to reload; every running policy node of the process is told.
 */
public final class ReloadSignal {
  private static final Logger LOG = Logger.getLogger(ReloadSignal.class.getName());
  private static final Set<Runnable> LISTENERS = new CopyOnWriteArraySet<>();
  private static volatile boolean installed;
  private static boolean tried;

  private ReloadSignal() {}

  /** True once the SIGHUP handler is in place (raising SIGHUP is then safe). */
  public static boolean installed() {
    return installed;
  }

  static void register(Runnable onHangup) {
    install();
    LISTENERS.add(onHangup);
  }

  static void unregister(Runnable onHangup) {
    LISTENERS.remove(onHangup);
  }

  private static synchronized void install() {
    if (tried) {
      return;
    }
    tried = true;
    try {
      sun.misc.SignalHandler before = sun.misc.Signal.handle(new sun.misc.Signal("HUP"), sig -> {
        LOG.info("SIGHUP: reloading the policy rules");
        for (Runnable listener : LISTENERS) {
          try {
            listener.run();
          } catch (RuntimeException e) { // one stopped node must not keep the others from reloading
            LOG.log(Level.WARNING, "a policy node could not take the SIGHUP reload", e);
          }
        }
      });
      if (before == sun.misc.SignalHandler.SIG_IGN) {
        // the process was started with SIGHUP ignored (nohup): the JVM leaves it ignored, silently
        LOG.warning("SIGHUP is ignored in this process (started with nohup?): policy rules reload on file change only");
        return;
      }
      installed = true;
    } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
      LOG.log(Level.WARNING, "SIGHUP cannot be handled on this JVM; policy rules reload on file change only", e);
    }
  }
}
