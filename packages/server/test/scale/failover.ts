/**
 * What the failover tests (and bench/scale.mjs's take-over runs) read around a kill -9: the
 * victim's jobs in flight at the kill, and, per record, how often and with which ids it arrived.
 */
import pg from 'pg';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import type { ParleyProcess } from '../helpers/process.js';
import type { ReceivedRequest } from '../helpers/receiver.js';
import { call, type Cluster, type Json } from './cluster.js';

export interface Readiness {
  status: string;
  instances: Array<{ id: string; self: boolean; in_flight: number; last_heartbeat: string; heartbeat_age_ms: number; started_at: string }>;
}

export async function readyz(origin: string): Promise<Readiness> {
  return (await (await fetch(`${origin}/readyz`)).json()) as Readiness;
}

export interface Kill {
  /** Date.now() just before the signal. */
  at: number;
  victimId: string;
  /**
   * The victim's jobs in flight at the kill: the larger of what its /readyz said just before and
   * what its last heartbeat recorded. Only these may be run twice.
   */
  inFlight: number;
}

/** kill -9 of `victim`, with its jobs in flight as it said just before and as its last heartbeat recorded. */
export async function killWithInFlight(cluster: Cluster, victim: ParleyProcess): Promise<Kill> {
  const self = (await readyz(victim.url)).instances.find((i) => i.self);
  if (!self) throw new Error('the victim does not list itself in /readyz');
  const at = Date.now();
  await victim.kill9();
  const client = new pg.Client({ connectionString: cluster.db.config.databaseUrl as string });
  await client.connect();
  try {
    const { rows } = await client.query<{ in_flight: number }>('SELECT in_flight FROM instances WHERE id = $1', [self.id]);
    return { at, victimId: self.id, inFlight: Math.max(self.in_flight, Number(rows[0]?.in_flight ?? 0)) };
  } finally {
    await client.end();
  }
}

/** Jobs stored in the cluster's database (any state): 0 once every delivery, re-sends included, finished. */
export async function jobsLeft(cluster: Cluster): Promise<number> {
  const client = new pg.Client({ connectionString: cluster.db.config.databaseUrl as string });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM jobs');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export interface Tally {
  /** Keys that arrived at least once. */
  delivered: number;
  /** Extra copies beyond the first, over all keys. */
  duplicates: number;
  /** Keys that arrived under more than one webhook-id (must be none). */
  idsChanged: string[];
  /** When the last key first arrived (Date.now()). */
  lastFirstArrival: number;
  /** When each key first arrived. */
  firstArrival: Map<string, number>;
}

/** Groups requests by the marker `keyOf` finds in their body (e.g. the message text). */
export function tally(requests: readonly ReceivedRequest[], keys: readonly string[], keyOf: (body: string) => string | undefined): Tally {
  const byKey = new Map<string, { count: number; ids: Set<string>; first: number }>();
  for (const r of requests) {
    const key = keyOf(r.body);
    if (key === undefined) continue;
    const seen = byKey.get(key) ?? { count: 0, ids: new Set<string>(), first: r.receivedAt };
    seen.count++;
    seen.ids.add(String(r.headers['webhook-id']));
    byKey.set(key, seen);
  }
  let delivered = 0;
  let duplicates = 0;
  let lastFirstArrival = 0;
  const idsChanged: string[] = [];
  const firstArrival = new Map<string, number>();
  for (const key of keys) {
    const seen = byKey.get(key);
    if (!seen) continue;
    firstArrival.set(key, seen.first);
    delivered++;
    duplicates += seen.count - 1;
    if (seen.ids.size > 1) idsChanged.push(key);
    lastFirstArrival = Math.max(lastFirstArrival, seen.first);
  }
  return { delivered, duplicates, idsChanged, lastFirstArrival, firstArrival };
}

async function ok(origin: string, method: string, path: string, token?: string, body?: unknown): Promise<Json> {
  const res = await call(origin, method, path, token, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface ChannelWorld {
  tenantId: number;
  agentToken: string;
  assoc: { clientId: string; clientSecret: string; postMessageUrl: string };
}

/** A tenant whose one online agent takes up to `sessions` conversations, and a REST association pushing to `callbackUrl`. */
export async function channelWorld(origin: string, root: string, name: string, callbackUrl: string, sessions: number): Promise<ChannelWorld> {
  const admin = { username: `${name}-admin@example.com`, password: 'tenant-admin-pw' };
  const tenant = (await ok(origin, 'POST', '/api/tenants', root, { name, edition: 'flagship', admin: { ...admin, nickname: 'Admin' } })).entity as Json;
  const adminToken = (await ok(origin, 'POST', '/api/login', undefined, admin)).entity.access_token as string;
  const agentLogin = { username: `${name}-agent@example.com`, password: 'agent-password' };
  const agent = (
    await ok(origin, 'POST', `/api/tenants/${tenant.tenantId}/agents`, adminToken, { ...agentLogin, nickname: 'Agent', role: 'agent', queue_ids: [tenant.defaultQueueId], max_sessions: sessions })
  ).entity as Json;
  const agentToken = (await ok(origin, 'POST', '/api/login', undefined, agentLogin)).entity.access_token as string;
  await ok(origin, 'PUT', `/api/tenants/${tenant.tenantId}/agents/${agent.id}/status`, agentToken, { status: 'online' });
  const assoc = (await ok(origin, 'POST', `/api/tenants/${tenant.tenantId}/rest/channels`, adminToken, { name, callback_url: callbackUrl })).entity as ChannelWorld['assoc'];
  return { tenantId: tenant.tenantId as number, agentToken, assoc };
}

/** A customer's message, signed as the customer's server signs it; answers its conversation id. */
export async function customerSays(origin: string, world: ChannelWorld, from: string, msg: string): Promise<number> {
  const body = JSON.stringify({ bodies: [{ type: 'txt', msg }], origin_type: 'rest', from, timestamp: Date.now() });
  const signature = signSendMessage(world.assoc.clientSecret, { method: 'POST', path: world.assoc.postMessageUrl, expires: -1, body });
  const res = await fetch(`${origin}${world.assoc.postMessageUrl}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; utf-8', 'x-auth-expires': '-1', authorization: sendMessageAuthorization(world.assoc.clientId, signature) },
    body,
  });
  const json = (await res.json()) as Json;
  if (res.status !== 200) throw new Error(`send-message: ${res.status} ${JSON.stringify(json)}`);
  return json.entity.conversation_id as number;
}

/** One agent reply in a conversation. */
export async function agentReplies(origin: string, world: ChannelWorld, conversationId: number, msg: string): Promise<void> {
  await ok(origin, 'POST', `/api/tenants/${world.tenantId}/conversations/${conversationId}/messages`, world.agentToken, { bodies: [{ type: 'txt', msg }] });
}
