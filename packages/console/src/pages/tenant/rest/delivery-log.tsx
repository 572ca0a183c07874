import { useState } from 'react';
import type { AssociationView, DeliveryView } from '@parley/protocol';
import { ErrorMessage, ListStates } from '../../../components/feedback.js';
import { Panel } from '../../../components/page.js';
import { Truncated } from '../../../components/truncated.js';
import { useConsole, useTenantId } from '../../../context.js';
import { formatTime } from '../../../format.js';
import { useResource, useSubmit } from '../../../hooks.js';

const STATUS_TEXT: Record<DeliveryView['status'], string> = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' };

/** Pushes of agent replies to the callback address, each with its attempts and a re-deliver button. */
export function DeliveryLog({ association }: { association: AssociationView }) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const { channelId } = association;
  const log = useResource((signal) => api.listDeliveries(tenantId, channelId, signal), [api, tenantId, channelId]);
  const [requeued, setRequeued] = useState<string | undefined>(undefined);
  const redeliver = useSubmit((id: string) => api.redeliver(tenantId, channelId, id));

  const onRedeliver = async (id: string) => {
    setRequeued(undefined);
    if (await redeliver.run(id)) {
      setRequeued(id);
      log.reload();
    }
  };

  return (
    <Panel title="Delivery log" id="delivery-log">
      <div className="toolbar">
        <button type="button" onClick={log.reload} disabled={log.state === 'loading'}>
          Refresh
        </button>
        {requeued && (
          <span role="status">
            Delivery <code>{requeued}</code> queued again.
          </span>
        )}
      </div>
      {redeliver.error && <ErrorMessage error={redeliver.error} title="The delivery was not queued again" />}
      <ListStates resource={log} what="deliveries" errorTitle="Could not load the delivery log" count={log.data?.length} empty={{ title: 'No replies pushed yet', hint: "Agent replies to this association's customers appear here." }} />
      {log.data && log.data.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <td>
                    <Truncated value={d.id} code chars={16} copy={`Copy delivery ID ${d.id}`} />
                    <div className="muted nowrap">{formatTime(d.createdAt)}</div>
                  </td>
                  <td>
                    <Truncated value={d.to} chars={16} />
                  </td>
                  <td>
                    <span className={`badge status-${d.status}`}>{STATUS_TEXT[d.status]}</span>
                  </td>
                  <td>
                    {d.attempts.length === 0 ? (
                      <span className="muted">none yet</span>
                    ) : (
                      <ol className="attempts">
                        {d.attempts.map((a) => (
                          <li key={a.attempt}>
                            {formatTime(a.startedAt)} · {a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`} · {a.latencyMs} ms
                            {a.error && a.error !== `HTTP ${a.statusCode}` && (
                              <>
                                {' '}
                                · <span className="error-text">{a.error}</span>
                              </>
                            )}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                  <td className="nowrap">{d.nextAttemptAt === null ? '—' : formatTime(d.nextAttemptAt)}</td>
                  <td>
                    {d.status !== 'pending' && (
                      <button type="button" className="small" disabled={redeliver.busy} onClick={() => void onRedeliver(d.id)}>
                        Re-deliver<span className="visually-hidden"> {d.id}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
