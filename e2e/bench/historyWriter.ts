// One replica of the history bench: records `rows` calls spread over the last 24 hours into the
// PostgreSQL history at `url` under `replica`, as a gateway would (record() only queues; batches
// go out in the background), and prints {"started":…,"finished":…} once every row is written.
import { randomUUID } from 'node:crypto';
import type { InvocationRecord, InvocationStatus } from '../../shared/invocation';
import { PostgresHistory } from '../../main/store/PostgresHistory';

const [url, replica, rowsText] = process.argv.slice(2);
const rows = Number(rowsText);
const DAY = 86_400_000;
const tools = ['echo', 'get-sum', 'search', 'fetch', 'read_file', 'write_file', 'list', 'query', 'translate', 'summarize'];
const sources = [
  ['mcp', 'everything'],
  ['mcp', 'git'],
  ['a2a', 'planner'],
  ['http', 'weather'],
] as const;

function call(i: number, end: number): InvocationRecord {
  const [sourceKind, sourceName] = sources[i % sources.length]!;
  const roll = (i * 2_654_435_761) % 1000;
  const status: InvocationStatus = roll < 950 ? 'ok' : roll < 980 ? 'error' : roll < 995 ? 'timeout' : 'denied';
  return {
    id: randomUUID(),
    startedAt: end - DAY + Math.floor((i * DAY) / rows),
    sourceKind,
    sourceName,
    tool: tools[(i * 7) % tools.length]!,
    argumentsJson: `{"query":"item ${i}","limit":10}`,
    status,
    ...(status === 'ok' ? {} : { errorCode: 'ExecutionFailed' as const, errorMessage: 'upstream said no' }),
    latencyMs: Math.round(Math.exp(((roll * 7919) % 1000) / 110) * 100) / 100,
    requestBytes: 40,
    responseBytes: 180,
    resultPreview: `result for item ${i}: a few dozen characters of tool output`,
    truncated: false,
    via: 'gateway',
    agent: `agent-${i % 8}`,
    replica: replica!,
  };
}

const store = await PostgresHistory.open({ url: url!, retention: false, maxMemoryRows: 50_000 });
const end = Date.now();
const started = performance.timeOrigin + performance.now();
// Offered in slices so the writer's queue, not this loop, sets the pace (as calls arriving would).
for (let i = 0; i < rows; i++) {
  store.record(call(i, end));
  if (i % 5_000 === 4_999) await store.flush();
}
await store.flush();
const finished = performance.timeOrigin + performance.now();
const health = store.health();
await store.close();
console.log(JSON.stringify({ started, finished, rows, dropped: health.droppedRows }));
