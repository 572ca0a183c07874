/**
 * Example values of the wire schemas, shown in the OpenAPI document (each schema's `examples`).
 * Kept apart from the schemas so the rules stay readable; every example is valid for its schema.
 */
const T = 1767225600000;

const agentRef = { id: 3, username: 'grace@acme.example', nickname: 'Grace', avatar: null };
const visitor = {
  customer_id: 'customer-42',
  user_nickname: 'Jo',
  true_name: null,
  qq: null,
  email: 'jo@example.com',
  phone: null,
  company_name: null,
  description: null,
  tags: ['vip'],
};
const message = {
  msg_id: '5f1d7c1e-4b7a-4d7e-8c1a-9d5b2e3f4a10',
  direction: 'customer',
  from: 'customer-42',
  bodies: [{ type: 'txt', msg: 'Where is my order?' }],
  ext: {},
  timestamp: T,
  createdAt: T,
  agent: null,
  delivery: null,
  receipt: null,
};

export const CHANNEL_EXAMPLES = {
  createAssociation: { name: 'Web shop', callback_url: 'https://shop.example.com/parley/replies', agent_queue_id: '2' },
  updateAssociation: { callback_url: 'https://shop.example.com/parley/replies-v2' },
  association: {
    tenantId: 1,
    channelId: 7,
    name: 'Web shop',
    clientId: '0b6f1c9e-3a2d-4f4e-9b8a-7c6d5e4f3a21',
    clientSecret: '9f86d081884c7d659a2feaa0c55ad015',
    postMessageUrl: 'http://127.0.0.1:8080/api/tenants/1/rest/channels/7/messages',
    callbackUrl: 'https://shop.example.com/parley/replies',
    agentQueueId: '2',
    events: [],
    createDateTime: T,
    previousSecretExpiresAt: null,
  },
  customerMessage: {
    bodies: [{ type: 'txt', msg: 'Where is my order?' }],
    origin_type: 'rest',
    from: 'customer-42',
    timestamp: T,
    msg_id: 'shop-msg-1001',
    ext: { visitor: { user_nickname: 'Jo', email: 'jo@example.com' } },
  },
  sendMessageResult: { msg_id: 'shop-msg-1001', conversation_id: 12, duplicate: false },
  sendReply: { bodies: [{ type: 'txt', msg: 'It ships tomorrow.' }] },
  sendReplyResult: { msg_id: '0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a', delivery: { id: 'dlv_01J9Z8Y7X6', status: 'pending' } },
  conversation: { id: 12, state: 'processing', queue_id: '2', agent: agentRef, visitor, vip: true, channelId: 7, createdAt: T, lastMessage: message, rating: null, labels: [] },
  message,
  transfer: { queue_id: '3' },
  delivery: {
    id: 'dlv_01J9Z8Y7X6',
    channelId: 7,
    msg_id: '0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a',
    event: null,
    to: 'customer-42',
    status: 'succeeded',
    attempts: [{ attempt: 1, startedAt: T, statusCode: 200, latencyMs: 42, error: null, succeeded: true }],
    nextAttemptAt: null,
    createdAt: T,
    updatedAt: T,
  },
  media: { url: 'http://127.0.0.1:8080/media/3c1e5a7b9d', filename: 'receipt.png', file_length: 48213, content_type: 'image/png' },
};

const IM_USER = { uuid: '8a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', type: 'user', created: T, modified: T, username: 'alice', nickname: 'Alice', activated: true };

export const IM_EXAMPLES = {
  createApp: { org_name: 'acme', app_name: 'shop' },
  appCreated: { appkey: 'acme#shop', application: '1f0c2b1e-6a51-4d1e-9d7e-2b8f2f7d2c11', client_id: 'YXA6c2hvcC1jbGllbnQ', client_secret: 'YXA6c2VjcmV0LXZhbHVlLTEyMw' },
  tokenRequest: { grant_type: 'client_credentials', client_id: 'YXA6c2hvcC1jbGllbnQ', client_secret: 'YXA6c2VjcmV0LXZhbHVlLTEyMw' },
  token: { access_token: 'YWMtX2FkbWluLXRva2Vu', expires_in: 604800, application: '1f0c2b1e-6a51-4d1e-9d7e-2b8f2f7d2c11' },
  newUser: { username: 'alice', password: 'a secret of hers', nickname: 'Alice' },
  user: IM_USER,
  createGroup: { groupname: 'Team', description: 'The team', public: true, maxusers: 200, owner: 'alice', members: ['bob'] },
  createRoom: { name: 'Lobby', description: 'Say hello', maxusers: 500, owner: 'alice', members: ['bob'] },
  send: { from: 'alice', to: ['bob'], type: 'txt', body: { msg: 'hello' }, ext: {} },
  legacySend: { target_type: 'users', target: ['bob'], msg: { type: 'txt', msg: 'hello' }, from: 'alice' },
  words: { words: ['spam'] },
  group: {
    id: '1234567890123',
    name: 'Team',
    description: 'The team',
    public: true,
    maxusers: 200,
    owner: 'alice',
    created: T,
    membersonly: false,
    allowinvites: false,
    invite_need_confirm: false,
    custom: '',
    avatar: '',
    affiliations_count: 2,
    affiliations: [{ owner: 'alice' }, { member: 'bob' }],
  },
};

export const CALLBACK_EXAMPLES = {
  settings: { enabled: true, store_failed: true },
  createRule: { name: 'orders', url: 'https://hooks.example.com/im', event_types: ['chat', 'chat_offline'], chat_types: ['chat'] },
  updateRule: { enabled: false },
  rule: {
    name: 'orders',
    url: 'https://hooks.example.com/im',
    enabled: true,
    event_types: ['chat', 'chat_offline'],
    chat_types: ['chat'],
    message_types: ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'],
    sources: ['sdk', 'rest'],
    secret: 'k3y-5ecret-0f-the-rule',
    status: 'active',
    ban_count: 0,
    banned_until: null,
    redrive: false,
    previous_secret_expires_at: null,
  },
  storedKey: { date: '202601010000', size: 3, retry: 0 },
  retry: { date: '202601010000' },
  storedRecord: {
    callId: 'acme#shop_1234567890123',
    rule: 'orders',
    eventType: 'chat',
    msg_id: '1234567890123',
    stored_at: T,
    last_error: 'HTTP 500',
    last_resend: { result: 'success', at: T + 600_000 },
    record: { callId: 'acme#shop_1234567890123', eventType: 'chat' },
  },
  recent: { now: T, attempts: [{ at: T, rule: 'orders', callId: 'acme#shop_1234567890123', result: 'success', latencyMs: 35, error: null, resend: false }], minutes: [{ minute: T, success: 1, overlong: 0, failure: 0 }] },
};
