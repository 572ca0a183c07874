/**
 * REST associations (contract 3.1): a tenant admin creates one per customer server; Parley
 * generates the Client ID and Client Secret. Only flagship tenants have the REST channel.
 */
import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { DEFAULT_SECRET_OVERLAP_SECONDS, sendMessageKey, type AssociationView, type CreateAssociationRequest, type UpdateAssociationRequest } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { randomHex } from '../../kernel/ids.js';
import type { SecretBox } from '../../kernel/secret-box.js';
import { liveOverlap, overlapAfterRotation, type SecretOverlap } from '../../kernel/secret-overlap.js';
import { TtlCache } from '../../kernel/ttl-cache.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import type { AccountsService } from '../accounts/service.js';
import { afterCheck, InProcessSettingsVersions, type SettingsScope, type SettingsVersions } from '../coordination/settings-versions.js';
import type { OutboundUrlGuard } from './url-guard.js';
import type { Association, AssociationsRepository, RoutingDirectory } from './ports.js';

export const postMessagePath = (tenantId: number, channelId: number) => `/api/tenants/${tenantId}/rest/channels/${channelId}/messages`;

/** An association with its Client Secret (and the previous one, during an overlap) opened, as ingest and push need it. */
export interface OpenAssociation extends Association {
  clientSecret: string;
  previousClientSecret: SecretOverlap<string> | null;
}

/** What ingest checks a request with: the opened secrets also as secret KeyObjects for `createHmac`. */
export interface ClientAssociation extends OpenAssociation {
  signingKey: KeyObject;
  previousSigningKey: SecretOverlap<KeyObject> | null;
}

const CACHE_TTL_MS = 5_000;
/** Channels whose Client ID `openById` remembers; past it the map starts over. */
const CLIENT_IDS_KEPT = 10_000;

/**
 * Runs a write that sets an association's name: names are unique per tenant (a unique index;
 * the Client ID, the only other unique key, is a fresh UUID), so a unique-key conflict is 409.
 */
async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isConflict(error, 'unique')) throw new AppError('duplicate_name', { resource: 'Association', name }, { cause: error });
    throw error;
  }
}

export class AssociationsService {
  /** Client ID -> association, so that ingest does not read and decrypt on every message. */
  private readonly byClientId: TtlCache<string, ClientAssociation | undefined>;
  /** Read-your-writes of the cached association across instances, by Client ID. */
  private readonly versions: SettingsScope;
  /** `tenantId:channelId` -> the channel's Client ID (fixed for its life), for `openById`. */
  private readonly clientIdOf = new Map<string, string>();

  constructor(
    private readonly repo: AssociationsRepository,
    private readonly directory: RoutingDirectory,
    private readonly accounts: AccountsService,
    private readonly box: SecretBox,
    private readonly urlGuard: OutboundUrlGuard,
    private readonly clock: Clock,
    versions: SettingsVersions = new InProcessSettingsVersions(),
  ) {
    this.byClientId = new TtlCache(clock, CACHE_TTL_MS);
    this.versions = versions.scope('channel.association', (clientId) => this.byClientId.delete(clientId));
  }

  view(a: Association): AssociationView {
    return {
      tenantId: a.tenantId,
      channelId: a.id,
      name: a.name,
      clientId: a.clientId,
      clientSecret: this.box.open(a.secretSealed),
      postMessageUrl: postMessagePath(a.tenantId, a.id),
      callbackUrl: a.callbackUrl,
      agentQueueId: a.agentQueueId === null ? null : String(a.agentQueueId),
      events: a.events,
      createDateTime: a.createdAt,
      previousSecretExpiresAt: liveOverlap(a.previousSecret, this.clock.now())?.until ?? null,
    };
  }

  private openPrevious(a: Association): SecretOverlap<string> | null {
    return a.previousSecret && { previous: this.box.open(a.previousSecret.previous), until: a.previousSecret.until };
  }

  private async requireFlagship(tenantId: number): Promise<void> {
    const tenant = await this.accounts.requireTenant(tenantId);
    if (tenant.edition !== 'flagship') throw new AppError('edition_not_supported', { edition: tenant.edition, feature: 'the REST channel', tenantId: tenant.id });
  }

  private async queueIdOf(tenantId: number, raw: string | null | undefined): Promise<number | null | undefined> {
    if (raw === undefined) return undefined;
    if (raw === null) return null;
    const queue = await this.directory.queue(tenantId, Number(raw));
    if (!queue) throw new AppError('invalid_request', { detail: `agent_queue_id: unknown skill group ${raw}` });
    return queue.id;
  }

  private async checkedCallbackUrl(raw: string): Promise<string> {
    const url = raw.trim();
    await this.urlGuard.assertAllowedUrl(url);
    return url;
  }

  async create(tenantId: number, input: CreateAssociationRequest): Promise<AssociationView> {
    await this.requireFlagship(tenantId);
    const callbackUrl = await this.checkedCallbackUrl(input.callback_url);
    const agentQueueId = (await this.queueIdOf(tenantId, input.agent_queue_id)) ?? null;
    const now = this.clock.now();
    const name = input.name.trim();
    const created = await uniqueName(name, () =>
      this.repo.create({ tenantId, name, callbackUrl, clientId: randomUUID(), secretSealed: this.box.seal(randomHex(16)), agentQueueId, events: [], createdAt: now, updatedAt: now }),
    );
    return this.view(created);
  }

  async require(tenantId: number, channelId: number): Promise<Association> {
    await this.requireFlagship(tenantId);
    const found = await this.repo.get(tenantId, channelId);
    if (!found) throw new AppError('not_found', { resource: `REST channel ${channelId}` });
    return found;
  }

  async get(tenantId: number, channelId: number): Promise<AssociationView> {
    return this.view(await this.require(tenantId, channelId));
  }

  async list(tenantId: number): Promise<AssociationView[]> {
    await this.requireFlagship(tenantId);
    return (await this.repo.list(tenantId)).map((a) => this.view(a));
  }

  async update(tenantId: number, channelId: number, input: UpdateAssociationRequest): Promise<AssociationView> {
    const current = await this.require(tenantId, channelId);
    const patch = {
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.callback_url !== undefined ? { callbackUrl: await this.checkedCallbackUrl(input.callback_url) } : {}),
      ...(input.agent_queue_id !== undefined ? { agentQueueId: await this.queueIdOf(tenantId, input.agent_queue_id) } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
    };
    const updated = await uniqueName(patch.name ?? current.name, () => this.repo.update(tenantId, current.id, patch, this.clock.now()));
    if (!updated) throw new AppError('not_found', { resource: `REST channel ${channelId}` });
    await this.versions.changed(updated.clientId);
    return this.view(updated);
  }

  async delete(tenantId: number, channelId: number): Promise<void> {
    const current = await this.require(tenantId, channelId);
    await this.repo.delete(tenantId, current.id);
    await this.versions.changed(current.clientId);
  }

  /**
   * A new Client Secret. The one it replaces keeps working for `overlapSeconds` (contract 6.6;
   * 0: once this answers, it works on no instance). A rotation during an overlap drops the older one.
   */
  async rotateSecret(tenantId: number, channelId: number, overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS): Promise<AssociationView> {
    const current = await this.require(tenantId, channelId);
    const now = this.clock.now();
    const previousSecret = overlapAfterRotation(current.secretSealed, overlapSeconds, now);
    return this.saveSecrets(tenantId, current, { secretSealed: this.box.seal(randomHex(16)), previousSecret }, now);
  }

  /** Ends a rotation's overlap early: once this answers, only the current Client Secret works. */
  async endOverlap(tenantId: number, channelId: number): Promise<AssociationView> {
    const current = await this.require(tenantId, channelId);
    return this.saveSecrets(tenantId, current, { previousSecret: null }, this.clock.now());
  }

  private async saveSecrets(tenantId: number, current: Association, patch: Pick<Partial<Association>, 'secretSealed' | 'previousSecret'>, now: number): Promise<AssociationView> {
    const updated = await this.repo.update(tenantId, current.id, patch, now);
    if (!updated) throw new AppError('not_found', { resource: `REST channel ${current.id}` });
    await this.versions.changed(updated.clientId);
    return this.view(updated);
  }

  /**
   * The association of a Client ID, cached briefly. A rotation, change or deletion answered on
   * any instance is seen at once (coordination/settings-versions.ts).
   */
  byClient(clientId: string): Promise<ClientAssociation | undefined> {
    const read = () =>
      this.byClientId.get(clientId, async () => {
        const found = await this.repo.findByClientId(clientId);
        if (!found) return undefined;
        const clientSecret = this.box.open(found.secretSealed);
        const previousClientSecret = this.openPrevious(found);
        const previousSigningKey = previousClientSecret && { previous: sendMessageKey(previousClientSecret.previous), until: previousClientSecret.until };
        return { ...found, clientSecret, previousClientSecret, signingKey: sendMessageKey(clientSecret), previousSigningKey };
      });
    return afterCheck(this.versions.check(clientId), read);
  }

  /**
   * Association of a channel id with its secrets opened, for a push: the copy `byClient` caches
   * (read and decrypted once per association per CACHE_TTL_MS, not once per push), so a rotation,
   * change or deletion answered on any instance is seen by the next push. The channel's Client ID
   * never changes; it is remembered per channel to find that copy.
   */
  async openById(tenantId: number, channelId: number): Promise<OpenAssociation | undefined> {
    const key = `${tenantId}:${channelId}`;
    const known = this.clientIdOf.get(key);
    if (known !== undefined) {
      const association = await this.byClient(known);
      if (association?.tenantId === tenantId && association.id === channelId) return association;
      // Deleted (its id may since belong to another association): read the channel afresh.
      this.clientIdOf.delete(key);
    }
    const found = await this.repo.get(tenantId, channelId);
    if (!found) return undefined;
    if (this.clientIdOf.size >= CLIENT_IDS_KEPT) this.clientIdOf.clear();
    this.clientIdOf.set(key, found.clientId);
    const association = await this.byClient(found.clientId);
    return association?.tenantId === tenantId && association.id === channelId ? association : undefined;
  }
}
