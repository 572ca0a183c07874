import type { Migration } from '../../types.js';

/**
 * Uploaded media: the per-tenant quota sums a tenant's sizes, and the retention sweeper reads
 * the oldest files first; both would otherwise scan the whole table.
 */
export const mediaRetention: Migration = {
  version: 50,
  name: 'media-retention',
  statements: [
    `CREATE INDEX channel_media_tenant ON channel_media (tenant_id)`,
    `CREATE INDEX channel_media_created ON channel_media (created_at)`,
  ],
};
