/**
 * The repository's documents stand alone: every relative link of README.md, docs/, bench/,
 * examples/ and the module READMEs points at a file of the repository that exists, no text names
 * a file beside the repository, and each example has a README.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist') out.push(...markdownUnder(rel));
    else if (entry.isFile() && entry.name.endsWith('.md')) out.push(rel);
  }
  return out;
}

const documents = ['README.md', ...['docs', 'bench', 'examples', 'packages'].flatMap(markdownUnder)];

describe('documents', () => {
  it('link only to files of the repository that exist', () => {
    expect(documents.length).toBeGreaterThan(15);
    const broken: string[] = [];
    for (const doc of documents) {
      const text = fs.readFileSync(path.join(root, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^(https?:|mailto:|#)/.test(target)) continue;
        const file = path.resolve(root, path.dirname(doc), target.split('#')[0] as string);
        const inside = !path.relative(root, file).startsWith('..');
        if (!inside || !fs.existsSync(file)) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name no file beside the repository', () => {
    const outside = documents.filter((doc) => /\.\.\/shared\b|\/work\//.test(fs.readFileSync(path.join(root, doc), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('include a README for every example', () => {
    const examples = fs.readdirSync(path.join(root, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.filter((e) => !fs.existsSync(path.join(root, 'examples', e.name, 'README.md'))).map((e) => e.name)).toEqual([]);
  });
});
