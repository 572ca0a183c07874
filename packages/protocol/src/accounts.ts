/**
 * Wire schemas of the accounts surface (contract section 2) and the customer-service envelopes.
 */
import { Type, type Static, type TSchema } from 'typebox';

/** The first example a schema carries (its `examples`), for the envelope that wraps it. */
export const exampleOf = (schema: TSchema): unknown => (schema as { examples?: unknown[] }).examples?.[0];

/** `{"status":"OK","entity":{...}}`; an example of the entity becomes the envelope's unless `options` gives one. */
export const ApiEntity = <T extends TSchema>(entity: T, options: { examples?: unknown[]; description?: string } = {}) => {
  const example = exampleOf(entity);
  const examples = options.examples ?? (example === undefined ? undefined : [{ status: 'OK', entity: example }]);
  return Type.Object({ status: Type.Literal('OK'), entity }, { ...options, ...(examples ? { examples } : {}) });
};

/** `{"status":"OK","entities":[...],"total":N}`; an example of the entity becomes the envelope's. */
export const ApiEntities = <T extends TSchema>(entity: T) => {
  const example = exampleOf(entity);
  return Type.Object(
    { status: Type.Literal('OK'), entities: Type.Array(entity), total: Type.Integer() },
    example === undefined ? {} : { examples: [{ status: 'OK', entities: [example], total: 1 }] },
  );
};

/** The customer-service error envelope (contract 1), `ApiError` in the OpenAPI document. */
export const ApiErrorSchema = Type.Object(
  {
    status: Type.Literal('FAIL'),
    errorCode: Type.String({ description: 'Stable code from the error list (docs/errors.md)' }),
    errorDescription: Type.String(),
    requestId: Type.String(),
  },
  { examples: [{ status: 'FAIL', errorCode: 'invalid_request', errorDescription: 'Invalid request: queue_name must be a non-empty string', requestId: 'req-1a2b3c' }] },
);

export const Role = Type.Union([Type.Literal('system_admin'), Type.Literal('admin'), Type.Literal('agent')]);
export type Role = Static<typeof Role>;

export const Edition = Type.Union([Type.Literal('flagship'), Type.Literal('standard')]);
export type Edition = Static<typeof Edition>;

export const AgentStatus = Type.Union([Type.Literal('online'), Type.Literal('busy'), Type.Literal('offline')]);
export type AgentStatus = Static<typeof AgentStatus>;

const Username = Type.String({ minLength: 1, maxLength: 128 });
const Password = Type.String({ minLength: 8, maxLength: 256 });
const Nickname = Type.String({ minLength: 1, maxLength: 64 });

export const LoginRequest = Type.Object(
  { username: Type.String({ minLength: 1, maxLength: 128 }), password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false, examples: [{ username: 'admin@acme.example', password: 'correct horse battery' }] },
);
export type LoginRequest = Static<typeof LoginRequest>;

const USER_EXAMPLE = { id: 2, username: 'admin@acme.example', nickname: 'Ada', role: 'admin', tenantId: 1 };

export const UserView = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    nickname: Type.String(),
    role: Role,
    tenantId: Type.Union([Type.Integer(), Type.Null()]),
  },
  { examples: [USER_EXAMPLE] },
);
export type UserView = Static<typeof UserView>;

export const LoginResult = Type.Object(
  {
    access_token: Type.String(),
    expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
    user: UserView,
  },
  { examples: [{ access_token: 'pk_3q2-9yq1c0mXo2m4Lk7s', expires_in: 86400, user: USER_EXAMPLE }] },
);
export type LoginResult = Static<typeof LoginResult>;

export const CreateTenantRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    edition: Edition,
    admin: Type.Object(
      { username: Username, password: Password, nickname: Nickname },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [{ name: 'Acme', edition: 'flagship', admin: { username: 'admin@acme.example', password: 'correct horse battery', nickname: 'Ada' } }] },
);
export type CreateTenantRequest = Static<typeof CreateTenantRequest>;

export const TenantView = Type.Object(
  {
    tenantId: Type.Integer(),
    name: Type.String(),
    edition: Edition,
    defaultQueueId: Type.String(),
    vipTags: Type.Array(Type.String()),
    createDateTime: Type.Integer(),
  },
  { examples: [{ tenantId: 1, name: 'Acme', edition: 'flagship', defaultQueueId: '1', vipTags: ['vip'], createDateTime: 1767225600000 }] },
);
export type TenantView = Static<typeof TenantView>;

export const TenantParams = Type.Object({ tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export type TenantParams = Static<typeof TenantParams>;

export const UpdateTenantSettingsRequest = Type.Object(
  { vip_tags: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }) },
  { additionalProperties: false, examples: [{ vip_tags: ['vip', 'gold'] }] },
);
export type UpdateTenantSettingsRequest = Static<typeof UpdateTenantSettingsRequest>;

export const CreateSkillGroupRequest = Type.Object(
  { queue_name: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false, examples: [{ queue_name: 'Billing' }] },
);
export type CreateSkillGroupRequest = Static<typeof CreateSkillGroupRequest>;

export const SkillGroupView = Type.Object({ queue_id: Type.String(), queue_name: Type.String() }, { examples: [{ queue_id: '2', queue_name: 'Billing' }] });
export type SkillGroupView = Static<typeof SkillGroupView>;

export const CreateAgentRequest = Type.Object(
  {
    username: Type.String({ format: 'email', maxLength: 128, description: 'Login e-mail' }),
    password: Password,
    nickname: Nickname,
    avatar: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
    role: Type.Union([Type.Literal('agent'), Type.Literal('admin')]),
    queue_ids: Type.Array(Type.String(), { maxItems: 100, default: [] }),
    max_sessions: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  },
  { additionalProperties: false, examples: [{ username: 'grace@acme.example', password: 'a long secret phrase', nickname: 'Grace', role: 'agent', queue_ids: ['2'], max_sessions: 5 }] },
);
export type CreateAgentRequest = Static<typeof CreateAgentRequest>;

export const AgentView = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    nickname: Type.String(),
    avatar: Type.Union([Type.String(), Type.Null()]),
    role: Role,
    queue_ids: Type.Array(Type.String()),
    max_sessions: Type.Integer(),
    status: AgentStatus,
  },
  { examples: [{ id: 3, username: 'grace@acme.example', nickname: 'Grace', avatar: null, role: 'agent', queue_ids: ['2'], max_sessions: 5, status: 'online' }] },
);
export type AgentView = Static<typeof AgentView>;

export const AgentParams = Type.Object({ tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), agentId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export type AgentParams = Static<typeof AgentParams>;

export const SetAgentStatusRequest = Type.Object({ status: AgentStatus }, { additionalProperties: false, examples: [{ status: 'online' }] });
export type SetAgentStatusRequest = Static<typeof SetAgentStatusRequest>;

// --- Editing and deleting (contract 6.3) ---------------------------------------------------------

export const UpdateTenantRequest = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), edition: Type.Optional(Edition) },
  { additionalProperties: false, minProperties: 1, examples: [{ name: 'Acme support', edition: 'standard' }] },
);
export type UpdateTenantRequest = Static<typeof UpdateTenantRequest>;

export const SkillGroupParams = Type.Object({
  tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  queueId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
export type SkillGroupParams = Static<typeof SkillGroupParams>;

export const UpdateSkillGroupRequest = Type.Object(
  { queue_name: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false, examples: [{ queue_name: 'After-sales' }] },
);
export type UpdateSkillGroupRequest = Static<typeof UpdateSkillGroupRequest>;

/**
 * Editing an agent or tenant admin. A tenant admin (or the system admin) may change every field,
 * `password` included (a reset: no current password needed); agents may change their own
 * `nickname` and `avatar` only (their password through `PUT /api/me/password`).
 */
export const UpdateAgentRequest = Type.Object(
  {
    nickname: Type.Optional(Nickname),
    avatar: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
    role: Type.Optional(Type.Union([Type.Literal('agent'), Type.Literal('admin')])),
    queue_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
    max_sessions: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    password: Type.Optional(Password),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ nickname: 'Alice W.', queue_ids: ['2', '5'], max_sessions: 8 }] },
);
export type UpdateAgentRequest = Static<typeof UpdateAgentRequest>;

export const ChangePasswordRequest = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 256 }), new_password: Password },
  { additionalProperties: false, examples: [{ current_password: 'old-password', new_password: 'a-new-long-password' }] },
);
export type ChangePasswordRequest = Static<typeof ChangePasswordRequest>;

export const PasswordChanged = Type.Object({
  changed: Type.Literal(true),
  revoked_tokens: Type.Integer({ description: 'Other sessions of this user that were signed out' }),
});
export type PasswordChanged = Static<typeof PasswordChanged>;

export const SkillGroupDeleted = Type.Object({ deleted: Type.Literal(true), queue_id: Type.String() });
export type SkillGroupDeleted = Static<typeof SkillGroupDeleted>;

export const AgentDeleted = Type.Object({
  deleted: Type.Literal(true),
  id: Type.Integer(),
  requeued_conversations: Type.Integer({ description: 'Conversations the agent was processing, now waiting in their queue' }),
});
export type AgentDeleted = Static<typeof AgentDeleted>;
