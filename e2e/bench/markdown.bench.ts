/**
 * The inline Markdown scanner (renderer/src/components/markdownInline.ts) on hostile text from a
 * peer: backticks, unclosed `**`, and unclosed links, at n and 2n characters. Linear work doubles
 * with the text; the regular expression it replaced quadrupled (20,000 backticks: 200 ms).
 * Target: the median time ratio per doubling ≤ 2.5. Last line: {"bench":"markdown","ratio":…}.
 */
import { parseInline } from '../../renderer/src/components/markdownInline';
import { BENCH_SMOKE, benchCount } from './benchStats';

const ROUNDS = benchCount(7, 1);
const SIZE = benchCount(100_000, 1_000);
const units = ['`', '**a', '[a](', '** _~~[`'];

const timeOf = (text: string) => {
  const started = performance.now();
  parseInline(text);
  return performance.now() - started;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const ratios: number[] = [];
for (const unit of units) {
  const small = unit.repeat(Math.ceil(SIZE / unit.length));
  const large = unit.repeat(Math.ceil((2 * SIZE) / unit.length));
  timeOf(small);
  timeOf(large);
  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    smallTimes.push(timeOf(small));
    largeTimes.push(timeOf(large));
  }
  const ratio = median(largeTimes) / median(smallTimes);
  ratios.push(ratio);
  console.log(`${JSON.stringify(unit).padEnd(12)} ${SIZE.toLocaleString('en')} chars: ${median(smallTimes).toFixed(1)} ms, twice as many: ${median(largeTimes).toFixed(1)} ms (×${ratio.toFixed(2)})`);
}
const ratio = Math.max(...ratios);
console.log(JSON.stringify({ bench: 'markdown', ratio: Math.round(ratio * 100) / 100, target: 2.5 }));
// A smoke run's text is too short for the ratio to mean anything: it only proves the bench runs.
if (ratio > 2.5 && !BENCH_SMOKE) process.exitCode = 1;
