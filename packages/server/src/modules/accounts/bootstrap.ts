import { randomBytes } from 'node:crypto';
import type { Clock } from '../../kernel/clock.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import { hashPassword } from './password.js';
import type { AccountsRepository } from './ports.js';

export interface BootstrapResult {
  createdAdmin: boolean;
  /** Set only when the password was generated: shown once, never stored in clear. */
  generatedPassword?: string;
  demoTenantId?: number;
  /** The demo accounts' own generated passwords, set with `demoTenantId`: shown once. */
  demoPasswords?: { admin: string; agent: string };
}

/** 16 random bytes, base64url: about 128 bits, easy to copy from a terminal. */
export const generatePassword = () => randomBytes(16).toString('base64url');

export const DEMO_TENANT_NAME = 'Demo';
export const DEMO_ADMIN_USERNAME = 'demo-admin@parley.local';
export const DEMO_AGENT_USERNAME = 'demo-agent@parley.local';

/**
 * First boot on an empty database: a system admin from the configured credentials (or with a
 * generated password), and a flagship demo tenant with an admin and an agent, each with a
 * generated password of its own (and so a salt and hash of its own). A second boot finds the
 * admin and does nothing.
 */
export async function bootstrapAccounts(
  repo: AccountsRepository,
  clock: Clock,
  options: { adminUsername: string; adminPassword: string | undefined; seedDemo: boolean },
): Promise<BootstrapResult> {
  if (await repo.hasSystemAdmin()) return { createdAdmin: false };
  const password = options.adminPassword ?? generatePassword();
  const passwordHash = await hashPassword(password);
  const now = clock.now();
  try {
    await repo.createUser(
      {
        tenantId: null,
        username: options.adminUsername.toLowerCase(),
        passwordHash,
        nickname: 'System administrator',
        avatar: null,
        role: 'system_admin',
        maxSessions: 0,
        queueIds: [],
      },
      now,
    );
  } catch (error) {
    // Several instances booting on one empty database: another one created the admin first.
    if (isConflict(error, 'unique')) return { createdAdmin: false };
    throw error;
  }
  const result: BootstrapResult = { createdAdmin: true };
  if (options.adminPassword === undefined) result.generatedPassword = password;
  if (options.seedDemo && (await repo.countTenants()) === 0) {
    const demoPasswords = { admin: generatePassword(), agent: generatePassword() };
    const { tenant } = await repo.createTenant(
      {
        name: DEMO_TENANT_NAME,
        edition: 'flagship',
        admin: { username: DEMO_ADMIN_USERNAME, passwordHash: await hashPassword(demoPasswords.admin), nickname: 'Demo admin', avatar: null, role: 'admin', maxSessions: 10 },
      },
      now,
    );
    await repo.createUser(
      {
        tenantId: tenant.id,
        username: DEMO_AGENT_USERNAME,
        passwordHash: await hashPassword(demoPasswords.agent),
        nickname: 'Demo agent',
        avatar: null,
        role: 'agent',
        maxSessions: 10,
        queueIds: [tenant.defaultQueueId],
      },
      now,
    );
    result.demoTenantId = tenant.id;
    result.demoPasswords = demoPasswords;
  }
  return result;
}
