package dev.cairn.metrics;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** What the HTTP endpoints report: readiness of the whole tree and the Prometheus exposition. */
public record HealthProbes(BooleanSupplier ready, Supplier<String> scrape) {}
