package dev.cairn.metrics;

import java.util.function.Supplier;

/**
 * What the HTTP endpoints report: why the server is not ready (null when it is: the whole tree is
 * deployed and the DBs answered their last periodic work) and the Prometheus exposition.
 */
public record HealthProbes(Supplier<String> notReadyReason, Supplier<String> scrape) {}
