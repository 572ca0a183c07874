import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundSenders } from '../../src/modules/outbound/senders.js';
import { UndiciOutboundSender } from '../../src/modules/outbound/sender.js';
import { ThreadedOutboundSender } from '../../src/modules/outbound/threaded.js';

describe('outbound senders: background requests and the requests a send waits for', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(req.url?.slice(1)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const request = (path: string, budgetKey: string) => ({ url: `${base}/${path}`, headers: {}, body: '{}', timeoutMs: 5_000, maxResponseBytes: 100, budgetKey });

  it('with the worker thread: background requests cross to it, inline ones are sent from this thread; close ends both', async () => {
    const senders = createOutboundSenders({ allowPrivate: true, thread: true });
    const background = senders.background as ThreadedOutboundSender;
    expect(background).toBeInstanceOf(ThreadedOutboundSender);
    expect(senders.inline).toBeInstanceOf(UndiciOutboundSender);

    expect(await senders.inline.post(request('checked', 'presend:1'))).toMatchObject({ status: 200, body: 'checked' });
    expect(background.handedOver).toBe(0);
    expect(await background.post(request('called-back', 'rule:1'))).toMatchObject({ status: 200, body: 'called-back' });
    expect(background.handedOver).toBe(1);

    await senders.close();
    expect(await background.post(request('late', 'rule:1'))).toMatchObject({ error: { kind: 'connection' } });
    expect(await senders.inline.post(request('late', 'presend:1'))).toMatchObject({ error: { kind: 'connection' } });
  });

  it('without the worker thread: one in-process sender carries both, closed once', async () => {
    const senders = createOutboundSenders({ allowPrivate: false, thread: false });
    expect(senders.inline).toBe(senders.background);
    expect(senders.inline).toBeInstanceOf(UndiciOutboundSender);
    // The same address guard on both: an internal address is refused at send time.
    expect(await senders.inline.post(request('x', 'presend:1'))).toMatchObject({ error: { kind: 'blocked_address' } });
    await senders.close();
  });
});
