/** Percentiles and summaries of latency samples (milliseconds), from an HDR histogram (hdr-histogram-js). */
import { build } from 'hdr-histogram-js';

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Samples are recorded in whole microseconds; three significant digits keep each percentile within 0.1%. */
const MICROS_PER_MS = 1000;

/**
 * Count, mean, p50/p90/p99 and max of `values` (ms); NaN for each but the count when there are none.
 * A histogram holds only values >= 0, and some samples are signed (a delivery timed from the roller's
 * answer may arrive before it): they are recorded shifted by the smallest one and shifted back.
 */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { count: 0, mean: Number.NaN, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const offset = values.reduce((low, v) => Math.min(low, v), 0);
  const histogram = build({ useWebAssembly: false, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const v of values) histogram.recordValue(Math.round((v - offset) * MICROS_PER_MS));
  const ms = (micros: number) => micros / MICROS_PER_MS + offset;
  const summary = {
    count: histogram.totalCount,
    mean: ms(histogram.mean),
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p99: ms(histogram.getValueAtPercentile(99)),
    max: ms(histogram.maxValue),
  };
  histogram.destroy();
  return summary;
}

/** `a / b` as "0.73x", or "n/a" when either side is missing. */
export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return 'n/a';
  return `${(a / b).toFixed(2)}x`;
}

/** The exact median of a few figures (one per round); latency samples go through `summarize`. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
