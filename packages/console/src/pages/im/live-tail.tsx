import type { RecentCallbacks } from '@parley/protocol';
import { EmptyState, ErrorMessage } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { useElementWidth, useInterval, useResource } from '../../hooks.js';
import { useImApp } from './app-gate.js';

const POLL_MS = 3000;
const RESULT_TEXT = { success: 'Delivered', overlong: 'Over-long answer', failure: 'Failed' } as const;
const RESULT_CLASS = { success: 'succeeded', overlong: 'pending', failure: 'failed' } as const;
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Recent callback attempts of the open app (the durable delivery log, all instances), refreshed every 3 s, with a per-minute chart. */
export function LiveTail() {
  const { api } = useImApp();
  const recent = useResource((signal) => api.recent(25, signal), [api]);
  useInterval(recent.reload, POLL_MS);

  const data = recent.data;
  return (
    <Panel title="Recent callbacks" id="recent-callbacks">
      {recent.error && <ErrorMessage error={recent.error} title="Could not load recent callbacks" />}
      {data && <PerMinuteChart minutes={data.minutes} />}
      {data && data.attempts.length === 0 && <EmptyState title="No callbacks yet">Attempts appear here as messages are sent (refreshed every 3 s).</EmptyState>}
      {data && data.attempts.length > 0 && (
        <div className="table-scroll">
          <table aria-label="Recent callback attempts, newest first">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Rule</th>
                <th scope="col">Result</th>
                <th scope="col">Latency</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {data.attempts.map((a, i) => (
                <tr key={`${a.at}-${a.callId ?? ''}-${i}`}>
                  <td className="nowrap">{time.format(new Date(a.at))}</td>
                  <td>
                    {a.rule}
                    {a.resend && <span className="badge">re-send</span>}
                  </td>
                  <td>
                    <span className={`badge status-${RESULT_CLASS[a.result]}`}>{RESULT_TEXT[a.result]}</span>
                  </td>
                  <td className="nowrap">{a.latencyMs} ms</td>
                  <td className="error-text nowrap">{a.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

const HEIGHT = 120;
const PAD = 20;

/**
 * Stacked bars per minute (delivered, over-long, failed), hand-drawn in SVG at the width of its
 * card (one user unit per pixel, so the labels keep their size whatever the width).
 */
function PerMinuteChart({ minutes }: { minutes: RecentCallbacks['minutes'] }) {
  const [figure, width] = useElementWidth<HTMLElement>(600, PAD * 4);
  const totals = minutes.reduce((t, m) => ({ success: t.success + m.success, overlong: t.overlong + m.overlong, failure: t.failure + m.failure }), { success: 0, overlong: 0, failure: 0 });
  const max = Math.max(1, ...minutes.map((m) => m.success + m.overlong + m.failure));
  const barWidth = (width - PAD) / minutes.length;
  const scale = (n: number) => (n / max) * (HEIGHT - PAD);
  const label = `Callbacks per minute, last ${minutes.length} minutes: ${totals.success} delivered, ${totals.overlong} over-long, ${totals.failure} failed; at most ${max} in one minute.`;
  return (
    <figure className="chart" ref={figure}>
      <svg viewBox={`0 0 ${width} ${HEIGHT}`} width={width} height={HEIGHT} role="img" aria-label={label} data-testid="per-minute-chart">
        <line x1={PAD} y1={HEIGHT - PAD} x2={width} y2={HEIGHT - PAD} className="chart-axis" />
        <text x={0} y={10} className="chart-label">
          {max}
        </text>
        <text x={0} y={HEIGHT - PAD} className="chart-label">
          0
        </text>
        {minutes.map((m, i) => {
          const x = PAD + i * barWidth + 1;
          let y = HEIGHT - PAD;
          return (
            <g key={m.minute}>
              {(['success', 'overlong', 'failure'] as const).map((kind) => {
                const h = scale(m[kind]);
                y -= h;
                return h > 0 ? <rect key={kind} x={x} y={y} width={Math.max(1, barWidth - 2)} height={h} className={`bar-${kind}`} data-kind={kind} /> : null;
              })}
            </g>
          );
        })}
        <text x={PAD} y={HEIGHT - 4} className="chart-label">
          −{minutes.length} min
        </text>
        <text x={width - 30} y={HEIGHT - 4} className="chart-label">
          now
        </text>
      </svg>
      <figcaption className="legend">
        <span className="swatch bar-success" aria-hidden="true" /> Delivered {totals.success}
        <span className="swatch bar-overlong" aria-hidden="true" /> Over-long {totals.overlong}
        <span className="swatch bar-failure" aria-hidden="true" /> Failed {totals.failure}
      </figcaption>
    </figure>
  );
}
