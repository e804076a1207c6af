import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rules are only worth something if breaking them fails the build: lint the same
// snippet as if it lived in each folder and check who is allowed to say it.
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

const electronImport = "import { app } from 'electron';\nexport const x = app;\n";

describe('import rules', () => {
  it.each(['main/probe.ts', 'main/mcp/probe.ts', 'shared/probe.ts', 'renderer/src/probe.tsx', 'app/web/probe.ts', 'app/cli/probe.ts'])(
    'an electron import in %s is an error',
    async (file) => {
      expect((await violations(file, electronImport)).join('\n')).toMatch(/Only app\/electron may import electron/);
    },
  );

  it('app/electron may import electron', async () => {
    expect(await violations('app/electron/probe.ts', electronImport)).toEqual([]);
  });

  it('shared/ may import zod and nothing else', async () => {
    expect(await violations('shared/probe.ts', "import { z } from 'zod';\nexport const s = z.string();\n")).toEqual([]);
    expect(await violations('shared/probe.ts', "import yaml from 'yaml';\nexport const y = yaml;\n")).not.toEqual([]);
    expect(await violations('shared/probe.ts', "import { createCore } from '../main/core';\nexport const c = createCore;\n")).not.toEqual([]);
  });

  it('renderer/ may import types, not values, from main/rpc, and nothing else from main/', async () => {
    expect(await violations('renderer/src/probe.ts', "import type { AppRouter } from '../../main/rpc/router';\nexport type R = AppRouter;\n")).toEqual([]);
    expect(await violations('renderer/src/probe.ts', "import { appRouter } from '../../main/rpc/router';\nexport const r = appRouter;\n")).not.toEqual([]);
    expect(await violations('renderer/src/probe.ts', "import { createCore } from '../../main/core';\nexport const c = createCore;\n")).not.toEqual([]);
  });

  it('main/ may not import from app/ or renderer/', async () => {
    expect(await violations('main/probe.ts', "import { runCli } from '../app/cli/program';\nexport const r = runCli;\n")).not.toEqual([]);
  });

  // Every folder of main/ but rpc/ (which serves the domain) and testing/ is a domain folder.
  const domainFolders = readdirSync(new URL('../../main', import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !['rpc', 'testing'].includes(entry.name))
    .map((entry) => entry.name);

  it.each(domainFolders)('main/%s/ may not import main/core.ts or main/rpc/, not even a type', async (folder) => {
    expect((await violations(`main/${folder}/probe.ts`, "import type { Core } from '../core';\nexport type C = Core;\n")).join('\n')).toMatch(/never imports main\/core\.ts/);
    expect((await violations(`main/${folder}/deeper/probe.ts`, "import { createCore } from '../../core';\nexport const c = createCore;\n")).join('\n')).toMatch(/never imports main\/core\.ts/);
    expect((await violations(`main/${folder}/probe.ts`, "import type { AppRouter } from '../rpc/router';\nexport type R = AppRouter;\n")).join('\n')).toMatch(/never imports main\/rpc\//);
    // The rules of all of main/ still hold there.
    expect((await violations(`main/${folder}/probe.ts`, "import { runCli } from '../../app/cli/program';\nexport const r = runCli;\n")).join('\n')).toMatch(/main\/ imports shared\/ only/);
  });

  it.each([
    ['gateway', "import { mediationRoutes } from '../mediation/mediationRoutes';\nexport const m = mediationRoutes;\n"],
    ['bus', "import type { GatewayAgents } from '../gateway/Gateway';\nexport type G = GatewayAgents;\n"],
    ['mediation', "import { BusBridge } from '../bus/BusBridge';\nexport const b = BusBridge;\n"],
  ])('main/%s/ (a door) may not import another door, and may import main/agents/', async (door, code) => {
    expect((await violations(`main/${door}/probe.ts`, code)).join('\n')).toMatch(/A door never imports another door/);
    expect(await violations(`main/${door}/probe.ts`, "import type { AgentCall } from '../agents/Agents';\nexport type A = AgentCall;\n")).toEqual([]);
  });

  it('main/core.ts and main/rpc/ may import the domain folders, and a domain folder its neighbours', async () => {
    expect(await violations('main/core.ts', "import { McpService } from './mcp/McpService';\nexport const m = McpService;\n")).toEqual([]);
    expect(await violations('main/rpc/probe.ts', "import type { Core } from '../core';\nexport type C = Core;\n")).toEqual([]);
    expect(await violations('main/collections/probe.ts', "import { prepareSource } from '../registry/ToolSourceKind';\nexport const p = prepareSource;\n")).toEqual([]);
  });
});
