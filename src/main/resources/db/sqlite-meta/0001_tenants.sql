-- Tenant registry. feed_epoch: 8 chars of [a-z2-7], created once, identifies the tenant's change feed.
CREATE TABLE tenants (
  id         TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  feed_epoch TEXT NOT NULL
);
