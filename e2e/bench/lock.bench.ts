// Tool-definition trust benchmarks: what the lockfile's holds add to every call, what a source that
// lists its tools again costs (hash every definition, record the revision, review against the
// lock), and how fast the linter reads definitions.
// Run: tsx e2e/bench/lock.bench.ts (or `npm run bench -- lock`). The last line is JSON.
//
// Each figure is a ratio against a baseline measured in the same run, interleaved round by round:
// - `hold_ratio`: pipeline calls with the lock's holds consulted, over the same pipeline without.
// - `relist_ratio`: a source of 1,000 tools relisted into a catalog the lock follows, over the same
//   relisting into a catalog nobody follows.
// - lint: microseconds per tool definition (no baseline has meaning here; printed, not targeted).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ToolSource } from '../../shared/invocation';
import type { ToolEntry } from '../../shared/registry';
import { DefinitionLock } from '../../main/lock/DefinitionLock';
import { DefinitionStore } from '../../main/lock/DefinitionStore';
import { lintTools } from '../../main/lock/lint/lintTools';
import { entryHashes } from '../../main/lock/definitionHash';
import { silentLogger } from '../../main/platform/Logger';
import { createToolEntry } from '../../main/registry/createToolEntry';
import { InvocationPipeline } from '../../main/registry/InvocationPipeline';
import { MemoryInvocationRecorder } from '../../main/registry/testing/MemoryInvocationRecorder';
import { ToolCatalog } from '../../main/registry/ToolCatalog';
import type { ToolExecutor } from '../../main/registry/types';
import { benchCount, round, summarize } from './benchStats';
import { operatorCaller } from '../../shared/caller';

const ROUNDS = benchCount(15, 2);
const CALLS_PER_ROUND = benchCount(3000, 50);
const TOOLS = benchCount(1000, 50);
const RELISTS_PER_ROUND = benchCount(5, 1);

const source: ToolSource = { kind: 'mcp', name: 'bench' };
const empty: ToolExecutor = { execute: async () => ({ content: [] }) };

function tools(variant: number): ToolEntry[] {
  return Array.from({ length: TOOLS }, (_, i) =>
    createToolEntry({
      source,
      tool: {
        name: `tool_${i}`,
        description: `Tool number ${i} of the bench server: it reads records of kind ${i % 17} and returns them as JSON${i === 0 ? ` (variant ${variant})` : ''}.`,
        inputSchema: { type: 'object', properties: { id: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['id'] },
        annotations: { readOnlyHint: true },
      },
    }),
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'lock-bench-'));
  try {
    // ---- holds on the call path ---------------------------------------------------------------
    const catalog = new ToolCatalog();
    const store = DefinitionStore.open(join(dir, 'definitions.db'));
    const lock = new DefinitionLock({ catalog, store, workspaceDir: () => dir, tracked: () => true, logger: silentLogger });
    await lock.init();
    catalog.replaceSource(source, tools(0), empty);
    await lock.flush();
    const held = new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder(1000), holds: (entry) => lock.hold(entry) });
    const plain = new InvocationPipeline({ catalog, recorder: new MemoryInvocationRecorder(1000) });
    const run = async (pipeline: InvocationPipeline) => {
      const start = performance.now();
      for (let i = 0; i < CALLS_PER_ROUND; i++) await pipeline.invoke({ caller: operatorCaller('cli'), name: `mcp:bench.tool_${i % TOOLS}`, arguments: { id: 'x' } });
      return ((performance.now() - start) * 1000) / CALLS_PER_ROUND;
    };
    await run(plain);
    await run(held);
    const plainUs: number[] = [];
    const heldUs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2) {
        plainUs.push(await run(plain));
        heldUs.push(await run(held));
      } else {
        heldUs.push(await run(held));
        plainUs.push(await run(plain));
      }
    }
    const holdRatio = summarize(heldUs).median / summarize(plainUs).median;
    console.log(`call: ${round(summarize(plainUs).median, 2)} µs without holds, ${round(summarize(heldUs).median, 2)} µs with them: hold_ratio ${round(holdRatio)}`);

    // ---- a source listing its tools again -----------------------------------------------------
    const bare = new ToolCatalog();
    let variant = 1;
    const relist = (into: ToolCatalog) => {
      const start = performance.now();
      // Each relisting brings new entry objects (as a real tools/list does) and a changed tool.
      for (let i = 0; i < RELISTS_PER_ROUND; i++) into.replaceSource(source, tools(variant++), empty);
      return (performance.now() - start) / RELISTS_PER_ROUND;
    };
    relist(bare);
    relist(catalog);
    const bareMs: number[] = [];
    const lockedMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      bareMs.push(relist(bare));
      lockedMs.push(relist(catalog));
    }
    await lock.flush();
    const relistRatio = summarize(lockedMs).median / summarize(bareMs).median;
    console.log(`relisting ${TOOLS} tools: ${round(summarize(bareMs).median, 2)} ms into a plain catalog, ${round(summarize(lockedMs).median, 2)} ms with the lock following: relist_ratio ${round(relistRatio)}`);
    console.log(`revisions recorded: ${store.count('mcp:bench')}, held now: ${lock.review('mcp:bench').held}`);

    // ---- the linter ---------------------------------------------------------------------------
    const definitions = tools(0).map((entry) => entryHashes(entry).definition);
    lintTools(definitions);
    const lintUs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = performance.now();
      lintTools(definitions);
      lintUs.push(((performance.now() - start) * 1000) / TOOLS);
    }
    console.log(`lint: ${round(summarize(lintUs).median, 2)} µs per tool definition (${TOOLS} tools)`);
    lock.close();
    store.close();
    console.log(JSON.stringify({ bench: 'lock', hold_ratio: round(holdRatio), relist_ratio: round(relistRatio), call_us_plain: round(summarize(plainUs).median, 2), call_us_held: round(summarize(heldUs).median, 2), relist_ms_plain: round(summarize(bareMs).median, 2), relist_ms_locked: round(summarize(lockedMs).median, 2), lint_us_per_tool: round(summarize(lintUs).median, 2) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
