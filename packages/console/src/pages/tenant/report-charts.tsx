/**
 * The reports' charts, hand-drawn in SVG at the width of their card (one user unit per pixel, so
 * labels keep their size): conversations per day as bars, and a score bar for CSAT.
 */
import type { ReportView } from '@parley/protocol';
import { useElementWidth } from '../../hooks.js';

const HEIGHT = 180;
const TOP = 16;
const BOTTOM = 22;
const LEFT = 28;
/** Date labels at least this far apart. */
const LABEL_SPACING = 64;

const dayLabel = (date: string) => {
  const [, month, day] = date.split('-');
  return `${Number(day)}/${Number(month)}`;
};

/** Bars of conversations opened per day; each bar carries its date and count. */
export function PerDayChart({ days }: { days: ReportView['per_day'] }) {
  const [figure, width] = useElementWidth<HTMLElement>(640, 200);
  const max = Math.max(1, ...days.map((d) => d.conversations));
  const total = days.reduce((sum, d) => sum + d.conversations, 0);
  const slot = (width - LEFT) / Math.max(1, days.length);
  const barWidth = Math.max(1, Math.min(48, slot * 0.7));
  const plot = HEIGHT - TOP - BOTTOM;
  const labelEvery = Math.max(1, Math.ceil(LABEL_SPACING / slot));
  const busiest = days.reduce<(typeof days)[number] | undefined>((best, d) => (!best || d.conversations > best.conversations ? d : best), undefined);
  const label = `Conversations per day, ${days[0]?.date ?? ''} to ${days[days.length - 1]?.date ?? ''}: ${total} in all` + (busiest && busiest.conversations > 0 ? `, at most ${busiest.conversations} on ${busiest.date}.` : '.');
  return (
    <figure className="chart report-chart" ref={figure}>
      <svg viewBox={`0 0 ${width} ${HEIGHT}`} width={width} height={HEIGHT} role="img" aria-label={label} data-testid="per-day-chart">
        <line x1={LEFT} y1={TOP} x2={width} y2={TOP} className="chart-grid" />
        <line x1={LEFT} y1={HEIGHT - BOTTOM} x2={width} y2={HEIGHT - BOTTOM} className="chart-axis" />
        <text x={LEFT - 4} y={TOP + 4} className="chart-label" textAnchor="end">
          {max}
        </text>
        <text x={LEFT - 4} y={HEIGHT - BOTTOM} className="chart-label" textAnchor="end">
          0
        </text>
        {days.map((d, i) => {
          const h = (d.conversations / max) * plot;
          const x = LEFT + i * slot + (slot - barWidth) / 2;
          return (
            <g key={d.date}>
              <rect x={x} y={HEIGHT - BOTTOM - h} width={barWidth} height={h} className="bar-report" data-date={d.date} data-count={d.conversations}>
                <title>
                  {d.date}: {d.conversations} conversation{d.conversations === 1 ? '' : 's'}
                </title>
              </rect>
              {d.conversations > 0 && barWidth >= 14 && (
                <text x={x + barWidth / 2} y={HEIGHT - BOTTOM - h - 3} className="chart-label" textAnchor="middle">
                  {d.conversations}
                </text>
              )}
              {i % labelEvery === 0 && (
                <text x={LEFT + i * slot + slot / 2} y={HEIGHT - 6} className="chart-label" textAnchor="middle">
                  {dayLabel(d.date)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** A CSAT average as a short bar on the 1–5 scale, with the figure beside it. */
export function CsatBar({ average, count }: { average: number | null; count: number }) {
  if (average === null) return <span className="muted">no ratings</span>;
  const width = 80;
  return (
    <span className="csat">
      <svg viewBox={`0 0 ${width} 10`} width={width} height={10} aria-hidden="true">
        <rect x={0} y={0} width={width} height={10} className="csat-track" rx={2} />
        <rect x={0} y={0} width={(average / 5) * width} height={10} className="csat-fill" rx={2} />
      </svg>
      <span>
        {average.toFixed(2)} <span className="muted">({count})</span>
      </span>
    </span>
  );
}
