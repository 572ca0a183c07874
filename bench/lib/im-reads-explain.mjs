/**
 * BENCH_READS_EXPLAIN=1 in bench:im's reads: the plans of the queries one history page and one
 * conversation list run (the SQL of storage/repositories/im-history.ts and im-conversations.ts,
 * written out here), for one hot pair and one user, straight on the bench's database:
 * `EXPLAIN QUERY PLAN` on SQLite, `EXPLAIN (ANALYZE, BUFFERS)` on PostgreSQL.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { lastIdBefore } from '../../packages/server/dist/modules/im/msg-id.js';

const COLUMNS = 'app_id, msg_id, sender, receiver, chat_type, source, timestamp, payload';

const NIL = 'CAST(NULL AS BIGINT)';
const NONE = `${NIL} AS read_msg_id, ${NIL} AS hidden_msg_id, ${NIL} AS cleared_msg_id, ${NIL} AS pinned_at, ${NIL} AS mark_set`;
/** The conversations-and-marks statement; PostgreSQL groups the received side in SQL, SQLite in the server. */
const overview = (kind) => `SELECT 'c' AS src, 'chat' AS kind, receiver AS peer, MAX(msg_id) AS last_id, ${NONE} FROM im_messages WHERE app_id = $1 AND sender = $2 AND chat_type = 'chat' GROUP BY receiver
  UNION ALL SELECT 'c', 'chat', sender, ${kind === 'sqlite' ? 'msg_id' : 'MAX(msg_id)'}, ${NONE} FROM im_messages WHERE app_id = $3 AND receiver = $4 AND chat_type = 'chat'${kind === 'sqlite' ? '' : ' GROUP BY sender'}
  UNION ALL SELECT 'g', 'group', m.group_id, (SELECT MAX(x.msg_id) FROM im_messages x WHERE x.app_id = m.app_id AND x.receiver = m.group_id AND x.chat_type <> 'chat'), ${NONE} FROM im_members m JOIN im_groups g ON g.id = m.group_id WHERE m.app_id = $5 AND m.username = $6 AND g.kind = 'group'
  UNION ALL SELECT 'm', kind, peer, ${NIL}, read_msg_id, hidden_msg_id, cleared_msg_id, pinned_at, mark_set FROM im_conversation_marks WHERE app_id = $7 AND username = $8`;

/** The page statement for up to 50 of the overview's rows (latest first), unread from the start of the history period (the last id issued before `since`). */
function pageQuery(appId, lister, since, rows) {
  const periodStart = lastIdBefore(since);
  const latest = new Map();
  for (const r of rows) if (r.src === 'c' && BigInt(r.last_id) > BigInt(latest.get(r.peer) ?? 0)) latest.set(r.peer, String(r.last_id));
  const items = [...latest].sort((a, b) => (BigInt(a[1]) > BigInt(b[1]) ? -1 : 1)).slice(0, 50);
  const params = [];
  const p = (v) => `$${params.push(v)}`;
  const values = items.map(([peer, last], i) => `(CAST(${p(i)} AS INTEGER), CAST(${p('chat')} AS TEXT), CAST(${p(peer)} AS TEXT), CAST(${p(last)} AS BIGINT), CAST(${p(periodStart)} AS BIGINT))`).join(', ');
  const text = `WITH t (i, kind, peer, last_id, read_after) AS (VALUES ${values})
  SELECT t.i, m.app_id, m.msg_id, m.sender, m.receiver, m.chat_type, m.source, m.timestamp, m.payload,
    CASE WHEN t.kind = 'chat'
      THEN (SELECT COUNT(*) FROM im_messages u WHERE u.app_id = ${p(appId)} AND u.sender = t.peer AND u.receiver = ${p(lister)} AND u.chat_type = 'chat' AND u.msg_id > t.read_after)
      ELSE (SELECT COUNT(*) FROM im_messages u WHERE u.app_id = ${p(appId)} AND u.receiver = t.peer AND u.chat_type <> 'chat' AND u.msg_id > t.read_after AND u.sender <> ${p(lister)})
    END AS n
  FROM t CROSS JOIN im_messages m WHERE m.app_id = ${p(appId)} AND m.msg_id = t.last_id`;
  return [`list: the page's ${items.length} last messages and unread counts (one statement)`, text, params];
}

/** [title, SQL with $1… placeholders, parameters] of each query but the page's (the SQL of the repositories). */
function queries(kind, appId, me, peer, lister, since) {
  return [
    ['history: one direction of the pair, latest 20', `SELECT ${COLUMNS} FROM im_messages WHERE app_id = $1 AND sender = $2 AND receiver = $3 AND chat_type = 'chat' AND timestamp >= $4 ORDER BY msg_id DESC LIMIT 20`, [appId, me, peer, since]],
    ['list: the user\'s conversations and marks (one statement)', overview(kind), [appId, lister, appId, lister, appId, lister, appId, lister]],
  ];
}

export async function explainReads(db, org, { me, peer, lister }) {
  const since = Date.now() - 180 * 24 * 3_600_000;
  const out = [];
  if (db.kind === 'sqlite') {
    const sqlite = new Database(db.file, { readonly: true, timeout: 30_000 });
    try {
      const appId = sqlite.prepare(`SELECT id FROM im_apps WHERE org_name = ? AND app_name = 'im'`).get(org).id;
      const rows = sqlite.prepare(overview('sqlite').replace(/\$\d+/g, '?')).all(appId, lister, appId, lister, appId, lister, appId, lister);
      for (const [title, text, params] of [...queries(db.kind, appId, me, peer, lister, since), pageQuery(appId, lister, since, rows)]) {
        const rows = sqlite.prepare(`EXPLAIN QUERY PLAN ${text.replace(/\$\d+/g, '?')}`).all(...params);
        out.push(`${title}:\n${rows.map((r) => `    ${r.detail}`).join('\n')}`);
      }
    } finally {
      sqlite.close();
    }
    return out.join('\n');
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const appId = (await client.query(`SELECT id FROM im_apps WHERE org_name = $1 AND app_name = 'im'`, [org])).rows[0].id;
    const { rows } = await client.query(overview('pg'), [appId, lister, appId, lister, appId, lister, appId, lister]);
    for (const [title, text, params] of [...queries(db.kind, appId, me, peer, lister, since), pageQuery(appId, lister, since, rows)]) {
      const rows = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows;
      out.push(`${title}:\n${rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`);
    }
  } finally {
    await client.end();
  }
  return out.join('\n');
}
