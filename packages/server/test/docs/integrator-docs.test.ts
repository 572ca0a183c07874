/**
 * The integrator's guides say what an integrator needs and keep to it: the order and track card
 * fields of docs/channel.md are the schema's, each card has an example that is a valid message, the
 * API guides (channel.md, im.md) name no server source file, and the examples take Parley's address
 * from one variable, PARLEY_URL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OrderCard, TrackCard, validateCustomerMessage } from '@parley/protocol';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const channel = read('docs/channel.md');

/** The JSON blocks of a document that are customer messages. */
const messages = (doc: string) =>
  [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] as string).filter((block) => block.includes('"origin_type"') && block.includes('"from"')).map((block) => JSON.parse(block) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any

describe('docs/channel.md, order and track cards', () => {
  const section = channel.slice(channel.indexOf('### Order and track cards'), channel.indexOf('### The answer'));

  it('lists every field of both cards, marked for the cards that have it', () => {
    const rows = [...section.matchAll(/^\| `(\w+)` \| (yes|no) \| (yes|no) \|/gm)].map((m) => ({ field: m[1], order: m[2] === 'yes', track: m[3] === 'yes' }));
    const fields = new Set([...Object.keys(OrderCard.properties), ...Object.keys(TrackCard.properties)]);
    expect(rows.map((r) => r.field).sort()).toEqual([...fields].sort());
    for (const row of rows) {
      expect(row.order, row.field).toBe(row.field! in OrderCard.properties);
      expect(row.track, row.field).toBe(row.field! in TrackCard.properties);
    }
  });

  it('has an example of each card that Parley accepts, using every field of that card', () => {
    const examples = messages(section);
    for (const kind of ['order', 'track'] as const) {
      const example = examples.find((m) => m.ext?.msgtype?.[kind]);
      expect(example, kind).toBeDefined();
      expect(validateCustomerMessage(example).ok, kind).toBe(true);
      const schema = kind === 'order' ? OrderCard : TrackCard;
      expect(Object.keys(example!.ext.msgtype[kind]).sort(), kind).toEqual(Object.keys(schema.properties).sort());
    }
  });

  it('shows only messages Parley accepts', () => {
    const all = messages(channel);
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const message of all) expect(validateCustomerMessage(message)).toMatchObject({ ok: true });
  });
});

describe('the API guides', () => {
  it.each(['docs/channel.md', 'docs/im.md'])('%s names no source file of the server', (doc) => {
    expect(read(doc).match(/\b(?:src|modules|storage|kernel|composition)\/[\w./-]+/g) ?? []).toEqual([]);
  });
});

describe('the examples', () => {
  const examples = fs.readdirSync(path.join(root, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `examples/${e.name}`);

  it.each(examples)("%s reads Parley's address from PARLEY_URL and writes no address of its own", (dir) => {
    const readme = read(`${dir}/README.md`);
    expect(readme).toContain('PARLEY_URL');
    // The default is stated once; every call goes to $PARLEY_URL.
    expect(readme.match(/https?:\/\/[\w.-]+:8080\/\S+/g) ?? []).toEqual([]);
    for (const file of fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.mjs'))) {
      const source = read(`${dir}/${file}`);
      const code = source.replace(/^\s*(\/\/|\*).*$/gm, '');
      if (/8080/.test(code)) expect(code, file).toMatch(/process\.env\.PARLEY_URL|env\('PARLEY_URL'/);
    }
  });
});
