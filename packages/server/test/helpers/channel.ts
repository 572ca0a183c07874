/**
 * REST-channel test helpers: create an association, sign and post customer messages exactly as a
 * customer's server would (spec 5.1), set up agents.
 */
import type { FastifyInstance } from 'fastify';
import { sendMessageAuthorization, signSendMessage } from '@parley/protocol';
import { call, createTenant, login } from './app.js';

export interface TestAssociation {
  tenantId: number;
  channelId: number;
  clientId: string;
  clientSecret: string;
  postMessageUrl: string;
}

/** Association names are unique per tenant: each unnamed one gets a fresh name. */
let associationSeq = 0;

export async function createAssociation(
  app: FastifyInstance,
  adminToken: string,
  tenantId: number,
  callbackUrl: string,
  extra: { name?: string; agent_queue_id?: string } = {},
): Promise<TestAssociation> {
  const res = await call(app, adminToken, 'POST', `/api/tenants/${tenantId}/rest/channels`, { name: extra.name ?? `shop-${++associationSeq}`, callback_url: callbackUrl, ...extra });
  if (res.status !== 200) throw new Error(`create association failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.entity;
}

export interface PostOptions {
  expires?: number | string;
  contentType?: string;
  /** Override the Authorization header entirely (undefined: signed correctly). */
  authorization?: string | null;
  secret?: string;
  clientId?: string;
  /** Path used in the signature (default: the URL's). */
  signedPath?: string;
  url?: string;
  /** Bytes sent in place of the signed body (to tamper with it after signing). */
  payload?: string | Buffer;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Go through inject() even when the app listens. */
  inject?: boolean;
}

export interface RawResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read envelope fields freely
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Sends a request to the app: over a real socket when the app listens (so the send-message lane
 * in front of Fastify serves it, as in production), else through inject().
 */
export async function send(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  options: { inject?: boolean } = {},
): Promise<RawResponse> {
  if (app.server.listening && !options.inject) {
    const { port } = app.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}${url}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : new Uint8Array(body) }) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: Object.fromEntries(res.headers) };
  }
  const res = await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body }) });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers as RawResponse['headers'] };
}

/** Posts a raw body to the send-message API, signed like a customer's server does. */
export async function postRaw(app: FastifyInstance, assoc: TestAssociation, body: string | Buffer, options: PostOptions = {}): Promise<RawResponse> {
  const url = options.url ?? assoc.postMessageUrl;
  const expires = options.expires ?? -1;
  const signature = signSendMessage(options.secret ?? assoc.clientSecret, {
    method: 'POST',
    path: options.signedPath ?? url.split('?')[0]!,
    expires,
    body,
  });
  const authorization = options.authorization === undefined ? sendMessageAuthorization(options.clientId ?? assoc.clientId, signature) : options.authorization;
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json; utf-8',
    'x-auth-expires': String(expires),
  };
  if (authorization !== null) headers.authorization = authorization;
  return send(app, 'POST', url, { ...headers, ...options.headers }, options.payload ?? body, { inject: options.inject === true });
}

export interface CustomerMessageInput {
  from: string;
  text?: string;
  msg_id?: string;
  ext?: Record<string, unknown>;
  bodies?: unknown[];
  timestamp?: number;
}

export const customerMessage = (m: CustomerMessageInput) =>
  JSON.stringify({
    bodies: m.bodies ?? [{ type: 'txt', msg: m.text ?? 'hello' }],
    ...(m.ext ? { ext: m.ext } : {}),
    ...(m.msg_id ? { msg_id: m.msg_id } : {}),
    origin_type: 'rest',
    from: m.from,
    timestamp: m.timestamp ?? 1_893_455_940_000,
  });

export async function sendCustomerMessage(app: FastifyInstance, assoc: TestAssociation, m: CustomerMessageInput) {
  const res = await postRaw(app, assoc, customerMessage(m));
  if (res.status !== 200) throw new Error(`send message failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.entity as { msg_id: string; conversation_id: number; duplicate: boolean };
}

export interface TestAgent {
  id: number;
  username: string;
  token: string;
}

let agentSeq = 0;

export async function createAgent(
  app: FastifyInstance,
  adminToken: string,
  tenantId: number,
  options: { queueIds: string[]; maxSessions?: number; online?: boolean; nickname?: string; avatar?: string; role?: 'agent' | 'admin' },
): Promise<TestAgent> {
  const username = `agent${++agentSeq}-${Date.now().toString(36)}@example.com`;
  const res = await call(app, adminToken, 'POST', `/api/tenants/${tenantId}/agents`, {
    username,
    password: 'agent-password',
    nickname: options.nickname ?? `Agent ${agentSeq}`,
    ...(options.avatar ? { avatar: options.avatar } : {}),
    role: options.role ?? 'agent',
    queue_ids: options.queueIds,
    max_sessions: options.maxSessions ?? 5,
  });
  if (res.status !== 200) throw new Error(`create agent failed: ${res.status} ${JSON.stringify(res.body)}`);
  const token = await login(app, username, 'agent-password');
  const agent = { id: res.body.entity.id as number, username, token };
  if (options.online) await setStatus(app, tenantId, agent, 'online');
  return agent;
}

export async function setStatus(app: FastifyInstance, tenantId: number, agent: TestAgent, status: 'online' | 'busy' | 'offline') {
  const res = await call(app, agent.token, 'PUT', `/api/tenants/${tenantId}/agents/${agent.id}/status`, { status });
  if (res.status !== 200) throw new Error(`set status failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export async function createQueue(app: FastifyInstance, adminToken: string, tenantId: number, name: string): Promise<string> {
  const res = await call(app, adminToken, 'POST', `/api/tenants/${tenantId}/skill-groups`, { queue_name: name });
  if (res.status !== 200) throw new Error(`create queue failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.entity.queue_id;
}

export async function conversation(app: FastifyInstance, token: string, tenantId: number, id: number) {
  const res = await call(app, token, 'GET', `/api/tenants/${tenantId}/conversations/${id}`);
  if (res.status !== 200) throw new Error(`read conversation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.entity;
}

/** A tenant with one skill group (`sales`), an association pushing nowhere, and one agent of the group (offline). */
export interface SalesWorld {
  tenantId: number;
  adminToken: string;
  assoc: TestAssociation;
  agent: TestAgent;
}

export async function createSalesWorld(app: FastifyInstance, root: string, name: string): Promise<SalesWorld> {
  const tenant = await createTenant(app, root, name);
  const sales = await createQueue(app, tenant.adminToken, tenant.tenantId, 'sales');
  const assoc = await createAssociation(app, tenant.adminToken, tenant.tenantId, 'http://127.0.0.1:9/hook');
  const agent = await createAgent(app, tenant.adminToken, tenant.tenantId, { queueIds: [sales] });
  return { tenantId: tenant.tenantId, adminToken: tenant.adminToken, assoc, agent };
}
