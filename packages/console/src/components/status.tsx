import type { AgentStatus } from '@parley/protocol';

export const STATUS_LABELS: Record<AgentStatus, string> = { online: 'Online', busy: 'Busy', offline: 'Offline' };

/** Colour plus text, so the status never depends on colour alone. */
export function StatusBadge({ status }: { status: AgentStatus }) {
  return <span className={`badge status-${status}`}>{STATUS_LABELS[status]}</span>;
}
