package dev.cairn.crash;

import java.util.Set;

/**
 * The tenant DB as the SIGKILL left it (read from a copy before the restart).
 *
 * @param outbox rows and ledger claims at the kill: {@code notDone} rows are the ones the restart must deliver
 * @param openForwardClaims nostr ids whose forward ledger claim was open: the only ones a restart may forward again
 */
record AtKill(StoreProbe.Outbox outbox, Set<String> openForwardClaims) {}
