import type { Migration } from '../../types.js';

/**
 * Association names are unique per tenant. A database may already hold duplicates: all but the
 * oldest of each get their id appended, "Shop" becoming "Shop (7)", before the unique index is
 * built, so the migration never fails on them and no association is lost.
 */
export const associationNames: Migration = {
  version: 70,
  name: 'association-names',
  statements: [
    `UPDATE rest_channels SET name = name || ' (' || CAST(id AS TEXT) || ')'
      WHERE EXISTS (SELECT 1 FROM rest_channels o WHERE o.tenant_id = rest_channels.tenant_id AND o.name = rest_channels.name AND o.id < rest_channels.id)`,
    `CREATE UNIQUE INDEX rest_channels_tenant_name ON rest_channels (tenant_id, name)`,
  ],
};
