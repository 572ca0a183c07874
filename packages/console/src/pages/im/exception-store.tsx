import { useState, type FormEvent } from 'react';
import type { StoredKeyInfo, StoredRecordView } from '@parley/protocol';
import { ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { Truncated } from '../../components/truncated.js';
import { formatDateKey, formatTime } from '../../format.js';
import { useResource, useSubmit } from '../../hooks.js';
import { ImAppGate, useImApp } from './app-gate.js';
import { CallbackServiceNotice } from './callback-service.js';
import { messageText, shortCallId } from './message-text.js';

/** System admin: stored (failed) callbacks of the open IM app, by 10-minute date key; re-send a key. */
export function ExceptionStorePage() {
  return (
    <Page title="Exception store" intro="Callbacks that failed twice, or came while their rule was banned, are kept 72 h under a date key (yyyyMMddHHmm, 10-minute windows) when the store is on.">
      <ImAppGate>
        <Keys />
      </ImAppGate>
    </Page>
  );
}

function Keys() {
  const { api } = useImApp();
  const keys = useResource((signal) => api.storageInfo(signal), [api]);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const openInfo = open === undefined ? undefined : keys.data?.keys.find((k) => k.date === open);
  return (
    <>
      <CallbackServiceNotice onChanged={keys.reload} />
      <Panel title="Stored keys">
        <div className="toolbar">
          <button type="button" onClick={keys.reload}>
            Refresh
          </button>
        </div>
        <ListStates resource={keys} what="stored keys" errorTitle="Could not load the exception store" count={keys.data?.keys.length} empty={{ title: 'Nothing stored', hint: 'Failed callbacks appear here when "Store failed callbacks" is on.' }} />
        {keys.data && keys.data.keys.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Date key</th>
                  <th scope="col">Records</th>
                  <th scope="col">Re-sends</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.map((k) => (
                  <tr key={k.date} className={open === k.date ? 'selected' : undefined}>
                    <td>
                      <code>{k.date}</code> <span className="muted nowrap">— {formatDateKey(k.date, keys.data?.zone ?? 'UTC')}</span>
                    </td>
                    <td>{k.size}</td>
                    <td>{k.retry}</td>
                    <td>
                      <button type="button" className="small" aria-pressed={open === k.date} onClick={() => setOpen(open === k.date ? undefined : k.date)}>
                        {open === k.date ? 'Hide' : 'Open'}
                        <span className="visually-hidden"> key {k.date}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
      {openInfo && keys.data && <KeyDetail key={open} info={openInfo} zone={keys.data.zone} onResent={keys.reload} />}
    </>
  );
}

function KeyDetail({ info, zone, onResent }: { info: StoredKeyInfo; zone: string; onResent(): void }) {
  const { api } = useImApp();
  const records = useResource((signal) => api.storedRecords(info.date, undefined, signal), [api, info.date]);
  // Pages after the first, fetched with "Show more" (the listing answers 100 records a page).
  const [later, setLater] = useState<{ records: StoredRecordView[]; cursor?: string } | undefined>(undefined);
  const cursor = later ? later.cursor : records.data?.cursor;
  const rows = [...(records.data?.records ?? []), ...(later?.records ?? [])];
  const more = useSubmit(async () => {
    const page = await api.storedRecords(info.date, cursor);
    setLater({ records: [...(later?.records ?? []), ...page.records], ...(page.cursor ? { cursor: page.cursor } : {}) });
  });
  const [target, setTarget] = useState('');
  const [result, setResult] = useState<string | undefined>(undefined);
  const resend = useSubmit(() => api.retry(info.date, info.retry, target.trim() || undefined));

  const refresh = () => {
    onResent();
    setLater(undefined);
    records.reload();
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setResult(undefined);
    const answer = await resend.run();
    if (!answer) return;
    setResult(answer === 'success' ? `Key ${info.date} queued for re-sending. Refresh to see each record's outcome.` : `Key ${info.date} has no records to re-send.`);
    refresh();
  };

  return (
    <Panel title={`Key ${info.date}`} id="stored-key">
      <p className="muted">Records stored from {formatDateKey(info.date, zone)}, for 10 minutes.</p>
      <form onSubmit={onSubmit} className="form-inline">
        <TextField label="Target URL (optional)" type="url" value={target} onChange={(e) => setTarget(e.target.value)} hint="Empty: each record goes to its rule's current URL" />
        <button type="submit" className="primary" disabled={resend.busy}>
          Re-send this key
        </button>
      </form>
      {resend.error && <ErrorMessage error={resend.error} title="The key was not re-sent" />}
      {result && <Success>{result}</Success>}
      <div className="toolbar">
        <button type="button" onClick={refresh} disabled={records.state === 'loading'}>
          Refresh records
        </button>
      </div>
      <ListStates resource={records} what="records" errorTitle="Could not load the records" count={records.data ? rows.length : undefined} empty={{ title: 'No records under this key' }} />
      {rows.length > 0 && (
        <div className="table-scroll">
          <table aria-label={`Records of key ${info.date}`}>
            <thead>
              <tr>
                <th scope="col">Call ID</th>
                <th scope="col">Rule and event</th>
                <th scope="col">Message</th>
                <th scope="col">Stored</th>
                <th scope="col">Last error</th>
                <th scope="col">Last re-send</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.callId} data-call-id={r.callId}>
                  <td className="nowrap">
                    <Truncated value={r.callId} shown={shortCallId(r.callId)} code copy={`Copy call ID ${r.callId}`} />
                  </td>
                  <td>
                    {r.rule}
                    <div className="muted small-text">{r.eventType}</div>
                  </td>
                  <td>
                    <MessageCell record={r} />
                  </td>
                  <td className="nowrap">{formatTime(r.stored_at)}</td>
                  <LastError record={r} />
                  <LastResend record={r} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <div className="toolbar">
          <button type="button" onClick={() => void more.run()} disabled={more.busy}>
            Show more records
          </button>
        </div>
      )}
      {more.error && <ErrorMessage error={more.error} title="Could not load more records" />}
    </Panel>
  );
}

/** The message's text on one line (the whole of it in the tooltip), who sent it to whom below. */
function MessageCell({ record }: { record: StoredRecordView }) {
  const text = messageText(record.record);
  const from = typeof record.record.from === 'string' ? record.record.from : '';
  const to = typeof record.record.to === 'string' ? record.record.to : '';
  return (
    <>
      <Truncated value={text} chars={30} />
      <div className="muted small-text">
        <Truncated value={`${from} → ${to} · msg_id ${record.msg_id}`} shown={`${from} → ${to}`} chars={34} />
      </div>
    </>
  );
}

/** The error that stored the record; once a re-send succeeded it is history, not shown as an error. */
function LastError({ record }: { record: StoredRecordView }) {
  if (record.last_resend?.result === 'success') return <td className="muted">{record.last_error} (before the re-send)</td>;
  return <td className="error-text">{record.last_error}</td>;
}

function LastResend({ record }: { record: StoredRecordView }) {
  const last = record.last_resend;
  if (!last) return <td className="muted nowrap">Not re-sent</td>;
  return (
    <td className="nowrap" data-resend={last.result}>
      <span className={`badge status-${last.result === 'success' ? 'succeeded' : 'failed'}`}>{last.result === 'success' ? 'Re-sent' : 'Re-send failed'}</span> {formatTime(last.at)}
    </td>
  );
}
