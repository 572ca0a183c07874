import { readCluster } from '../../api/cluster.js';
import { ErrorMessage, Loading } from '../../components/feedback.js';
import { Page, Panel } from '../../components/page.js';
import { formatTime } from '../../format.js';
import { useInterval, useResource } from '../../hooks.js';

/** How often the page reads /readyz again while open. */
const REFRESH_MS = 2_000;

/**
 * System admin: the Parley instances sharing this database, as the instance serving the console
 * sees them (its /readyz): each one's jobs in flight and last heartbeat. An instance whose
 * heartbeat stopped for a few seconds is gone from the list, and its jobs are run by the others.
 */
export function ClusterPage() {
  const view = useResource((signal) => readCluster(signal), []);
  const { reload } = view;
  useInterval(reload, REFRESH_MS);
  const data = view.data;

  return (
    <Page title="Cluster" intro="The Parley instances sharing this database. The list refreshes every two seconds.">
      {view.error && <ErrorMessage error={view.error} title="Could not read the cluster" />}
      {view.state === 'loading' && data === undefined && <Loading what="the cluster" />}
      {data && (
        <>
          <Panel title="This instance">
            <p>
              <span className={`badge ${data.status === 'ready' ? 'status-succeeded' : 'status-failed'}`}>{data.status === 'ready' ? 'Ready' : 'Not ready'}</span>
            </p>
            <dl className="profile">
              {Object.entries(data.checks).map(([name, result]) => (
                <div key={name} className="profile-row">
                  <dt>{name}</dt>
                  <dd>{result}</dd>
                </div>
              ))}
            </dl>
          </Panel>
          <Panel title="Live instances">
            {data.instances === undefined ? (
              <p className="muted">The instances could not be read: see the storage check above.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Instance</th>
                      <th scope="col">Jobs in flight</th>
                      <th scope="col">Last heartbeat</th>
                      <th scope="col">Started</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.instances.map((i) => (
                      <tr key={i.id}>
                        <td>
                          <code className="nowrap">{i.id}</code>
                          {i.self && <div className="muted small-text">serving this page</div>}
                        </td>
                        <td>{i.in_flight}</td>
                        <td>
                          {formatTime(Date.parse(i.last_heartbeat))} <span className="muted nowrap">({(i.heartbeat_age_ms / 1000).toFixed(1)} s ago)</span>
                        </td>
                        <td className="nowrap">{formatTime(Date.parse(i.started_at))}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Panel>
        </>
      )}
    </Page>
  );
}
