/** Durations as people read them: "4.5 s", "45 s", "4 min 05 s", "2 h 03 min". */
export function formatSeconds(total: number): string {
  if (total < 10) return `${Math.max(0, Math.round(total * 10) / 10)} s`;
  const s = Math.round(total);
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A figure that may be missing (no conversation measured): an en dash. */
export const orDash = (seconds: number | null): string => (seconds === null ? '–' : formatSeconds(seconds));
