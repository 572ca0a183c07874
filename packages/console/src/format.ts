/** Display helpers shared by pages. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatTime = (epochMs: number): string => dateTime.format(new Date(epochMs));

const keyTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * An exception-store date key (`yyyyMMddHHmm`, wall time in `zone`) as a readable time with
 * its zone, e.g. "24 Nov 2026, 13:00 UTC"; a key that is not 12 digits comes back as it is.
 */
export function formatDateKey(key: string, zone: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(key);
  if (!m) return key;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  // The key's digits are the wall time in its zone: formatted as UTC, they are shown unchanged.
  return `${keyTime.format(new Date(Date.UTC(year, month - 1, day, hour, minute)))} ${zone}`;
}
