/**
 * The agents' everyday tools (contract 6.4): private notes on a conversation (never pushed: they
 * stay in /api), its labels (the list's `label` filter matches them), and canned replies. Notes
 * and labels: whoever may see the conversation (its group's agents, its holder, the tenant's
 * admins). Canned replies: the tenant's (written by admins, read by all its agents) and each
 * agent's own (theirs only); another tenant's are never visible (404).
 */
import type { CannedReplyRequest, CannedReplyUpdate, CannedReplyView, NoteView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { isConflict } from '../../kernel/unit-of-work.js';
import type { Principal } from '../accounts/service.js';
import type { AgentToolsRepository, CannedReply } from './agent-tools-ports.js';
import type { ConversationsService } from './conversations.js';

const cannedView = (c: CannedReply): CannedReplyView => ({ id: c.id, shortcut: c.shortcut, text: c.text, scope: c.ownerId === 0 ? 'tenant' : 'personal', createdAt: c.createdAt, updatedAt: c.updatedAt });
const isAdmin = (p: Principal) => p.role === 'admin' || p.role === 'system_admin';

async function uniqueShortcut<T>(shortcut: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isConflict(error, 'unique')) throw new AppError('duplicate_name', { resource: 'Canned reply', name: shortcut }, { cause: error });
    throw error;
  }
}

export class AgentTools {
  constructor(
    private readonly repo: AgentToolsRepository,
    private readonly conversations: ConversationsService,
    private readonly clock: Clock,
  ) {}

  private async visible(tenantId: number, id: number, principal: Principal): Promise<void> {
    await this.conversations.assertMayView(await this.conversations.require(tenantId, id), principal);
  }

  async addNote(tenantId: number, id: number, principal: Principal, text: string): Promise<NoteView> {
    await this.visible(tenantId, id, principal);
    const noteId = await this.repo.addNote(tenantId, id, principal.userId, text, this.clock.now());
    return (await this.repo.notes(id)).find((n) => n.id === noteId)!;
  }

  async notes(tenantId: number, id: number, principal: Principal): Promise<NoteView[]> {
    await this.visible(tenantId, id, principal);
    return this.repo.notes(id);
  }

  async setLabels(tenantId: number, id: number, principal: Principal, labels: string[]): Promise<{ labels: string[] }> {
    await this.visible(tenantId, id, principal);
    const clean = [...new Set(labels.map((l) => l.trim()).filter((l) => l.length > 0))];
    return { labels: await this.repo.setLabels(tenantId, id, clean) };
  }

  async createCanned(tenantId: number, principal: Principal, input: CannedReplyRequest): Promise<CannedReplyView> {
    if (input.scope === 'tenant' && !isAdmin(principal)) throw new AppError('forbidden', { detail: "only a tenant admin writes the tenant's canned replies" });
    const now = this.clock.now();
    const ownerId = input.scope === 'tenant' ? 0 : principal.userId;
    return cannedView(await uniqueShortcut(input.shortcut, () => this.repo.createCanned({ tenantId, ownerId, shortcut: input.shortcut, text: input.text, createdAt: now, updatedAt: now })));
  }

  async listCanned(tenantId: number, principal: Principal): Promise<CannedReplyView[]> {
    return (await this.repo.listCanned(tenantId, principal.userId)).map(cannedView);
  }

  /** One the principal may see (another agent's own, or another tenant's: 404); `write` also needs the right to change it. */
  private async canned(tenantId: number, id: number, principal: Principal, write: boolean): Promise<CannedReply> {
    const found = await this.repo.getCanned(tenantId, id);
    if (!found || (found.ownerId !== 0 && found.ownerId !== principal.userId)) throw new AppError('not_found', { resource: `Canned reply ${id}` });
    if (write && found.ownerId === 0 && !isAdmin(principal)) throw new AppError('forbidden', { detail: "only a tenant admin changes the tenant's canned replies" });
    return found;
  }

  async getCanned(tenantId: number, id: number, principal: Principal): Promise<CannedReplyView> {
    return cannedView(await this.canned(tenantId, id, principal, false));
  }

  async updateCanned(tenantId: number, id: number, principal: Principal, patch: CannedReplyUpdate): Promise<CannedReplyView> {
    const current = await this.canned(tenantId, id, principal, true);
    const updated = await uniqueShortcut(patch.shortcut ?? current.shortcut, () => this.repo.updateCanned(tenantId, id, patch, this.clock.now()));
    if (!updated) throw new AppError('not_found', { resource: `Canned reply ${id}` });
    return cannedView(updated);
  }

  async deleteCanned(tenantId: number, id: number, principal: Principal): Promise<void> {
    await this.canned(tenantId, id, principal, true);
    await this.repo.deleteCanned(tenantId, id);
  }
}
