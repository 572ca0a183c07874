/**
 * The inbox's views (Waiting, Mine, Team) with their counts, the search box, and the filters and
 * sort of the list (contract 6.3 and docs/channel.md "The inbox"). The form's state becomes the
 * list's query (`listQuery`) and the counts' query (`countsQuery`).
 */
import { useEffect, useId, useState } from 'react';
import type { ConversationCounts, ConversationSort, SkillGroupView } from '@parley/protocol';
import type { ConversationFilters } from '../../api/client.js';

export type InboxView = 'waiting' | 'mine' | 'team';

export interface InboxForm {
  q: string;
  queueId: string;
  label: string;
  vip: '' | 'true' | 'false';
  /** Minutes a waiting conversation has waited at least ('' any). */
  waitingMin: string;
  /** Mine and Team: open (in progress) or closed. */
  status: 'open' | 'closed';
  /** '' the view's default order. */
  sort: '' | ConversationSort;
}

export const EMPTY_FORM: InboxForm = { q: '', queueId: '', label: '', vip: '', waitingMin: '', status: 'open', sort: '' };

const VIEWS: Array<{ view: InboxView; label: string }> = [
  { view: 'waiting', label: 'Waiting' },
  { view: 'mine', label: 'Mine' },
  { view: 'team', label: 'Team' },
];

export const VIEW_TITLES: Record<InboxView, string> = { waiting: 'Waiting queue', mine: 'My conversations', team: 'Team conversations' };

const SORTS: Record<InboxView, Array<[InboxForm['sort'], string]>> = {
  waiting: [
    ['', 'Queue order (VIP first)'],
    ['longest_waiting', 'Longest waiting'],
    ['newest', 'Newest'],
    ['latest', 'Last message'],
  ],
  mine: [
    ['', 'Last message'],
    ['newest', 'Newest'],
    ['longest_waiting', 'Longest waiting'],
  ],
  team: [
    ['', 'Last message'],
    ['newest', 'Newest'],
    ['longest_waiting', 'Longest waiting'],
  ],
};

const WAITING_TIMES: Array<[string, string]> = [
  ['', 'Any time'],
  ['5', '5 min or more'],
  ['15', '15 min or more'],
  ['30', '30 min or more'],
  ['60', '1 hour or more'],
];

const shared = (form: InboxForm) => ({
  q: form.q.trim() || undefined,
  queue_id: form.queueId || undefined,
  label: form.label.trim() || undefined,
  vip: form.vip === '' ? undefined : form.vip === 'true',
});

export function countsQuery(form: InboxForm) {
  return shared(form);
}

/** The list's query for a view; at most `limit` conversations (the API's largest page). */
export function listQuery(view: InboxView, form: InboxForm, limit = 100): ConversationFilters {
  const base: ConversationFilters = { ...shared(form), limit, sort: form.sort || undefined };
  if (view === 'waiting') return { ...base, state: 'waiting', waiting_min: form.waitingMin === '' ? undefined : Number(form.waitingMin) };
  const state = form.status === 'open' ? 'processing' : 'closed';
  return view === 'mine' ? { ...base, state, mine: true } : { ...base, state, team: true };
}

/** How many filters differ from the defaults (shown on the Filters toggle). */
export function activeFilters(view: InboxView, form: InboxForm): number {
  const own = view === 'waiting' ? [form.waitingMin !== ''] : [form.status !== 'open'];
  return [form.queueId !== '', form.label.trim() !== '', form.vip !== '', form.sort !== '', ...own].filter(Boolean).length;
}

/** The three views as tabs, each with its count. */
export function ViewTabs({ view, counts, onView }: { view: InboxView; counts: ConversationCounts | undefined; onView(view: InboxView): void }) {
  return (
    <div className="view-tabs" role="tablist" aria-label="Conversation views">
      {VIEWS.map((v) => (
        <button key={v.view} type="button" role="tab" id={`view-${v.view}`} aria-selected={view === v.view} aria-controls="inbox-view" onClick={() => onView(v.view)}>
          {v.label}
          <span className="count" aria-label={counts ? `${counts[v.view]} conversations` : 'counting'}>
            {counts ? counts[v.view] : '…'}
          </span>
        </button>
      ))}
    </div>
  );
}

/** The search box: applied a moment after typing stops, or at once with Enter. */
export function SearchBox({ value, onSearch }: { value: string; onSearch(q: string): void }) {
  const id = useId();
  const [text, setText] = useState(value);
  useEffect(() => {
    if (text === value) return;
    const timer = window.setTimeout(() => onSearch(text), 350);
    return () => window.clearTimeout(timer);
    // onSearch is a new closure on every render of the caller.
  }, [text, value]);
  return (
    <form
      className="inbox-search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text);
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        Search messages
      </label>
      <input id={id} type="search" placeholder="Search messages…" value={text} maxLength={200} onChange={(e) => setText(e.target.value)} />
    </form>
  );
}

/** Skill group, label, VIP, waiting time or status, and sort; folded away until asked for. */
export function InboxFilterFields({ view, form, groups, onChange }: { view: InboxView; form: InboxForm; groups: SkillGroupView[]; onChange(form: InboxForm): void }) {
  const id = useId();
  const set = (key: keyof InboxForm) => (event: { target: { value: string } }) => onChange({ ...form, [key]: event.target.value });
  const active = activeFilters(view, form);
  const sortValid = SORTS[view].some(([value]) => value === form.sort);
  return (
    <details className="inbox-filter-fields">
      <summary>
        Filters and sort{active > 0 && <span className="count">{active}</span>}
      </summary>
      <div className="filter-grid">
        <label htmlFor={`${id}-queue`}>Skill group</label>
        <select id={`${id}-queue`} value={form.queueId} onChange={set('queueId')}>
          <option value="">Any</option>
          {groups.map((g) => (
            <option key={g.queue_id} value={g.queue_id}>
              {g.queue_name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-label`}>Label</label>
        <input id={`${id}-label`} value={form.label} maxLength={64} placeholder="Any" onChange={set('label')} />
        <label htmlFor={`${id}-vip`}>VIP</label>
        <select id={`${id}-vip`} value={form.vip} onChange={set('vip')}>
          <option value="">Any customer</option>
          <option value="true">VIP only</option>
          <option value="false">Not VIP</option>
        </select>
        {view === 'waiting' ? (
          <>
            <label htmlFor={`${id}-wait`}>Waiting</label>
            <select id={`${id}-wait`} value={form.waitingMin} onChange={set('waitingMin')}>
              {WAITING_TIMES.map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </>
        ) : (
          <>
            <label htmlFor={`${id}-status`}>Status</label>
            <select id={`${id}-status`} value={form.status} onChange={set('status')}>
              <option value="open">In progress</option>
              <option value="closed">Closed</option>
            </select>
          </>
        )}
        <label htmlFor={`${id}-sort`}>Sort</label>
        <select id={`${id}-sort`} value={sortValid ? form.sort : ''} onChange={set('sort')}>
          {SORTS[view].map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      {active > 0 && (
        <button type="button" className="small" onClick={() => onChange({ ...EMPTY_FORM, q: form.q })}>
          Clear filters
        </button>
      )}
    </details>
  );
}
