import { useMemo, useState, type FormEvent } from 'react';
import { ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useInterval, useResource, useSubmit } from '../../hooks.js';
import { ImAppGate, useImApp } from './app-gate.js';
import { CallbackServiceBanner, CallbackSwitches, useCallbackService } from './callback-service.js';
import { OperatorEventsPanel } from '../operations/operator-events.js';
import { LiveTail } from './live-tail.js';
import { RuleCard } from './rule-card.js';
import { DEFAULT_FILTERS, RuleFilterFields, type RuleFilters } from './rule-filters.js';

/** System admin: callback switches and rules of the open IM app, with live ban countdowns. */
export function CallbackRulesPage() {
  return (
    <Page title="Callback rules" intro="After each message, Parley calls the matching rules' URLs while the app's callback service is on. A rule that fails 90 times within 30 s is banned for a while; its countdown shows here.">
      <ImAppGate>
        <CallbackRules />
      </ImAppGate>
    </Page>
  );
}

function CallbackRules() {
  const service = useCallbackService();
  const { api } = useImApp();
  const operations = useMemo(() => api.operations(), [api]);
  return (
    <>
      <CallbackServiceBanner service={service} showError={false} />
      <CallbackSwitches service={service} />
      <Rules serviceOn={service.settings.data?.enabled} />
      <OperatorEventsPanel api={operations} sends="Bans of this app's rules, their ends, and exception-store keys a day from expiry are sent to its operations webhook." />
      <LiveTail />
    </>
  );
}

function Rules({ serviceOn }: { serviceOn: boolean | undefined }) {
  const { api } = useImApp();
  const rules = useResource((signal) => api.rules(signal), [api]);
  const [form, setForm] = useState({ name: '', url: '', enabled: true });
  const [filters, setFilters] = useState<RuleFilters>(DEFAULT_FILTERS);
  const create = useSubmit(() => api.createRule({ name: form.name.trim(), url: form.url.trim(), enabled: form.enabled, ...filters }));
  const [created, setCreated] = useState<string | undefined>(undefined);
  const [deleted, setDeleted] = useState<string | undefined>(undefined);

  // Bans start on the server without an event the console could listen to: re-read every 5 s.
  useInterval(rules.reload, 5000);

  const onCreate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    setDeleted(undefined);
    const rule = await create.run();
    if (!rule) return;
    setCreated(rule.name);
    setForm({ name: '', url: '', enabled: true });
    setFilters(DEFAULT_FILTERS);
    rules.reload();
  };

  return (
    <>
      <Panel title="Create a rule">
        <form onSubmit={onCreate} className="form-grid">
          <TextField label="Rule name" required maxLength={32} pattern="[A-Za-z0-9_]{1,32}" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} hint="1–32 of A-Z a-z 0-9 _" />
          <TextField label="Callback URL" type="url" required maxLength={2048} value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} />
          <label className="check">
            <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
            Rule on
          </label>
          <RuleFilterFields value={filters} onChange={setFilters} idPrefix="new-rule" />
          <div className="span-all actions">
            <button type="submit" className="primary" disabled={create.busy}>
              Create rule
            </button>
          </div>
        </form>
        {create.error && <ErrorMessage error={create.error} title="The rule was not created" />}
        {created && <Success>Rule {created} created.</Success>}
      </Panel>
      <Panel title="Rules">
        <ListStates resource={rules} what="rules" errorTitle="Could not load the rules" count={rules.data?.value.length} empty={{ title: 'No rules yet', hint: 'Create one above (at most 4 per app).' }} />
        {deleted && <Success>Rule {deleted} deleted.</Success>}
        {rules.data?.value.map((rule) => (
          <RuleCard
            key={rule.name}
            rule={rule}
            offsetMs={rules.data?.serverOffsetMs ?? 0}
            serviceOn={serviceOn}
            onChanged={rules.reload}
            onDeleted={() => {
              setDeleted(rule.name);
              rules.reload();
            }}
          />
        ))}
      </Panel>
    </>
  );
}
