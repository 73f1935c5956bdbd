/**
 * Depth and pending over time, sampled by the page while it is open (the API keeps no history):
 * every stats answer the page gets adds a sample for that queue, and the queue page draws the
 * last ones as two lines in an SVG, with the numbers spelled out for screen readers.
 */
import { h, replaceChildren, svg } from './dom.ts';
import { count, timestamp } from './format.ts';
import type { QueueStats } from './types.ts';

export interface Sample {
  readonly at: number;
  readonly depth: number;
  readonly pending: number;
}

const maxSamples = 150;
const history = new Map<string, Sample[]>();

/** Records one stats answer. Samples closer than 500 ms to the last one replace it. */
export function recordSample(stats: QueueStats, at: number): void {
  const samples = history.get(stats.name) ?? [];
  const sample = {
    at,
    depth: stats.length,
    pending: stats.groups.reduce((sum, group) => sum + group.pending, 0),
  };
  const last = samples[samples.length - 1];
  if (last !== undefined && at - last.at < 500) samples[samples.length - 1] = sample;
  else samples.push(sample);
  if (samples.length > maxSamples) samples.splice(0, samples.length - maxSamples);
  history.set(stats.name, samples);
}

export function samplesOf(queue: string): readonly Sample[] {
  return history.get(queue) ?? [];
}

const width = 600;
const height = 160;
const pad = 6;

function points(samples: readonly Sample[], pick: (s: Sample) => number, top: number): string {
  const step = samples.length > 1 ? (width - 2 * pad) / (samples.length - 1) : 0;
  return samples
    .map((sample, i) => {
      const x = pad + i * step;
      const y = height - pad - (pick(sample) / top) * (height - 2 * pad);
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

/** The chart's element; `update` redraws it from the samples of `queue`. */
export function createChart(queue: string): { element: HTMLElement; update(): void } {
  const drawing = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    class: 'chart-lines',
    'aria-hidden': 'true',
    focusable: 'false',
  });
  const summary = h('p', { class: 'chart-summary', 'data-testid': 'chart-summary' });
  const scale = h('p', { class: 'chart-scale' });
  const element = h(
    'figure',
    { class: 'chart' },
    h(
      'figcaption',
      {},
      h('span', { class: 'swatch swatch-depth' }),
      ' depth (stream length) ',
      h('span', { class: 'swatch swatch-pending' }),
      ' pending (all groups)',
    ),
    drawing,
    scale,
    summary,
  );
  const update = () => {
    const samples = samplesOf(queue);
    const top = Math.max(1, ...samples.map((s) => Math.max(s.depth, s.pending)));
    replaceChildren(
      drawing,
      svg('line', { x1: 0, y1: pad, x2: width, y2: pad, class: 'chart-grid' }),
      svg('line', { x1: 0, y1: height - pad, x2: width, y2: height - pad, class: 'chart-grid' }),
      samples.length > 0 &&
        svg('polyline', { points: points(samples, (s) => s.depth, top), class: 'line-depth' }),
      samples.length > 0 &&
        svg('polyline', { points: points(samples, (s) => s.pending, top), class: 'line-pending' }),
    );
    const first = samples[0];
    const last = samples[samples.length - 1];
    scale.textContent =
      first === undefined || last === undefined
        ? ''
        : `0 to ${count(top)}, from ${timestamp(first.at)} to ${timestamp(last.at)}`;
    summary.textContent =
      last === undefined
        ? 'No samples yet.'
        : `${samples.length} samples while this page is open; now depth ${count(last.depth)}, pending ${count(last.pending)}.`;
  };
  update();
  return { element, update };
}
