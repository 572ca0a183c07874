/**
 * The supervisor view (docs/channel.md, "Supervisor view"): per skill group the waiting count and
 * the longest wait, per agent the status and load, at the injected clock's now. The console
 * re-reads it on the live events (`assignment`, `new_conversation`, `agent_status`); taking over
 * and transferring go through ConversationsService like any other accept or transfer.
 */
import type { SupervisorView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { SupervisorRepository } from './report-ports.js';

export class Supervisor {
  constructor(
    private readonly repo: SupervisorRepository,
    private readonly clock: Clock,
  ) {}

  async view(tenantId: number): Promise<SupervisorView> {
    const [groups, lines, agents] = await Promise.all([this.repo.skillGroups(tenantId), this.repo.queueLines(tenantId), this.repo.agents(tenantId)]);
    const now = this.clock.now();
    const line = (queueId: number, state: 'waiting' | 'processing') => lines.find((l) => l.queueId === queueId && l.state === state);
    return {
      as_of: now,
      skill_groups: groups.map((g) => {
        const waiting = line(g.id, 'waiting');
        return {
          queue_id: String(g.id),
          queue_name: g.name,
          waiting: waiting?.count ?? 0,
          vip_waiting: waiting?.vip ?? 0,
          longest_wait_seconds: waiting ? Math.max(0, Math.floor((now - waiting.oldestQueuedAt) / 1000)) : null,
          oldest_queued_at: waiting?.oldestQueuedAt ?? null,
          processing: line(g.id, 'processing')?.count ?? 0,
          agents_online: agents.filter((a) => a.status === 'online' && a.queueIds.includes(g.id)).length,
        };
      }),
      agents: agents.map((a) => ({
        id: a.id,
        username: a.username,
        nickname: a.nickname,
        avatar: a.avatar,
        role: a.role,
        status: a.status,
        load: a.load,
        max_sessions: a.maxSessions,
        queue_ids: a.queueIds.map(String),
      })),
    };
  }
}
