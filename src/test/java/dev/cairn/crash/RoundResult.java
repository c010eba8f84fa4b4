package dev.cairn.crash;

/**
 * A round's counts, printed per round and summed for the summary line.
 *
 * @param sent EVENTs written to the sockets
 * @param accepted answered {@code OK true} before the kill
 * @param committedUnanswered stored although their OK never arrived (in flight at the kill)
 * @param stored events the store ever held (still stored or replaced), = EventStored rows
 * @param feedFrames stored + deleted frames replayed from cursor 0
 * @param delivered outbox rows done after the drain (EventStored + EventDeleted)
 * @param pendingAtKill of those, the ones not done when the relay was killed (delivered by the restart)
 * @param seenBeforeKill feed frames the live SSE consumer got before the kill
 * @param resumed feed frames it got when resuming from its cursor
 * @param liveEvents events the REQ subscriber got live before the kill
 * @param reforwarded events the forward handler ran for again after the restart (effect done, ledger mark lost)
 * @param openClaimsAtKill forward ledger claims open at the kill (the bound on {@code reforwarded})
 * @param olderVersions OK'd replaceable versions answered {@code duplicate:}, a newer one having been stored first
 */
record RoundResult(int round, long seed, long killDelayMs, long sent, long accepted, long committedUnanswered,
    long stored, long feedFrames, long delivered, long pendingAtKill, long seenBeforeKill, long resumed,
    long liveEvents, long reforwarded, long openClaimsAtKill, long olderVersions, long elapsedMs) {

  static RoundResult zero() {
    return new RoundResult(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  RoundResult plus(RoundResult r) {
    return new RoundResult(round + 1, seed, killDelayMs + r.killDelayMs, sent + r.sent, accepted + r.accepted,
        committedUnanswered + r.committedUnanswered, stored + r.stored, feedFrames + r.feedFrames,
        delivered + r.delivered, pendingAtKill + r.pendingAtKill, seenBeforeKill + r.seenBeforeKill,
        resumed + r.resumed, liveEvents + r.liveEvents, reforwarded + r.reforwarded,
        openClaimsAtKill + r.openClaimsAtKill, olderVersions + r.olderVersions, elapsedMs + r.elapsedMs);
  }

  String counts() {
    return "sent " + sent + ", OK'd " + accepted + " (" + olderVersions + " as duplicate: of a newer version stored first)"
        + ", stored " + stored + " (" + committedUnanswered
        + " without their OK), feed frames " + feedFrames + ", outbox delivered " + delivered + " (" + pendingAtKill
        + " pending at the kill), SSE " + seenBeforeKill + " before the kill + " + resumed + " resumed, live REQ "
        + liveEvents + ", forwarded again after the restart " + reforwarded + " (forward claims open at the kill "
        + openClaimsAtKill + ")";
  }
}
