import { describe, expect, it } from 'vitest';
import { lintFixtures } from '../helpers/lint-fixtures.js';

const { tree, check } = lintFixtures('check-imports.mjs');

describe('scripts/check-imports.mjs', () => {
  it('passes on this repository', () => {
    const { status, out } = check();
    expect(out).toContain('no import cycle');
    expect(status).toBe(0);
  });

  it('fails on a cycle and prints it as a chain of files', () => {
    const root = tree({
      'server/src/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'server/src/b.ts': "import { c } from './dir/index.js';\nexport const b = c;\n",
      'server/src/dir/index.ts': "export { a as c } from '../a.js';\n",
      'server/src/ok.ts': "import { a } from './a.js';\nexport const ok = a;\n",
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('import cycle among 3 files');
    expect(out).toContain('packages/server/src/a.ts -> packages/server/src/b.ts -> packages/server/src/dir/index.ts -> packages/server/src/a.ts');
    expect(out).not.toContain('ok.ts');
  });

  it('counts type-only imports: a cycle of `import type` fails too', () => {
    const root = tree({
      'protocol/src/ports.ts': "import type { Rec } from './record.js';\nexport interface Port { r: Rec }\n",
      'protocol/src/record.ts': "import type { Port } from './ports.js';\nexport interface Rec { p?: Port }\n",
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('packages/protocol/src/ports.ts -> packages/protocol/src/record.ts -> packages/protocol/src/ports.ts');
  });

  it('fails when code outside storage imports a table definition', () => {
    const root = tree({
      'server/src/storage/tables/jobs.ts': 'export interface JobsTable { id: number }\n',
      'server/src/storage/schema.ts': "import type { JobsTable } from './tables/jobs.js';\nexport interface Database { jobs: JobsTable }\n",
      'server/src/modules/jobs/queue.ts': "import type { JobsTable } from '../../storage/tables/jobs.js';\nexport type Row = JobsTable;\n",
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('packages/server/src/modules/jobs/queue.ts imports packages/server/src/storage/tables/jobs.ts');
    expect(out).not.toContain('schema.ts imports');
  });

  it('fails when a module builds a concrete repository instead of the composition root (app.ts, composition/)', () => {
    const root = tree({
      'server/src/storage/repositories/things.ts': 'export const kyselyThings = () => ({});\n',
      'server/src/app.ts': "import { kyselyThings } from './storage/repositories/things.js';\nexport const things = kyselyThings();\n",
      'server/src/composition/repositories.ts': "import { kyselyThings } from '../storage/repositories/things.js';\nexport const built = kyselyThings();\n",
      'server/src/modules/things/index.ts': "import { kyselyThings } from '../../storage/repositories/things.js';\nexport const mine = kyselyThings();\n",
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('packages/server/src/modules/things/index.ts imports packages/server/src/storage/repositories/things.ts');
    expect(out).not.toContain('app.ts imports');
    expect(out).not.toContain('composition/repositories.ts imports');
  });

  it('fails when a module builds the SQL job queue instead of the composition root', () => {
    const root = tree({
      'server/src/storage/jobs/sql-queue.ts': 'export class SqlJobQueue {}\n',
      'server/src/composition/modules.ts': "import { SqlJobQueue } from '../storage/jobs/sql-queue.js';\nexport const jobs = new SqlJobQueue();\n",
      'server/src/modules/im/index.ts': "import { SqlJobQueue } from '../../storage/jobs/sql-queue.js';\nexport const mine = new SqlJobQueue();\n",
    });
    const { status, out } = check(root);
    expect(status).toBe(1);
    expect(out).toContain('packages/server/src/modules/im/index.ts imports packages/server/src/storage/jobs/sql-queue.ts');
    expect(out).not.toContain('composition/modules.ts imports');
  });
});
