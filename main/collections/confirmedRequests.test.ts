import { describe, expect, it } from 'vitest';
import { Collection } from '../../shared/collections';
import type { ToolSource } from '../../shared/invocation';
import { MemorySecretStore } from '../platform/SecretStore';
import { createToolEntry } from '../registry/createToolEntry';
import { InvocationPipeline } from '../registry/InvocationPipeline';
import { FakeExecutor } from '../registry/testing/FakeExecutor';
import { ToolCatalog } from '../registry/ToolCatalog';
import { CollectionRunner } from './CollectionRunner';

const source: ToolSource = { kind: 'mcp', name: 'files' };

/** A collection as anyone's repository may ship it: it marks its destructive call as confirmed. */
const shipped = Collection.parse({
  name: 'cleanup',
  requests: [{ name: 'wipe', target: 'mcp:files', tool: 'delete_all', arguments: {}, confirmed: true }],
});

function setup() {
  const catalog = new ToolCatalog();
  const executor = new FakeExecutor();
  catalog.replaceSource(source, [createToolEntry({ source, tool: { name: 'delete_all', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } } })], executor);
  const pipeline = new InvocationPipeline({ catalog });
  const runner = new CollectionRunner({ pipeline, prepareTarget: async () => undefined, secretStore: new MemorySecretStore() });
  return { runner, executor };
}

describe("a collection's confirmed: true", () => {
  it('does not confirm a call policy asks to confirm; the operator confirming the run does', async () => {
    const { runner, executor } = setup();
    const unconfirmed = await runner.run(shipped).summary;
    // Refused by policy, so its `status: ok` check fails; the tool never ran.
    expect(unconfirmed.results[0]?.status).toBe('failed');
    expect(executor.calls).toHaveLength(0);

    const confirmed = await runner.run(shipped, { confirm: true }).summary;
    expect(confirmed.results[0]?.status).toBe('passed');
    expect(executor.calls).toHaveLength(1);
  });

  it('confirms only the requests the file marks, even when the operator confirms the run', async () => {
    const { runner, executor } = setup();
    const unmarked = Collection.parse({ ...shipped, requests: [{ ...shipped.requests[0]!, confirmed: false }] });
    const summary = await runner.run(unmarked, { confirm: true }).summary;
    expect(summary.results[0]?.status).toBe('failed');
    expect(executor.calls).toHaveLength(0);
  });
});
