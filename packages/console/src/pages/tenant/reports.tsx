import { useState, type FormEvent } from 'react';
import type { ReportFigures, ReportQuery, ReportView } from '@parley/protocol';
import { EmptyState, ErrorMessage, Loading } from '../../components/feedback.js';
import { SelectField, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource } from '../../hooks.js';
import { orDash } from './durations.js';
import { CsatBar, PerDayChart } from './report-charts.js';

const DAY_MS = 86_400_000;
const ZONES = ['UTC', 'Asia/Shanghai', 'Asia/Singapore', 'Asia/Tokyo', 'Europe/London', 'Europe/Paris', 'America/New_York', 'America/Los_Angeles'];

const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Today in `timeZone` as YYYY-MM-DD (the browser's zone when that one is unknown). */
function today(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  } catch {
    return new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  }
}

/** The `days` days that end today in `timeZone`. */
function lastDays(days: number, timeZone: string): { from: string; to: string } {
  const to = today(timeZone);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}

interface RangeForm {
  from: string;
  to: string;
  time_zone: string;
  queue_id: string;
  agent_id: string;
}

const queryOf = (form: RangeForm): ReportQuery => ({
  from: form.from,
  to: form.to,
  time_zone: form.time_zone.trim() || 'UTC',
  ...(form.queue_id ? { queue_id: form.queue_id } : {}),
  ...(form.agent_id ? { agent_id: Number(form.agent_id) } : {}),
});

/**
 * Tenant admin: reports over a range of days in a time zone, for the whole tenant or one skill
 * group or agent: conversations per day (a bar chart), first-response and handle times, CSAT per
 * agent and per skill group, and the same figures as a CSV download.
 */
export function ReportsPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const [form, setForm] = useState<RangeForm>(() => {
    const zone = browserZone();
    return { ...lastDays(7, zone), time_zone: zone, queue_id: '', agent_id: '' };
  });
  const [query, setQuery] = useState<ReportQuery>(() => queryOf(form));
  const options = useResource((signal) => Promise.all([api.listSkillGroups(tenantId, signal), api.listAgents(tenantId, signal)]), [api, tenantId]);
  const report = useResource((signal) => api.report(tenantId, query, signal), [api, tenantId, JSON.stringify(query)]);
  const set = (field: keyof RangeForm) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [field]: event.target.value }));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setQuery(queryOf(form));
  };
  const quick = (days: number) => {
    const next = { ...form, ...lastDays(days, form.time_zone.trim() || 'UTC') };
    setForm(next);
    setQuery(queryOf(next));
  };

  const [groups, agents] = options.data ?? [[], []];
  const view = report.data;
  return (
    <Page title="Reports" intro="Conversations opened in the range: how many each day, how fast agents answered and finished, and how customers rated them.">
      <Panel title="Range" id="report-range">
        <form className="report-form" aria-label="Report range" onSubmit={onSubmit}>
          <TextField label="From" name="from" type="date" required value={form.from} onChange={set('from')} />
          <TextField label="To" name="to" type="date" required value={form.to} onChange={set('to')} hint="Included; at most 366 days" />
          <TextField label="Time zone" name="time_zone" list="report-zones" value={form.time_zone} onChange={set('time_zone')} hint="Days start at midnight here" />
          <datalist id="report-zones">
            {[...new Set([browserZone(), ...ZONES])].map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          <SelectField label="Skill group" name="queue_id" value={form.queue_id} onChange={set('queue_id')}>
            <option value="">All skill groups</option>
            {groups.map((g) => (
              <option key={g.queue_id} value={g.queue_id}>
                {g.queue_name}
              </option>
            ))}
          </SelectField>
          <SelectField label="Agent" name="agent_id" value={form.agent_id} onChange={set('agent_id')}>
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a.id} value={String(a.id)}>
                {a.nickname}
              </option>
            ))}
          </SelectField>
          <div className="actions report-actions">
            <button type="submit" className="primary">
              Show report
            </button>
            <button type="button" onClick={() => quick(7)}>
              Last 7 days
            </button>
            <button type="button" onClick={() => quick(30)}>
              Last 30 days
            </button>
            {view && report.state === 'ready' && (
              <a className="button-like" href={api.reportCsvUrl(tenantId, query)} download>
                Download CSV
              </a>
            )}
          </div>
        </form>
      </Panel>
      {report.error && <ErrorMessage error={report.error} title="Could not make the report" />}
      {report.state === 'loading' && !view && <Loading what="the report" />}
      {view && <ReportBody view={view} />}
    </Page>
  );
}

function ReportBody({ view }: { view: ReportView }) {
  const t = view.totals;
  return (
    <>
      <Panel title="Summary" id="report-summary">
        <p className="muted small-text">
          {view.range.from} to {view.range.to} ({view.range.days} day{view.range.days === 1 ? '' : 's'}, {view.range.time_zone})
        </p>
        <dl className="report-figures">
          <div>
            <dt>Conversations</dt>
            <dd data-figure="conversations">{t.conversations}</dd>
          </div>
          <div>
            <dt>First response, median</dt>
            <dd data-figure="first-response-median">{orDash(t.first_response.median_seconds)}</dd>
            <dd className="muted small-text">p90 {orDash(t.first_response.p90_seconds)} · {t.first_response.count} answered</dd>
          </div>
          <div>
            <dt>Handle time, median</dt>
            <dd data-figure="handle-time-median">{orDash(t.handle_time.median_seconds)}</dd>
            <dd className="muted small-text">p90 {orDash(t.handle_time.p90_seconds)} · {t.handle_time.count} closed</dd>
          </div>
          <div>
            <dt>CSAT</dt>
            <dd data-figure="csat">{t.csat.average === null ? '–' : t.csat.average.toFixed(2)}</dd>
            <dd className="muted small-text">{t.csat.count} rating{t.csat.count === 1 ? '' : 's'}</dd>
          </div>
        </dl>
      </Panel>
      <Panel title="Conversations per day" id="report-per-day">
        <PerDayChart days={view.per_day} />
      </Panel>
      <Panel title="By agent" id="report-agents">
        {view.agents.length === 0 ? (
          <EmptyState title="No conversations with an agent in this range" />
        ) : (
          <FiguresTable label="Figures by agent" rows={view.agents.map((a) => ({ key: String(a.agent_id), name: a.nickname, figures: a }))} />
        )}
      </Panel>
      <Panel title="By skill group" id="report-groups">
        {view.skill_groups.length === 0 ? (
          <EmptyState title="No conversations in this range" />
        ) : (
          <FiguresTable label="Figures by skill group" rows={view.skill_groups.map((g) => ({ key: g.queue_id, name: g.queue_name, figures: g }))} />
        )}
      </Panel>
    </>
  );
}

function FiguresTable({ label, rows }: { label: string; rows: Array<{ key: string; name: string; figures: ReportFigures }> }) {
  return (
    <div className="table-scroll">
      <table className="figures-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Conversations</th>
            <th scope="col">First response (median / p90)</th>
            <th scope="col">Handle time (median / p90)</th>
            <th scope="col">CSAT</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, name, figures: f }) => (
            <tr key={key} data-key={key}>
              <th scope="row">{name}</th>
              <td>{f.conversations}</td>
              <td className="nowrap">
                {orDash(f.first_response.median_seconds)} / {orDash(f.first_response.p90_seconds)}
              </td>
              <td className="nowrap">
                {orDash(f.handle_time.median_seconds)} / {orDash(f.handle_time.p90_seconds)}
              </td>
              <td>
                <CsatBar average={f.csat.average} count={f.csat.count} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
