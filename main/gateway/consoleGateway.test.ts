import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../core';
import { silentLogger, type Logger } from '../platform/Logger';
import { MemorySecretStore } from '../platform/SecretStore';
import { restoreConsoleGateway, startConsoleGateway, stopConsoleGateway } from './consoleGateway';

/** Keeps what was logged, to check the console says why the gateway stayed off. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warn: (message: string) => void warnings.push(message), warnings };
}

/** Consoles on one data dir, one after another, as a user restarting the desktop app or `tooldeck serve`. */
describe('the console’s gateway stays on across restarts until it is stopped there', () => {
  const dirs: string[] = [];
  const cores: Core[] = [];
  let blocker: Server | undefined;

  afterEach(async () => {
    for (const core of cores.splice(0)) await core.close();
    await new Promise<void>((done) => (blocker ? blocker.close(() => done()) : done()));
    blocker = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function openConsole(dataDir: string, logger = silentLogger): Promise<Core> {
    const core = await createCore({ exampleWorkspace: false, appVersion: '0', host: 'web', dataDir, secretStore: new MemorySecretStore(), logger });
    cores.push(core);
    await restoreConsoleGateway(core, logger);
    return core;
  }
  async function restart(core: Core, dataDir: string, logger = silentLogger) {
    cores.splice(cores.indexOf(core), 1);
    await core.close();
    return openConsole(dataDir, logger);
  }
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-console-gateway-'));
    dirs.push(dir);
    return dir;
  };

  it('started on a port the system picked, it comes back on that very port; stopped, it stays off', async () => {
    const dir = dataDir();
    let core = await openConsole(dir);
    expect(core.gateway.status().running).toBe(false);

    const started = await startConsoleGateway(core, { port: 0 });
    expect(started.running).toBe(true);
    expect(started.port).toBeGreaterThan(0);

    core = await restart(core, dir);
    expect(core.gateway.status()).toMatchObject({ running: true, host: '127.0.0.1', port: started.port });

    await stopConsoleGateway(core);
    core = await restart(core, dir);
    expect(core.gateway.status().running).toBe(false);
  });

  it('its port taken by then, the console starts without it and says why, and keeps it on for the next start', async () => {
    const dir = dataDir();
    let core = await openConsole(dir);
    const { port } = await startConsoleGateway(core, { port: 0 });
    await core.close();
    cores.splice(0);
    blocker = createServer();
    await new Promise<void>((done) => blocker!.listen(port, '127.0.0.1', done));

    const logger = recordingLogger();
    core = await openConsole(dir, logger);
    expect(core.gateway.status()).toMatchObject({ running: false, error: `Port ${port} is in use; pick another.` });
    expect(logger.warnings).toContain('The gateway started from the console could not start again');
    expect(core.settings.get().gateway.enabled).toBe(true);
  });

  it('refuses an address other machines could reach, and keeps nothing', async () => {
    const core = await openConsole(dataDir());
    await expect(startConsoleGateway(core, { host: '0.0.0.0', port: 0 })).rejects.toThrow('The console starts the gateway on a loopback address only, not 0.0.0.0');
    expect(core.settings.get().gateway.enabled).toBe(false);
    expect(core.gateway.status().running).toBe(false);
  });
});
