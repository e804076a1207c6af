/**
 * A reader of the Prometheus text exposition format (0.0.4) for a few named series, for text that
 * comes from another process and is not trusted: a gateway replica's `/metrics`, read through the
 * API server's pod proxy. It never throws on what it reads: a line it cannot read is counted and
 * skipped, so one bad line costs that sample, not the view. Linear in the text, no regular
 * expression that can backtrack, bounded in what it keeps.
 */

export interface PrometheusSample {
  name: string;
  /** A Map: label names such as `__proto__` are data, never properties. */
  labels: Map<string, string>;
  /** As written: NaN and ±Inf included; the caller decides what a usable value is. */
  value: number;
}

export interface PrometheusReadLimits {
  /** Samples of the wanted series kept at most; the rest are dropped (and counted). Default 10,000. */
  maxSamples?: number;
  /** Labels one sample may have; a sample with more is skipped. Default 16. */
  maxLabels?: number;
  /** Characters a label value may have; a sample with a longer one is skipped. Default 1,024. */
  maxLabelValueLength?: number;
}

export interface PrometheusReading {
  samples: PrometheusSample[];
  /** Lines of wanted series that could not be read (skipped). */
  malformed: number;
  /** Samples of wanted series past maxSamples (dropped). */
  dropped: number;
}

const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95; // A-Z a-z _
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57); // and 0-9
const isMetricNameStart = (c: number) => isNameStart(c) || c === 58; // and :
const isMetricNameChar = (c: number) => isNameChar(c) || c === 58;
const isBlank = (c: number) => c === 32 || c === 9;

/** The samples of the series named in `wanted` (exact sample names, e.g. `foo_total`). */
export function readPrometheusText(text: string, wanted: ReadonlySet<string>, limits: PrometheusReadLimits = {}): PrometheusReading {
  const maxSamples = limits.maxSamples ?? 10_000;
  const maxLabels = limits.maxLabels ?? 16;
  const maxValueLength = limits.maxLabelValueLength ?? 1_024;
  const reading: PrometheusReading = { samples: [], malformed: 0, dropped: 0 };
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    const sample = readLine(line, wanted, maxLabels, maxValueLength);
    if (sample === undefined) continue;
    if (sample === MALFORMED) reading.malformed += 1;
    else if (reading.samples.length >= maxSamples) reading.dropped += 1;
    else reading.samples.push(sample);
  }
  return reading;
}

const MALFORMED = Symbol('malformed');

/** A sample of a wanted series, MALFORMED for a wanted series' line that cannot be read, undefined for anything else. */
function readLine(line: string, wanted: ReadonlySet<string>, maxLabels: number, maxValueLength: number): PrometheusSample | typeof MALFORMED | undefined {
  let i = 0;
  const n = line.endsWith('\r') ? line.length - 1 : line.length;
  while (i < n && isBlank(line.charCodeAt(i))) i += 1;
  if (i >= n || line.charCodeAt(i) === 35 /* # */) return undefined;
  if (!isMetricNameStart(line.charCodeAt(i))) return undefined;
  const nameStart = i;
  while (i < n && isMetricNameChar(line.charCodeAt(i))) i += 1;
  const name = line.slice(nameStart, i);
  if (!wanted.has(name)) return undefined;
  const labels = new Map<string, string>();
  if (line.charCodeAt(i) === 123 /* { */) {
    i += 1;
    for (;;) {
      while (i < n && isBlank(line.charCodeAt(i))) i += 1;
      if (line.charCodeAt(i) === 125 /* } */) {
        i += 1;
        break;
      }
      if (i >= n || !isNameStart(line.charCodeAt(i))) return MALFORMED;
      const labelStart = i;
      while (i < n && isNameChar(line.charCodeAt(i))) i += 1;
      const label = line.slice(labelStart, i);
      while (i < n && isBlank(line.charCodeAt(i))) i += 1;
      if (line.charCodeAt(i) !== 61 /* = */) return MALFORMED;
      i += 1;
      while (i < n && isBlank(line.charCodeAt(i))) i += 1;
      if (line.charCodeAt(i) !== 34 /* " */) return MALFORMED;
      i += 1;
      let value = '';
      let closed = false;
      while (i < n) {
        const c = line.charCodeAt(i);
        if (c === 34) {
          closed = true;
          i += 1;
          break;
        }
        if (c === 92 /* \ */) {
          const next = line[i + 1];
          if (next === 'n') value += '\n';
          else if (next === '\\' || next === '"') value += next;
          else return MALFORMED;
          i += 2;
        } else {
          value += line[i];
          i += 1;
        }
        if (value.length > maxValueLength) return MALFORMED;
      }
      if (!closed || labels.has(label) || labels.size >= maxLabels) return MALFORMED;
      labels.set(label, value);
      while (i < n && isBlank(line.charCodeAt(i))) i += 1;
      if (line.charCodeAt(i) === 44 /* , */) i += 1;
      else if (line.charCodeAt(i) !== 125) return MALFORMED;
    }
  }
  if (i >= n || !isBlank(line.charCodeAt(i))) return MALFORMED;
  while (i < n && isBlank(line.charCodeAt(i))) i += 1;
  const valueStart = i;
  while (i < n && !isBlank(line.charCodeAt(i))) i += 1;
  const value = parseValue(line.slice(valueStart, i));
  if (value === undefined) return MALFORMED;
  // An optional timestamp (integer milliseconds) may follow; nothing else may.
  while (i < n && isBlank(line.charCodeAt(i))) i += 1;
  if (i < n) {
    const timestamp = line.slice(i, n).trimEnd();
    if (!/^-?\d{1,20}$/.test(timestamp)) return MALFORMED;
  }
  return { name, labels, value };
}

function parseValue(text: string): number | undefined {
  if (text === 'NaN') return NaN;
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  // Go's ParseFloat forms that Prometheus writes: decimal and exponent notation.
  if (text.length === 0 || text.length > 64 || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}
