/**
 * A Parley instance from the build as a child process (with the flags `npm start` passes), on the
 * environment given, for the multi-instance benchmarks; and a JSON call that throws unless 200.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../packages/server/dist/node-flags.js';

const MAIN = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));
const CLK_TCK = 100;

export function startInstance(env) {
  const proc = spawn(process.execPath, [...NODE_FLAGS, MAIN], { env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((r) => proc.on('exit', r));
  return new Promise((resolve, reject) => {
    let listening = false;
    const onData = (d) => {
      if (listening) return;
      output += d.toString();
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/i.exec(output);
      if (m) {
        listening = true;
        resolve({
          proc,
          origin: `http://127.0.0.1:${m[1]}`,
          stop: async () => { proc.kill('SIGTERM'); await exited; },
          kill9: async () => { proc.kill('SIGKILL'); await exited; },
          cpuSeconds: () => {
            const fields = fs.readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
            return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
          },
        });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', (d) => { if (!listening) output += d.toString(); });
    void exited.then((code) => reject(new Error(`instance exited with ${code}:\n${output}`)));
  });
}

export async function json(origin, method, url, token, body) {
  const res = await fetch(origin + url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = await res.json();
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/**
 * Signs in as the admin `bench`/`bench-password`, creates the IM app `bench#{name}` with users
 * alice and bob and one rule (`main`, chat events) to `url`; returns the app's base path and admin token.
 */
export async function imAppWithRule(origin, name, url) {
  const root = (await json(origin, 'POST', '/api/login', undefined, { username: 'bench', password: 'bench-password' })).entity.access_token;
  const created = (await json(origin, 'POST', '/management/apps', root, { org_name: 'bench', app_name: name })).data;
  const base = `/bench/${name}`;
  const token = (await json(origin, 'POST', `${base}/token`, undefined, { grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret })).access_token;
  await json(origin, 'POST', `${base}/users`, token, [{ username: 'alice', password: 'pw-123456' }, { username: 'bob', password: 'pw-123456' }]);
  await json(origin, 'PUT', `${base}/callbacks/service`, token, { enabled: true, store_failed: false });
  await json(origin, 'POST', `${base}/callbacks/rules`, token, { name: 'main', url, event_types: ['chat'] });
  return { base, token };
}
