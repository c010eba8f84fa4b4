-- NIP-86 relay management: what admins changed through the API, per tenant, on top of the config file.
-- list: banned_pubkey | allowed_pubkey | banned_event; value: 64 hex; reason: as given ('' when none).
CREATE TABLE admin_entries (
  tenant   TEXT NOT NULL,
  list     TEXT NOT NULL,
  value    TEXT NOT NULL,
  reason   TEXT NOT NULL DEFAULT '',
  added_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, list, value)
);
-- NIP-11 fields changed through the API (field: name | description | icon); they override the config.
CREATE TABLE admin_info (
  tenant     TEXT NOT NULL,
  field      TEXT NOT NULL,
  value      TEXT NOT NULL,
  changed_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, field)
);
