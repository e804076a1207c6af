import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { ToolCatalog } from '../registry/ToolCatalog';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import { HttpServices } from './HttpServices';
import { HttpSourceKind } from './httpSourceKind';

const seedDescriptor = fileURLToPath(new URL('./testing/trading-api.claw-describe.json', import.meta.url));

describe('HTTP services as a source kind', () => {
  async function setup() {
    const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-http-kind-'));
    const catalog = new ToolCatalog();
    const services = new HttpServices({ dataDir, catalog, secretStore: new MemorySecretStore(), logger: silentLogger });
    await services.init();
    const kind: ToolSourceKind<'http'> = new HttpSourceKind(services, catalog);
    return { dataDir, catalog, services, kind };
  }

  it('finds a saved service loaded at start; one not loaded is not found, with the same sentence as before', async () => {
    const first = await setup();
    await first.services.add({ service: 'trading-api', location: seedDescriptor, baseUrl: 'http://127.0.0.1:9' });
    // A new process loads the saved descriptor at start: nothing more to prepare.
    const catalog = new ToolCatalog();
    const services = new HttpServices({ dataDir: first.dataDir, catalog, secretStore: new MemorySecretStore(), logger: silentLogger });
    await services.init();
    const kind = new HttpSourceKind(services, catalog);
    await kind.prepare('trading-api');
    expect(catalog.list({ source: 'http:trading-api' }).map((entry) => entry.toolName).sort()).toEqual(['execute_trade', 'get_market_context']);
    await expect(kind.prepare('nowhere')).rejects.toMatchObject({ code: 'NotFound', message: 'No HTTP service named "nowhere" is loaded' });
  });

  it('keeps its saved services, each lasting, with no endpoint of their own (each tool carries its base URL)', async () => {
    const { services, kind } = await setup();
    expect(await kind.savedSources({})).toEqual([]);
    await services.add({ service: 'trading-api', location: seedDescriptor, baseUrl: 'http://127.0.0.1:9' });
    expect(await kind.savedSources({})).toEqual(['trading-api']);
    expect(kind.lasting('trading-api')).toBe(true);
    expect(await kind.endpoints()).toEqual({});
  });
});
