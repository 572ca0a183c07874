/**
 * Date keys of the callback exception store (spec 2.5, contract 4.6): the start of the record's
 * 10-minute window written `yyyyMMddHHmm`, in UTC unless a time zone is configured.
 */
const WINDOW_MS = 10 * 60 * 1000;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const formatters = new Map<string, Intl.DateTimeFormat>();

function zonedParts(ms: number, timeZone: string): { y: number; mo: number; d: number; h: number; mi: number } {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(timeZone, fmt);
  }
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year ?? 0, mo: parts.month ?? 0, d: parts.day ?? 0, h: parts.hour ?? 0, mi: parts.minute ?? 0 };
}

/** The date key of the 10-minute window containing `ms`. */
export function dateKey(ms: number, timeZone = 'UTC'): string {
  if (timeZone === 'UTC') {
    const t = new Date(ms - (((ms % WINDOW_MS) + WINDOW_MS) % WINDOW_MS));
    return `${t.getUTCFullYear()}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())}${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}`;
  }
  const p = zonedParts(ms, timeZone);
  return `${p.y}${pad(p.mo)}${pad(p.d)}${pad(p.h)}${pad(p.mi - (p.mi % 10))}`;
}

/** True when `key` is a 12-digit `yyyyMMddHHmm` on a 10-minute boundary naming a real date. */
export function isValidDateKey(key: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(key);
  if (!m) return false;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (mi % 10 !== 0 || h > 23 || mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}
