package dev.cairn.policy;

import dev.cairn.admin.AdminList;
import dev.cairn.admin.TenantAdmin;
import dev.cairn.nostr.NostrEvent;
import java.util.Map;

/**
 * The rules NIP-86 admins set ({@link TenantAdmin}), as the live path ({@link Gatekeeper}) and a
 * direct import ({@link OfflineRules}) both apply them: banned events and authors, and the admins'
 * allowed pubkeys merged into the config's write allowlist.
 */
final class AdminChecks {
  private AdminChecks() {}

  /** The event or its author was banned through NIP-86. */
  static Verdict banned(TenantAdmin a, NostrEvent e) {
    if (a.contains(AdminList.BANNED_EVENTS, e.id())) {
      return Verdict.reject("banned_event", "blocked: this event was banned by the relay's admins");
    }
    if (a.contains(AdminList.BANNED_PUBKEYS, e.pubkey())) {
      return Verdict.reject("banned_pubkey", "blocked: this pubkey was banned by the relay's admins");
    }
    return null;
  }

  /**
   * The write allowlist: enforced when the config enforces it ({@code acl}, null when the tenant has
   * no rules) or admins allowed anyone through NIP-86; the members are the config's and the admins'
   * allowed pubkeys together.
   */
  static Verdict allowlisted(TenantAdmin a, WriteAcl acl, NostrEvent e) {
    Map<String, String> allowed = a.list(AdminList.ALLOWED_PUBKEYS);
    if (allowed.containsKey(e.pubkey())) {
      return null;
    }
    if (acl != null && acl.enforced()) {
      return acl.check(e);
    }
    return allowed.isEmpty() ? null
        : Verdict.reject("allowlist", "restricted: this relay only accepts events from its members");
  }
}
