// A minimal application server that receives Parley's post-send callbacks, verifies them and
// answers 200 quickly with a short body (a 200 over 1,000 characters counts toward a rule ban).
// On /presend it is a pre-send handler: it refuses messages containing a blocked word and masks a
// rude one, answering {valid, code?, payload?} well within the rule's timeout_ms (200 ms by default).
// On /operations it is the app's operations webhook: it verifies operator events (a rule banned or
// unbanned, a reply push out of retries, an exception-store key about to expire) with
// @parley/sdk's verifyOperatorEvent and prints them.
//
//   CALLBACK_SECRET=<rule secret> PRESEND_SECRET=<pre-send rule secret> \
//   OPERATIONS_SECRET=<operations webhook secret> PORT=9000 node server.mjs
//
// The callback and pre-send checks are written out below (they are what @parley/sdk's
// verifyCallback does); operator events use the SDK (build it first: npm run build).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { verifyOperatorEvent, WebhookVerificationError } from '@parley/sdk';

const secret = process.env.CALLBACK_SECRET;
if (!secret) {
  console.error('set CALLBACK_SECRET to the rule secret shown by POST /{org}/{app}/callbacks/rules');
  process.exit(2);
}
const presendSecret = process.env.PRESEND_SECRET; // optional: the pre-send rule's secret
const operationsSecret = process.env.OPERATIONS_SECRET; // optional: the operations webhook's secret
const port = Number(process.env.PORT ?? 9000);
const BLOCKED = /\bspam\b/i; // refused: the sender sees the code below
const MASKED = /\bdarn\b/i; // delivered with the word masked
const seen = new Set(); // callIds already handled: a record can arrive twice (retry, re-send)

const md5 = (data) => createHash('md5').update(data).digest('hex');
const same = (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function verify(headers, raw, secret) {
  const record = JSON.parse(raw.toString('utf8'));
  // 1. security = md5(callId + secret + timestamp)
  if (!same(md5(`${record.callId}${secret}${record.timestamp}`), String(record.security))) return [false, 'security'];
  // 2. X-Callback-Body-MD5 = md5 of the exact body bytes
  if (!same(md5(raw), String(headers['x-callback-body-md5'] ?? ''))) return [false, 'body md5'];
  // 3. Standard Webhooks: v1,base64(HMAC-SHA256(secret, "{id}.{timestamp}.{body}")), at most 5 min old
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return [false, 'stale'];
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${ts}.`).update(raw).digest('base64');
  const ok = String(headers['webhook-signature'] ?? '').split(' ').some((s) => same(s, `v1,${mac}`));
  return ok ? [true, record] : [false, 'webhook signature'];
}

// The pre-send answer: {"valid":false,"code":...} refuses (the sender gets the code), {"valid":true}
// delivers, and a "payload" with the txt bodies' new text (and optionally a new ext) rewrites it.
// No answer in time, or an answer that is not this shape, follows the rule's on_failure.
function presend(req, res, raw) {
  let result;
  try {
    result = presendSecret ? verify(req.headers, raw, presendSecret) : [false, 'PRESEND_SECRET is not set'];
  } catch {
    result = [false, 'not JSON'];
  }
  const [ok, record] = result;
  if (!ok) {
    console.warn(`rejected a pre-send call: ${record}`);
    res.writeHead(401).end('bad signature');
    return;
  }
  const bodies = record.payload.bodies;
  const text = bodies.filter((b) => b.type === 'txt').map((b) => b.msg).join('\n');
  let answer = { valid: true };
  if (BLOCKED.test(text)) answer = { valid: false, code: 'MSG_BLOCKED: no spam here' };
  else if (MASKED.test(text)) {
    answer = { valid: true, payload: { bodies: bodies.map((b) => (b.type === 'txt' ? { type: 'txt', msg: b.msg.replace(new RegExp(MASKED.source, 'gi'), '****') } : { type: b.type })) } };
  }
  console.log(`pre-send ${record.from} -> ${record.to}: ${answer.valid ? (answer.payload ? 'rewritten' : 'delivered') : 'refused'}`);
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}

// An operator event: {type, timestamp, data}, signed with the operations webhook's secret. Its
// webhook-id is the same on every attempt, so a retried event is printed once.
function operations(req, res, raw) {
  if (!operationsSecret) {
    console.warn('rejected an operator event: OPERATIONS_SECRET is not set');
    res.writeHead(401).end('no secret');
    return;
  }
  let verified;
  try {
    verified = verifyOperatorEvent({ secret: operationsSecret, headers: req.headers, body: raw });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.warn(`rejected an operator event: ${error.message}`);
    res.writeHead(401).end('bad signature');
    return;
  }
  const { eventId, event } = verified;
  if (!seen.has(eventId)) {
    seen.add(eventId);
    console.log(`operator event ${describeOperatorEvent(event)}`);
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
}

function describeOperatorEvent(event) {
  const d = event.data;
  switch (event.type) {
    case 'rule.banned':
      return `rule.banned: rule ${d.rule} (${d.reason}) until ${new Date(d.banned_until).toISOString()}, last error ${d.last_errors[0]?.error ?? 'none'}`;
    case 'rule.unbanned':
      return `rule.unbanned: rule ${d.rule} (ban ${d.ban_count})`;
    case 'delivery.exhausted':
      return `delivery.exhausted: channel ${d.channel_id} delivery ${d.delivery_id}: ${d.last_error}`;
    case 'store.expiring':
      return `store.expiring: key ${d.date} (${d.size} records) expires ${new Date(d.expires_at).toISOString()}`;
    default:
      return event.type;
  }
}

// eventType tells chat (every message) from chat_offline (one per offline receiver); a rule that
// lists them in event_types also gets logins and logouts (eventType userStatus) and, told apart by
// chat_type, contact changes (roster), recalls (recall) and read receipts (read_ack).
function describe(record) {
  if (record.eventType === 'userStatus') return `userStatus ${record.user}: ${record.status} (${record.reason})`;
  switch (record.chat_type) {
    case 'roster':
      return `roster ${record.payload.operation} ${record.from} -> ${record.to}`;
    case 'recall':
      return `recall of ${record.recall_id} (${record.from} -> ${record.to})`;
    case 'read_ack':
      return `read_ack ${record.from} read ${record.payload.ack_message_id} (to ${record.to})`;
    default:
      return `${record.eventType} ${record.chat_type} ${record.from} -> ${record.to}: ${JSON.stringify(record.payload.bodies)}`;
  }
}

const server = http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/presend') {
        presend(req, res, Buffer.concat(chunks));
        return;
      }
      if (req.url === '/operations') {
        operations(req, res, Buffer.concat(chunks));
        return;
      }
      let result;
      try {
        result = verify(req.headers, Buffer.concat(chunks), secret);
      } catch {
        result = [false, 'not JSON'];
      }
      const [ok, value] = result;
      if (!ok) {
        console.warn(`rejected a callback: ${value}`);
        res.writeHead(401).end('bad signature');
        return;
      }
      if (!seen.has(value.callId)) {
        seen.add(value.callId);
        console.log(describe(value));
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`callback receiver on http://127.0.0.1:${server.address().port}/`));
