/**
 * What `esq` prints for people: aligned tables, short durations, and a progress line for bulk
 * produce. Plain text only; `--json` output bypasses all of it.
 */

/** Columns padded to their widest cell; numbers right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const numeric = header.map(
    (_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'),
  );
  return cells
    .map((row) =>
      row
        .map((cell, column) =>
          numeric[column] === true ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** 950 → "950ms", 75_000 → "1m15s", 7_200_000 → "2h0m". */
export function duration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d${hours % 24}h`;
}

/** One progress line, redrawn in place: a bar when the total is known, a count and a rate always. */
export function progressLine(
  done: { bytes: number; messages: number },
  totalBytes: number | undefined,
  elapsedMs: number,
): string {
  const rate = elapsedMs > 0 ? Math.round((done.messages * 1000) / elapsedMs) : 0;
  const counts = `${done.messages.toLocaleString('en')} messages  ${rate.toLocaleString('en')}/s`;
  if (totalBytes === undefined || totalBytes === 0) return counts;
  const share = Math.min(1, done.bytes / totalBytes);
  const width = 30;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}%  ${counts}`;
}
