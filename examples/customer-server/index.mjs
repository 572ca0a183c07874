#!/usr/bin/env node
/**
 * Plays a customer's server (a WeChat bridge, an app backend) against Parley's REST channel:
 * it listens for agent replies on CALLBACK_PORT, verifies their signature and prints them, and
 * sends one customer message. Build first (`npm run build`), then for example:
 *
 *   PARLEY_URL=http://127.0.0.1:8080 TENANT_ID=1 CHANNEL_ID=1 \
 *   CLIENT_ID=... CLIENT_SECRET=... CALLBACK_PORT=9090 \
 *   node examples/customer-server/index.mjs "Hello, where is my order?"
 *
 * Create the association with callback_url http://127.0.0.1:9090/parley (and start Parley with
 * PARLEY_ALLOW_PRIVATE_CALLBACKS=true, since that address is local). List the conversation events
 * you want in the association (`PUT .../rest/channels/{id}` `{"events":[...]}`) to see them here;
 * every reply is acknowledged as `read`, and RATING=1..5 rates a closed conversation when invited.
 */
import http from 'node:http';
import { ChannelClient, ParleyApiError, verifyPush, WebhookVerificationError } from '@parley/sdk';

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) {
    console.error(`set ${name} (see the comment at the top of this file)`);
    process.exit(2);
  }
  return value;
};

const clientSecret = env('CLIENT_SECRET');
const client = new ChannelClient({
  baseUrl: env('PARLEY_URL', 'http://127.0.0.1:8080'),
  tenantId: Number(env('TENANT_ID')),
  channelId: Number(env('CHANNEL_ID')),
  clientId: env('CLIENT_ID'),
  clientSecret,
});
const customer = process.env.CUSTOMER_ID ?? 'wx_demo_openid_1';

// Agent replies and conversation events (the association's `events` setting) arrive here.
// Answer 2xx quickly; Parley retries anything else.
const seen = new Set();

/** What a customer's server does with a conversation event: tell the customer, and rate when invited. */
async function onEvent(event) {
  const who = event.agent ? `${event.agent.user_nickname}` : 'nobody';
  const lines = {
    queued: `you are number ${event.position} in the queue${event.estimated_wait_seconds === null ? '' : ` (about ${event.estimated_wait_seconds} s)`}`,
    position_changed: `you are now number ${event.position}`,
    assigned: `${who} joined (${event.queue_name})`,
    transferred: `handed to ${who} (${event.queue_name})`,
    agent_typing: 'the agent is typing…',
    closed: `closed by ${event.by} (${event.reason})`,
    csat_invitation: 'asked for a rating',
    csat_submitted: `rated ${event.score}`,
  };
  console.log(`event for ${event.to} in conversation ${event.conversation_id}: ${lines[event.event] ?? event.event}`);
  if (event.event === 'csat_invitation' && process.env.RATING) {
    await client.rate({ from: event.to, conversation_id: event.conversation_id, score: Number(process.env.RATING), comment: 'Sent by the example' });
  }
}
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    try {
      const received = verifyPush({ clientSecret, headers: req.headers, body: raw });
      res.writeHead(204).end();
      if (seen.has(received.deliveryId)) return; // a retry of a push already handled
      seen.add(received.deliveryId);
      if (received.kind === 'event') {
        onEvent(received.event).catch((error) => console.error(`event handling failed: ${error.message}`));
        return;
      }
      const push = received.push;
      const text = push.bodies.map((b) => (b.type === 'txt' ? b.msg : `[${b.type}] ${b.filename} ${b.url}`)).join(' ');
      const from = received.system ? 'automatic message' : `${push.ext.agent.user_nickname} (${push.ext.queue_name})`;
      console.log(`reply for ${push.to} from ${from}: ${text}`);
      // Shown to the customer: the agent sees the tick.
      client.sendReceipts(push.to, [push.ext.msg_id], 'read').catch((error) => console.error(`receipt failed: ${error.message}`));
    } catch (error) {
      const status = error instanceof WebhookVerificationError ? 401 : 400;
      res.writeHead(status).end();
      console.error(`refused a push: ${error.message}`);
    }
  });
});

server.listen(Number(env('CALLBACK_PORT', '9090')), '127.0.0.1', async () => {
  console.log(`listening for agent replies on http://127.0.0.1:${server.address().port}/`);
  try {
    const result = await client.sendMessage({
      from: customer,
      bodies: [{ type: 'txt', msg: process.argv[2] ?? 'Hello, I have a question about my order.' }],
      ext: { visitor: { user_nickname: 'Demo customer', tags: ['vip'] } },
    });
    console.log(`sent: msg_id=${result.msg_id} conversation=${result.conversation_id}${result.duplicate ? ' (duplicate)' : ''}`);
    console.log('waiting for replies; press Ctrl+C to stop');
  } catch (error) {
    if (error instanceof ParleyApiError) console.error(`Parley refused the message: ${error.status} ${error.errorCode}: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
    server.close();
  }
});
