/**
 * The IM apps, for the system admin: each with its client ID, opened with one click (the console
 * session is enough, no secret); with `manage`, a client secret can be rotated, the new one
 * shown once.
 */
import { useState } from 'react';
import type { AppCreated, AppSummary } from '@parley/protocol';
import { ConfirmDialog, ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { CopyValue } from '../../components/secret.js';
import { useConsole } from '../../context.js';
import { formatTime } from '../../format.js';
import { useResource, useSubmit } from '../../hooks.js';
import { openImApp, useImAppSession } from './app-session.js';

export function AppList({ title, manage = false, reloadKey = 0 }: { title: string; manage?: boolean; reloadKey?: number }) {
  const { api } = useConsole();
  const apps = useResource((signal) => api.listImApps(signal), [api, reloadKey]);
  const [session] = useImAppSession();
  const open = useSubmit((app: AppSummary) => openImApp(api, app.org_name, app.app_name));
  const [confirm, setConfirm] = useState<AppSummary | undefined>(undefined);
  const [rotated, setRotated] = useState<AppCreated | undefined>(undefined);
  const rotate = useSubmit((app: AppSummary) => api.rotateImAppSecret(app.org_name, app.app_name));

  const onRotate = async (app: AppSummary) => {
    setRotated(undefined);
    const result = await rotate.run(app);
    if (!result) return;
    setConfirm(undefined);
    setRotated(result);
  };

  return (
    <Panel title={title} id="im-app-list">
      <ListStates resource={apps} what="IM apps" errorTitle="Could not load the IM apps" count={apps.data?.length} empty={{ title: 'No IM apps yet', hint: 'Create one on the IM apps page.' }} />
      {apps.data && apps.data.length > 0 && (
        <div className="table-scroll">
          <table aria-label="IM apps">
            <thead>
              <tr>
                <th scope="col">App key</th>
                <th scope="col">Client ID</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apps.data.map((app) => {
                const current = session?.org === app.org_name && session.app === app.app_name;
                return (
                  <tr key={app.appkey} className={current ? 'selected' : undefined}>
                    <td>
                      <strong>{app.appkey}</strong>
                    </td>
                    <td>
                      <code className="nowrap">{app.client_id}</code>
                    </td>
                    <td className="nowrap">{formatTime(app.created)}</td>
                    <td>
                      <div className="actions">
                        <button type="button" className="small" aria-pressed={current} disabled={open.busy} onClick={() => void open.run(app)}>
                          {current ? 'Opened' : 'Open'}
                          <span className="visually-hidden"> {app.appkey}</span>
                        </button>
                        {manage && (
                          <button type="button" className="small" onClick={() => setConfirm(app)}>
                            Rotate secret…<span className="visually-hidden"> of {app.appkey}</span>
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {open.error && <ErrorMessage error={open.error} title="Could not open the app" />}
      {confirm && (
        <ConfirmDialog label={`Rotate the client secret of ${confirm.appkey}`} yes="Yes, rotate" busy={rotate.busy} onYes={() => void onRotate(confirm)} onCancel={() => setConfirm(undefined)}>
          The current client secret of <strong>{confirm.appkey}</strong> keeps granting tokens for 24 hours, so your servers can switch to the new one; then it stops. Rotate?
        </ConfirmDialog>
      )}
      {rotate.error && <ErrorMessage error={rotate.error} title="The secret was not rotated" />}
      {rotated && (
        <div className="created-app">
          <Success>
            New client secret of <strong>{rotated.appkey}</strong>. Copy it now: it is not shown again. The old one keeps working for 24 hours.
          </Success>
          <CopyValue label="Client ID" value={rotated.client_id} />
          <CopyValue label="New client secret" value={rotated.client_secret} />
          <div className="actions">
            <button type="button" onClick={() => setRotated(undefined)}>
              Done, hide the secret
            </button>
          </div>
        </div>
      )}
    </Panel>
  );
}
