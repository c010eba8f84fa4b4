-- Runtime tenants (issue 10): the registry, not each pod config file, says which tenants exist.
-- config: the tenant settings as JSON text, the fields of a tenants[] entry of the config file (parsed by
-- TenantConfig); NULL for a row a pod registered for a tenant of its own config file (not a runtime tenant).
-- updated_at: epoch ms on the DB clock (one clock for every pod), raised by at least 1 on every change
-- of the row, so a pod poller re-reads only rows above its high water (index below).
-- removed: 1 after DELETE /admin/tenants/<id>. A flag, not a row deletion: a deleted row is invisible to
-- an "updated_at > high water" poll, so other pods would never learn of it without listing every id,
-- the row also keeps the tenant placement and feed epoch, so its data (left in place, never dropped by
-- the API) comes back unchanged if the tenant is PUT again.
ALTER TABLE tenants
  ADD COLUMN config     MEDIUMTEXT NULL,
  ADD COLUMN updated_at BIGINT     NOT NULL DEFAULT 0,
  ADD COLUMN removed    TINYINT    NOT NULL DEFAULT 0,
  ADD KEY tenants_updated (updated_at);
