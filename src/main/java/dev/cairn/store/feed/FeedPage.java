package dev.cairn.store.feed;

import java.util.List;

/**
 * One page of the feed after a cursor: the rows (narrowed, oldest first), whether the page was
 * full (more may follow), and how far it scanned: the last row's seq on a full page, the feed's high
 * seq at the read's snapshot on a short one (a valid resume cursor beyond the last row sent).
 */
public record FeedPage(List<FeedRow> rows, boolean full, long scannedTo) {}
