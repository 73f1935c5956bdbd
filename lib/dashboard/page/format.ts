/** How the page writes numbers, durations, times, stream ids and message bodies. */

const integer = new Intl.NumberFormat('en');

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : integer.format(value);
}

/** 850 ms, 12.3 s, 4 min 5 s, 2 h 10 min, 3 d 4 h. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  if (abs < 60_000) return `${(abs / 1000).toFixed(abs < 10_000 ? 1 : 0)} s`;
  const parts: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  const out: string[] = [];
  let rest = abs;
  for (const [size, unit] of parts) {
    if (rest >= size && out.length < 2) {
      out.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    } else if (out.length > 0) break;
  }
  return out.join(' ');
}

/** "in 12 s" or "3.0 s ago" for a time relative to `now`. */
export function relative(at: number, now: number): string {
  const delta = at - now;
  return delta >= 0 ? `in ${duration(delta)}` : `${duration(-delta)} ago`;
}

/** A local date and time to the second (the page is read by whoever runs the service). */
export function timestamp(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Orders two stream ids `<ms>-<seq>` numerically (each half is a 64-bit integer). */
export function compareIds(a: string, b: string): number {
  const [aMs = '0', aSeq = '0'] = a.split('-');
  const [bMs = '0', bSeq = '0'] = b.split('-');
  const byMs = BigInt(aMs) - BigInt(bMs);
  if (byMs !== 0n) return byMs < 0n ? -1 : 1;
  const bySeq = BigInt(aSeq) - BigInt(bSeq);
  return bySeq === 0n ? 0 : bySeq < 0n ? -1 : 1;
}

/** A JSON value as indented text; `undefined` (a raw entry's missing body) as a dash. */
export function json(value: unknown): string {
  if (value === undefined) return '—';
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The first line of a value's JSON, cut to `max` characters, for a table cell. */
export function preview(value: unknown, max = 80): string {
  const text = value === undefined ? '—' : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "1 dead letter", "2 dead letters". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
