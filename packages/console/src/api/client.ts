/**
 * The console's only way to the server: typed calls to the public `/api` surface (contract 2).
 * Failures become an ApiError that carries the server's errorCode and errorDescription, so every
 * error state can show the API's own words.
 */
import type {
  AgentReplyBody,
  AgentStatus,
  AgentView,
  ApiErrorBody,
  AppCreated,
  AppSummary,
  AppTokenResult,
  AssociationView,
  CannedReplyRequest,
  CannedReplyUpdate,
  CannedReplyView,
  ConversationCounts,
  ConversationSort,
  ConversationState,
  ConversationView,
  CreateAgentRequest,
  CreateAssociationRequest,
  CreateTenantRequest,
  DeliveryView,
  LoginResult,
  MediaView,
  MessageView,
  NoteView,
  ReportQuery,
  ReportView,
  SendReplyResult,
  SkillGroupView,
  SupervisorView,
  TenantView,
  TransferRequest,
  UpdateAssociationRequest,
  OperationsWebhookRequest,
  OperationsWebhookView,
  OperatorEventView,
} from '@parley/protocol';
import type { OperationsApi } from './operations.js';

interface EntityEnvelope<T> {
  status: 'OK';
  entity: T;
}

interface ListEnvelope<T> {
  status: 'OK';
  entities: T[];
  total: number;
}

/** Filters of the conversation list (contract 6.3); times are epoch ms bounding `updatedAt`. */
export interface ConversationFilters {
  state?: ConversationState | undefined;
  queue_id?: string | undefined;
  agent_id?: number | undefined;
  mine?: boolean | undefined;
  team?: boolean | undefined;
  customer?: string | undefined;
  q?: string | undefined;
  label?: string | undefined;
  vip?: boolean | undefined;
  waiting_min?: number | undefined;
  sort?: ConversationSort | undefined;
  from?: number | undefined;
  to?: number | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A query string of the set values (undefined and '' left out). */
function queryString(query: object): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  return params.toString();
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly requestId: string | undefined,
  ) {
    super(description);
  }
}

const isApiErrorBody = (value: unknown): value is ApiErrorBody =>
  typeof value === 'object' &&
  value !== null &&
  (value as { status?: unknown }).status === 'FAIL' &&
  typeof (value as { errorDescription?: unknown }).errorDescription === 'string';

/** The IM surface's error envelope: `{error, error_description}` (contract 1). */
const isImErrorBody = (value: unknown): value is { error: string; error_description: string } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { error?: unknown }).error === 'string' &&
  typeof (value as { error_description?: unknown }).error_description === 'string';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RequestOptions {
  /** An explicit bearer (IM app tokens); console calls ride on the HttpOnly session cookie. */
  token?: string | undefined;
  /** JSON body, or FormData for uploads (the browser sets the multipart boundary). */
  body?: unknown;
  signal?: AbortSignal | undefined;
}

/** One HTTP round trip; resolves with the parsed success body or throws ApiError. */
export async function apiRequest<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
  // The CSRF header the server requires of cookie-authenticated changes: a cross-site form or
  // script cannot send it, this same-origin code always does.
  const headers: Record<string, string> = { accept: 'application/json', 'x-parley-csrf': '1' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  // Fastify rejects an empty body sent as JSON, so the content type goes only with a body.
  const form = options.body instanceof FormData ? options.body : undefined;
  if (options.body !== undefined && !form) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: form ?? (options.body === undefined ? null : JSON.stringify(options.body)),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, 'network_error', 'Could not reach the Parley server. Check that it is running and try again.', undefined);
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    if (isApiErrorBody(parsed)) throw new ApiError(response.status, parsed.errorCode, parsed.errorDescription, parsed.requestId);
    if (isImErrorBody(parsed)) throw new ApiError(response.status, parsed.error, parsed.error_description, response.headers.get('x-request-id') ?? undefined);
    throw new ApiError(response.status, `http_${response.status}`, `The server answered ${response.status} ${response.statusText}`.trim(), undefined);
  }
  return parsed as T;
}

export function login(username: string, password: string): Promise<LoginResult> {
  return apiRequest<EntityEnvelope<LoginResult>>('POST', '/api/login', { body: { username, password } }).then((r) => r.entity);
}

/** Revokes the session's token and clears its cookie; a failure leaves the token to expire. */
export async function logout(): Promise<void> {
  try {
    await apiRequest('POST', '/api/logout');
  } catch {
    // offline or already signed out: nothing more to do here
  }
}

/**
 * Calls made on behalf of a signed-in user, authenticated by the session cookie the server set
 * at sign-in. A 401 means the token expired or was revoked: `onUnauthorized` lets the session
 * end and the sign-in page explain why.
 */
export class ParleyApi {
  constructor(private readonly onUnauthorized: (error: ApiError) => void) {}

  private async call<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    try {
      return await apiRequest<T>(method, path, { body, signal });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.onUnauthorized(error);
      throw error;
    }
  }

  private entity<T>(method: Method, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return this.call<EntityEnvelope<T>>(method, path, body, signal).then((r) => r.entity);
  }

  private list<T>(path: string, signal?: AbortSignal): Promise<T[]> {
    return this.call<ListEnvelope<T>>('GET', path, undefined, signal).then((r) => r.entities);
  }

  /** The tenant's operations webhook and operator events (contract 6.7). */
  tenantOperations(tenantId: number): OperationsApi {
    const path = `/api/tenants/${tenantId}/operations`;
    return {
      webhook: (signal) => this.entity<OperationsWebhookView | null>('GET', path, undefined, signal),
      save: (request: OperationsWebhookRequest) => this.entity('PUT', path, request),
      remove: () => this.entity('DELETE', path),
      events: (limit, signal) => this.list<OperatorEventView>(`${path}/events?limit=${limit}`, signal),
    };
  }

  // --- System admin -----------------------------------------------------------------------------
  listTenants(signal?: AbortSignal): Promise<TenantView[]> {
    return this.list('/api/tenants', signal);
  }

  createTenant(request: CreateTenantRequest): Promise<TenantView> {
    return this.entity('POST', '/api/tenants', request);
  }

  // --- Tenant -----------------------------------------------------------------------------------
  getTenant(tenantId: number, signal?: AbortSignal): Promise<TenantView> {
    return this.entity('GET', `/api/tenants/${tenantId}`, undefined, signal);
  }

  setVipTags(tenantId: number, vipTags: string[]): Promise<TenantView> {
    return this.entity('PUT', `/api/tenants/${tenantId}/settings`, { vip_tags: vipTags });
  }

  listSkillGroups(tenantId: number, signal?: AbortSignal): Promise<SkillGroupView[]> {
    return this.list(`/api/tenants/${tenantId}/skill-groups`, signal);
  }

  createSkillGroup(tenantId: number, queueName: string): Promise<SkillGroupView> {
    return this.entity('POST', `/api/tenants/${tenantId}/skill-groups`, { queue_name: queueName });
  }

  listAgents(tenantId: number, signal?: AbortSignal): Promise<AgentView[]> {
    return this.list(`/api/tenants/${tenantId}/agents`, signal);
  }

  createAgent(tenantId: number, request: CreateAgentRequest): Promise<AgentView> {
    return this.entity('POST', `/api/tenants/${tenantId}/agents`, request);
  }

  setAgentStatus(tenantId: number, agentId: number, status: AgentStatus): Promise<AgentView> {
    return this.entity('PUT', `/api/tenants/${tenantId}/agents/${agentId}/status`, { status });
  }

  // --- REST channel (tenant admin) ----------------------------------------------------------------
  listAssociations(tenantId: number, signal?: AbortSignal): Promise<AssociationView[]> {
    return this.list(`/api/tenants/${tenantId}/rest/channels`, signal);
  }

  createAssociation(tenantId: number, request: CreateAssociationRequest): Promise<AssociationView> {
    return this.entity('POST', `/api/tenants/${tenantId}/rest/channels`, request);
  }

  updateAssociation(tenantId: number, channelId: number, request: UpdateAssociationRequest): Promise<AssociationView> {
    return this.entity('PUT', `/api/tenants/${tenantId}/rest/channels/${channelId}`, request);
  }

  deleteAssociation(tenantId: number, channelId: number): Promise<unknown> {
    return this.entity('DELETE', `/api/tenants/${tenantId}/rest/channels/${channelId}`);
  }

  rotateAssociationSecret(tenantId: number, channelId: number): Promise<AssociationView> {
    return this.entity('POST', `/api/tenants/${tenantId}/rest/channels/${channelId}/secret`);
  }

  listDeliveries(tenantId: number, channelId: number, signal?: AbortSignal): Promise<DeliveryView[]> {
    return this.list(`/api/tenants/${tenantId}/rest/channels/${channelId}/deliveries`, signal);
  }

  redeliver(tenantId: number, channelId: number, deliveryId: string): Promise<DeliveryView> {
    return this.entity('POST', `/api/tenants/${tenantId}/rest/channels/${channelId}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`);
  }

  // --- Supervisor view and reports (tenant admin) -------------------------------------------------
  supervisor(tenantId: number, signal?: AbortSignal): Promise<SupervisorView> {
    return this.entity('GET', `/api/tenants/${tenantId}/supervisor`, undefined, signal);
  }

  report(tenantId: number, query: ReportQuery, signal?: AbortSignal): Promise<ReportView> {
    return this.entity('GET', `/api/tenants/${tenantId}/reports?${queryString(query)}`, undefined, signal);
  }

  /** The same report as a CSV download; a plain link sends the session cookie. */
  reportCsvUrl(tenantId: number, query: ReportQuery): string {
    return `/api/tenants/${tenantId}/reports.csv?${queryString(query)}`;
  }

  // --- Conversations (agents and admins) ---------------------------------------------------------
  listConversations(tenantId: number, query: { state?: ConversationState; mine?: boolean }, signal?: AbortSignal): Promise<ConversationView[]> {
    const params = new URLSearchParams();
    if (query.state) params.set('state', query.state);
    if (query.mine) params.set('mine', 'true');
    // The list is paged (default 20); the workspace shows up to the largest page.
    params.set('limit', '100');
    return this.list(`/api/tenants/${tenantId}/conversations?${params.toString()}`, signal);
  }

  /** One page of the filtered list (contract 6.3); `cursor` reads the next page, null on the last. */
  conversationPage(tenantId: number, query: ConversationFilters, signal?: AbortSignal): Promise<{ entities: ConversationView[]; cursor: string | null }> {
    return this.call<ListEnvelope<ConversationView> & { cursor: string | null }>('GET', `/api/tenants/${tenantId}/conversations?${queryString(query)}`, undefined, signal).then((r) => ({
      entities: r.entities,
      cursor: r.cursor,
    }));
  }

  /** The inbox's view counts (waiting, mine, team) with the filters the list and the counts share. */
  conversationCounts(tenantId: number, query: Pick<ConversationFilters, 'queue_id' | 'customer' | 'q' | 'label' | 'vip'>, signal?: AbortSignal): Promise<ConversationCounts> {
    return this.entity('GET', `/api/tenants/${tenantId}/conversations/counts?${queryString(query)}`, undefined, signal);
  }

  getConversation(tenantId: number, id: number, signal?: AbortSignal): Promise<ConversationView> {
    return this.entity('GET', `/api/tenants/${tenantId}/conversations/${id}`, undefined, signal);
  }

  history(tenantId: number, id: number, signal?: AbortSignal): Promise<MessageView[]> {
    return this.list(`/api/tenants/${tenantId}/conversations/${id}/messages`, signal);
  }

  accept(tenantId: number, id: number): Promise<ConversationView> {
    return this.entity('POST', `/api/tenants/${tenantId}/conversations/${id}/accept`);
  }

  transfer(tenantId: number, id: number, request: TransferRequest): Promise<ConversationView> {
    return this.entity('POST', `/api/tenants/${tenantId}/conversations/${id}/transfer`, request);
  }

  close(tenantId: number, id: number): Promise<ConversationView> {
    return this.entity('POST', `/api/tenants/${tenantId}/conversations/${id}/close`);
  }

  reply(tenantId: number, id: number, bodies: AgentReplyBody[]): Promise<SendReplyResult> {
    return this.entity('POST', `/api/tenants/${tenantId}/conversations/${id}/messages`, { bodies });
  }

  upload(tenantId: number, file: File): Promise<MediaView> {
    const form = new FormData();
    form.append('file', file, file.name);
    return this.entity('POST', `/api/tenants/${tenantId}/media`, form);
  }

  // --- Notes, labels, canned replies (agents and admins) -------------------------------------------
  notes(tenantId: number, id: number, signal?: AbortSignal): Promise<NoteView[]> {
    return this.list(`/api/tenants/${tenantId}/conversations/${id}/notes`, signal);
  }

  addNote(tenantId: number, id: number, text: string): Promise<NoteView> {
    return this.entity('POST', `/api/tenants/${tenantId}/conversations/${id}/notes`, { text });
  }

  setLabels(tenantId: number, id: number, labels: string[]): Promise<{ labels: string[] }> {
    return this.entity('PUT', `/api/tenants/${tenantId}/conversations/${id}/labels`, { labels });
  }

  listCannedReplies(tenantId: number, signal?: AbortSignal): Promise<CannedReplyView[]> {
    return this.list(`/api/tenants/${tenantId}/canned-replies`, signal);
  }

  createCannedReply(tenantId: number, request: CannedReplyRequest): Promise<CannedReplyView> {
    return this.entity('POST', `/api/tenants/${tenantId}/canned-replies`, request);
  }

  updateCannedReply(tenantId: number, id: number, patch: CannedReplyUpdate): Promise<CannedReplyView> {
    return this.entity('PUT', `/api/tenants/${tenantId}/canned-replies/${id}`, patch);
  }

  deleteCannedReply(tenantId: number, id: number): Promise<unknown> {
    return this.entity('DELETE', `/api/tenants/${tenantId}/canned-replies/${id}`);
  }

  /** URL of the agent event stream (server-sent events); EventSource sends the session cookie. */
  eventsUrl(tenantId: number): string {
    return `/api/tenants/${tenantId}/events`;
  }

  // --- IM apps (system admin) ---------------------------------------------------------------------
  createImApp(orgName: string, appName: string): Promise<AppCreated> {
    return this.call<{ data: AppCreated }>('POST', '/management/apps', { org_name: orgName, app_name: appName }).then((r) => r.data);
  }

  listImApps(signal?: AbortSignal): Promise<AppSummary[]> {
    return this.call<{ entities: AppSummary[] }>('GET', '/management/apps', undefined, signal).then((r) => r.entities);
  }

  /** A new client secret, answered once; the old one stops granting tokens. */
  rotateImAppSecret(orgName: string, appName: string): Promise<AppCreated> {
    return this.call<{ data: AppCreated }>('POST', `/management/apps/${encodeURIComponent(orgName)}/${encodeURIComponent(appName)}/secret`).then((r) => r.data);
  }

  /** An app-admin token for the signed-in system admin: opening an app needs no secret. */
  imAppToken(orgName: string, appName: string): Promise<AppTokenResult> {
    return this.call<{ data: AppTokenResult }>('POST', `/management/apps/${encodeURIComponent(orgName)}/${encodeURIComponent(appName)}/token`).then((r) => r.data);
  }
}
