/**
 * BENCH_READS_EXPLAIN=1 in bench:im's reads: the plans of the queries one history page and one
 * conversation list run (the SQL of storage/repositories/im-history.ts and im-conversations.ts,
 * written out here), for one hot pair and one user, straight on the bench's database:
 * `EXPLAIN QUERY PLAN` on SQLite, `EXPLAIN (ANALYZE, BUFFERS)` on PostgreSQL.
 */
import Database from 'better-sqlite3';
import pg from 'pg';

const COLUMNS = 'app_id, msg_id, sender, receiver, chat_type, source, timestamp, payload';

/** [title, SQL with $1… placeholders, parameters] of each query. */
function queries(appId, me, peer, lister, since) {
  return [
    ['history: one direction of the pair, latest 20', `SELECT ${COLUMNS} FROM im_messages WHERE app_id = $1 AND sender = $2 AND receiver = $3 AND chat_type = 'chat' AND timestamp >= $4 ORDER BY msg_id DESC LIMIT 20`, [appId, me, peer, since]],
    ['list: peers the user wrote to', `SELECT receiver AS peer, max(msg_id) AS last FROM im_messages WHERE app_id = $1 AND sender = $2 AND chat_type = 'chat' GROUP BY receiver`, [appId, lister]],
    ['list: peers who wrote to the user, GROUP BY in SQL', `SELECT sender AS peer, max(msg_id) AS last FROM im_messages WHERE app_id = $1 AND receiver = $2 AND chat_type = 'chat' GROUP BY sender`, [appId, lister]],
    ['list: peers who wrote to the user, rows grouped by the server', `SELECT sender AS peer, msg_id AS last FROM im_messages WHERE app_id = $1 AND receiver = $2 AND chat_type = 'chat'`, [appId, lister]],
    ['list: unread of one conversation', `SELECT count(*) AS n FROM im_messages WHERE app_id = $1 AND msg_id > $2 AND timestamp >= $3 AND sender = $4 AND receiver = $5 AND chat_type = 'chat'`, [appId, 0, since, peer, me]],
  ];
}

export async function explainReads(db, org, { me, peer, lister }) {
  const since = Date.now() - 180 * 24 * 3_600_000;
  const out = [];
  if (db.kind === 'sqlite') {
    const sqlite = new Database(db.file, { readonly: true, timeout: 30_000 });
    try {
      const appId = sqlite.prepare(`SELECT id FROM im_apps WHERE org_name = ? AND app_name = 'im'`).get(org).id;
      for (const [title, text, params] of queries(appId, me, peer, lister, since)) {
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
    for (const [title, text, params] of queries(appId, me, peer, lister, since)) {
      const rows = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows;
      out.push(`${title}:\n${rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`);
    }
  } finally {
    await client.end();
  }
  return out.join('\n');
}
