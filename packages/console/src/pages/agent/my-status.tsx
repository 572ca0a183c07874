import type { AgentStatus } from '@parley/protocol';
import { ErrorMessage } from '../../components/feedback.js';
import { STATUS_LABELS } from '../../components/status.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';

const STATUSES: AgentStatus[] = ['online', 'busy', 'offline'];

const STATUS_HELP: Record<AgentStatus, string> = {
  online: 'New conversations are assigned to you.',
  busy: 'You keep your conversations; no new ones are assigned.',
  offline: 'You are signed off from the queues.',
};

/**
 * The signed-in agent's (or tenant admin's) status, in the header on every page: three
 * `aria-pressed` buttons and what the current status means.
 */
export function MyStatus() {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const me = useResource(
    async (signal) => {
      const agents = await api.listAgents(tenantId, signal);
      const self = agents.find((a) => a.id === session.user.id);
      if (!self) throw new Error('Your agent record was not found in this tenant.');
      return self;
    },
    [api, tenantId, session.user.id],
  );
  const submit = useSubmit((status: AgentStatus) => api.setAgentStatus(tenantId, session.user.id, status));
  const choose = async (status: AgentStatus) => {
    if (await submit.run(status)) me.reload();
  };
  const current = me.data?.status;

  return (
    <div className="my-status">
      <div className="segmented segmented-small" role="group" aria-label="My status">
        {STATUSES.map((s) => (
          <button key={s} type="button" aria-pressed={current === s} disabled={submit.busy || !current} onClick={() => void choose(s)}>
            {STATUS_LABELS[s]}
          </button>
        ))}
      </div>
      {current && (
        <span className="status-help" aria-live="polite">
          {STATUS_HELP[current]}
        </span>
      )}
      {me.error && <ErrorMessage error={me.error} title="Could not load your status" />}
      {submit.error && <ErrorMessage error={submit.error} title="Your status was not changed" />}
    </div>
  );
}
