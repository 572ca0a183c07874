/**
 * The open app's callback service (`GET/PUT /callbacks/service`): its two switches, and a banner
 * while the service is off, when no rule sends anything and nothing is stored, with the switch to
 * turn it on right there.
 */
import type { CallbackServiceSettings, CallbackServiceUpdate } from '@parley/protocol';
import { ErrorMessage } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { useResource, useSubmit, type Resource } from '../../hooks.js';
import { useImApp } from './app-gate.js';

export interface CallbackService {
  settings: Resource<CallbackServiceSettings>;
  busy: boolean;
  error: Error | undefined;
  change(update: CallbackServiceUpdate): Promise<void>;
}

/** The settings of the open app, and a change that re-reads them (then calls `onChanged`). */
export function useCallbackService(onChanged?: () => void): CallbackService {
  const { api } = useImApp();
  const settings = useResource((signal) => api.settings(signal), [api]);
  const update = useSubmit((change: CallbackServiceUpdate) => api.updateSettings(change));
  const change = async (next: CallbackServiceUpdate) => {
    if (!(await update.run(next))) return;
    settings.reload();
    onChanged?.();
  };
  return { settings, busy: update.busy, error: update.error, change };
}

/**
 * Nothing while the service is on (or not read yet); else what that means and the switch. A page
 * that shows the switches too says a failed change there (`showError` false).
 */
export function CallbackServiceBanner({ service, showError = true }: { service: CallbackService; showError?: boolean }) {
  const { api } = useImApp();
  if (service.settings.data?.enabled !== false) return null;
  const appkey = `${api.session.org}#${api.session.app}`;
  return (
    <section className="banner" aria-label="The callback service is off">
      <p>
        <strong>The callback service of {appkey} is off.</strong> No rule sends callbacks and nothing is stored in the exception store, whatever the rules say.
      </p>
      <button type="button" className="primary" disabled={service.busy} onClick={() => void service.change({ enabled: true })}>
        Turn the callback service on
      </button>
      {showError && service.error && <ErrorMessage error={service.error} title="The callback service was not turned on" />}
    </section>
  );
}

/** The banner with a service of its own, for pages that show nothing else of it. */
export function CallbackServiceNotice({ onChanged }: { onChanged?: () => void }) {
  return <CallbackServiceBanner service={useCallbackService(onChanged)} />;
}

export function CallbackSwitches({ service }: { service: CallbackService }) {
  const { settings, busy, error, change } = service;
  return (
    <Panel title="Callback service">
      {settings.error && <ErrorMessage error={settings.error} title="Could not load the switches" />}
      {settings.data && (
        <div className="checks">
          <label className="check">
            <input type="checkbox" checked={settings.data.enabled} disabled={busy} onChange={(e) => void change({ enabled: e.target.checked })} />
            Callback service on
          </label>
          <label className="check">
            <input type="checkbox" checked={settings.data.store_failed} disabled={busy} onChange={(e) => void change({ store_failed: e.target.checked })} />
            Store failed callbacks (exception store)
          </label>
        </div>
      )}
      {error && <ErrorMessage error={error} title="The switch was not changed" />}
    </Panel>
  );
}
