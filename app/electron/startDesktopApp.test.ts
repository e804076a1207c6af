import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createCore, type Core, type CoreDeps } from '../../main/core';
import { DESKTOP_EVENT } from '../../shared/desktop';
import { IPC_CALL, IPC_EVENT, IPC_SUBSCRIBE, type IpcCallResult, type IpcEvent } from '../../shared/ipc';
import { ApprovalBook } from '../../main/approvals/ApprovalBook';
import type { UpdaterLike } from './AppUpdates';
import { startDesktopApp, type DesktopAppOptions } from './startDesktopApp';
import { FakeElectron, FakeInstanceLocks, type FakeBrowserWindow } from './testing/FakeElectron';

const projectRoot = join(import.meta.dirname, '../..');
const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `tooldeck-desktop-${name}-`));

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A core that is only a close() and an empty approval book: for tests of the shell around it. */
function closableCore(close: () => Promise<void> = async () => undefined) {
  return { close: vi.fn(close), approvals: { list: async () => [], onChange: () => () => undefined } } as unknown as Core;
}

function launch(options: Partial<DesktopAppOptions> & { userData?: string; locks?: FakeInstanceLocks; packaged?: boolean; displays?: Array<{ x: number; y: number; width: number; height: number }> } = {}) {
  const fake = new FakeElectron({ userData: options.userData ?? tempDir('userdata'), packaged: options.packaged ?? true, appPath: projectRoot, locks: options.locks, displays: options.displays });
  const argv = options.argv ?? ['/opt/Tooldeck/tooldeck'];
  fake.app.argv = argv;
  const env: NodeJS.ProcessEnv = options.env ?? { PATH: '/usr/bin:/bin' };
  const running = startDesktopApp({
    electron: fake,
    argv,
    env,
    platform: options.platform ?? 'linux',
    resourcesPath: tempDir('resources'),
    mainDir: join(projectRoot, 'out/main'),
    resolvePath: options.resolvePath ?? (async () => ({ path: '/home/me/.local/bin:/usr/bin:/bin', source: 'login-shell', added: ['/home/me/.local/bin'] })),
    createCore: options.createCore ?? (async () => closableCore()),
    quitTimeoutMs: options.quitTimeoutMs,
    updater: options.updater,
    mirrorLog: () => undefined,
  });
  return { fake, running, env };
}

const window = (fake: FakeElectron): FakeBrowserWindow => fake.windows.at(-1)!;
const desktopEvents = (win: FakeBrowserWindow) => win.webContents.sent.filter((m) => m.channel === DESKTOP_EVENT).map((m) => m.payload);

describe('start-up order', () => {
  it('does the before-ready work before ready, and the core only after it, with the window already on screen', async () => {
    const coreCall = deferred<Core>();
    let readyWhenCoreMade: boolean | undefined;
    let pathWhenCoreMade: string | undefined;
    const { fake, running, env } = launch({
      createCore: (deps) => {
        readyWhenCoreMade = fake.ready;
        pathWhenCoreMade = env.PATH;
        expect(deps).toMatchObject({ host: 'electron', autoConnect: true });
        return coreCall.promise;
      },
    });
    expect(running.role).toBe('primary');
    expect(fake.calls).toContain('app.requestSingleInstanceLock');
    expect(fake.calls).toContain('protocol.registerSchemesAsPrivileged');
    expect(fake.windows).toHaveLength(0);

    await fake.emitReady();
    await vi.waitFor(() => expect(readyWhenCoreMade).toBe(true));
    // The window is up, on the starting page, while the core is still being made.
    const win = window(fake);
    expect(win.loaded).toEqual(['app://tooldeck/__starting']);
    expect(win.shown).toBe(true);
    const page = await fake.protocolHandler!(new Request('app://tooldeck/__starting'));
    expect(await page.text()).toContain('Starting Tooldeck');
    expect(page.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
    // Servers started by the core find what the user's terminal finds.
    expect(pathWhenCoreMade).toBe('/home/me/.local/bin:/usr/bin:/bin');

    coreCall.resolve(closableCore());
    expect(await running.started).toBe('running');
    expect(win.loaded).toEqual(['app://tooldeck/__starting', 'app://tooldeck/']);
  });

  it('reports a core that fails to start in a dialog and exits with 1', async () => {
    const { fake, running } = launch({ createCore: async () => Promise.reject(new Error('database is locked')) });
    await fake.emitReady();
    expect(await running.started).toBe('failed');
    expect(fake.errorBoxes).toHaveLength(1);
    expect(fake.errorBoxes[0]!.title).toBe('Tooldeck could not start');
    expect(fake.errorBoxes[0]!.content).toMatch(/database is locked[\s\S]*Data folder: .*[\s\S]*Log: .*main\.log/);
    expect(fake.exitCode).toBe(1);
  });

  it('answers IPC calls that arrive while the core starts once it is up, and refuses frames that are not the app', async () => {
    const coreCall = deferred<Core>();
    const { fake, running } = launch({ createCore: () => coreCall.promise });
    await fake.emitReady();
    await vi.waitFor(() => expect(fake.windows).toHaveLength(1));
    const win = window(fake);
    win.url = 'app://tooldeck/';
    const call = fake.ipcHandlers.get(IPC_CALL)!;
    const answer = call(fake.ipcEvent(win), { type: 'query', path: 'system.info', input: undefined }) as Promise<IpcCallResult>;
    const core = await createCore({ appVersion: '9.9.9', host: 'electron', dataDir: tempDir('ipc'), secretStore: fake.safeStorage as never, logger: { debug() {}, info() {}, warn() {}, error() {} }, exampleWorkspace: false });
    coreCall.resolve(core);
    await running.started;
    expect(await answer).toMatchObject({ ok: true, data: { appVersion: '9.9.9' } });
    expect(() => call(fake.ipcEvent(win, { url: 'app://tooldeck/', parent: {} }), { type: 'query', path: 'system.info', input: undefined })).toThrow(/not the app main frame/);
    expect(() => call(fake.ipcEvent(win, { url: 'https://evil.example/', parent: null }), { type: 'query', path: 'system.info', input: undefined })).toThrow(/not the app main frame/);
    fake.app.quit();
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
  });
});

describe('data folder', () => {
  it('uses TOOLDECK_DATA_DIR, and --data-dir over it, as userData (set before ready) and for the core', async () => {
    const fromEnv = tempDir('env');
    const fromFlag = tempDir('flag');
    let deps: CoreDeps | undefined;
    const { fake, running } = launch({ env: { TOOLDECK_DATA_DIR: fromEnv }, argv: ['/opt/Tooldeck/tooldeck', '--data-dir', fromFlag], createCore: async (d) => ((deps = d), closableCore()) });
    expect(fake.app.getPath('userData')).toBe(fromFlag);
    expect(running.dataDir).toBe(fromFlag);
    await fake.emitReady();
    await running.started;
    expect(deps!.dataDir).toBe(fromFlag);
    // Logs live in the chosen folder too, so two data folders never mix their logs.
    expect(existsSync(join(fromFlag, 'logs', 'main.log'))).toBe(true);
    expect(fake.calls.indexOf('app.setPath userData')).toBeLessThan(fake.calls.indexOf('ready'));
  });

  it('keeps one instance per data folder: a second launch hands its deep link to the first, which comes to the front', async () => {
    const locks = new FakeInstanceLocks();
    const userData = tempDir('shared');
    const first = launch({ userData, locks });
    await first.fake.emitReady();
    await first.running.started;
    const win = window(first.fake);
    win.minimized = true;

    const second = launch({ userData, locks, argv: ['/opt/Tooldeck/tooldeck', 'tooldeck://server/everything'] });
    expect(second.running.role).toBe('secondary');
    expect(second.fake.calls).toContain('app.quit');
    expect(second.fake.windows).toHaveLength(0);
    await vi.waitFor(() => expect(desktopEvents(win)).toEqual([{ kind: 'navigate', section: 'servers', params: { server: 'everything' } }]));
    expect(win.minimized).toBe(false);
    expect(win.focused).toBeGreaterThan(0);

    // Another data folder is another instance.
    const other = launch({ locks, env: { TOOLDECK_DATA_DIR: tempDir('other') } });
    expect(other.running.role).toBe('primary');
  });
});

describe('deep links', () => {
  it('opens the app on the linked tool when launched by a link, and on a server when macOS hands one over before ready', async () => {
    const { fake, running } = launch({ argv: ['/opt/Tooldeck/tooldeck', 'tooldeck://tool/mcp:everything.echo'] });
    await fake.emitReady();
    await running.started;
    expect(window(fake).loaded.at(-1)).toBe('app://tooldeck/tools?tool=mcp%3Aeverything.echo');

    const mac = launch({});
    mac.fake.app.emit('open-url', { preventDefault() {} }, 'tooldeck://server/my%20server');
    mac.fake.app.emit('open-url', { preventDefault() {} }, 'tooldeck://delete/everything');
    await mac.fake.emitReady();
    await mac.running.started;
    expect(window(mac.fake).loaded.at(-1)).toBe('app://tooldeck/servers?server=my+server');
  });

  it('on macOS, where the app outlives its window, a link opens a new window on its item', async () => {
    const { fake, running } = launch({ platform: 'darwin' });
    await fake.emitReady();
    await running.started;
    window(fake).destroy();
    expect(fake.exitCode).toBeUndefined();
    fake.app.emit('open-url', { preventDefault() {} }, 'tooldeck://agent/helper');
    await vi.waitFor(() => expect(fake.windows).toHaveLength(2));
    await vi.waitFor(() => expect(window(fake).loaded).toEqual(['app://tooldeck/agents?agent=helper']));
  });
});

describe('links the page opens', () => {
  it('opens https in the browser, local http after the user confirms, and reports anything else to the window', async () => {
    const { fake, running } = launch({});
    await fake.emitReady();
    await running.started;
    const contents = window(fake).webContents;
    expect(contents.windowOpenHandler!({ url: 'https://modelcontextprotocol.io/' })).toEqual({ action: 'deny' });
    fake.dialogAnswers.push(0);
    contents.windowOpenHandler!({ url: 'http://127.0.0.1:8400/callback' });
    fake.dialogAnswers.push(1);
    contents.windowOpenHandler!({ url: 'http://localhost:3000/admin' });
    contents.windowOpenHandler!({ url: 'ftp://files.example/' });
    expect(contents.navigate('https://docs.example/page')).toBe(false);
    expect(contents.navigate('app://tooldeck/tools')).toBe(true);
    await vi.waitFor(() => expect(fake.opened).toEqual(['https://modelcontextprotocol.io/', 'https://docs.example/page', 'http://127.0.0.1:8400/callback']));
    expect(fake.messageBoxes.map((box) => box.message)).toEqual(['Open a page on this computer?', 'Open a page on this computer?']);
    expect(desktopEvents(window(fake))).toEqual([{ kind: 'link-blocked', url: 'ftp://files.example/', reason: 'ftp: links are not opened' }]);
  });

  it('grants clipboard writes to the app window only', async () => {
    const { fake, running } = launch({});
    await fake.emitReady();
    await running.started;
    const asked = (url: string, isMainFrame = true) => new Promise<boolean>((resolve) => fake.permissionRequest!(window(fake).webContents, 'clipboard-sanitized-write', resolve, { isMainFrame, requestingUrl: url }));
    expect(await asked('app://tooldeck/tools')).toBe(true);
    expect(await asked('app://tooldeck/tools', false)).toBe(false);
    expect(await asked('https://evil.example/')).toBe(false);
  });

  it('stops any page from attaching a <webview>', async () => {
    const { fake } = launch({});
    const contents = new (await import('node:events')).EventEmitter();
    fake.app.emit('web-contents-created', {}, contents);
    let prevented = false;
    contents.emit('will-attach-webview', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
  });
});

describe('quitting', () => {
  it('waits for the core to flush and end its servers before the app ends', async () => {
    const closing = deferred<void>();
    const core = closableCore(() => closing.promise);
    const { fake, running } = launch({ createCore: async () => core });
    await fake.emitReady();
    await running.started;
    fake.app.quit();
    await vi.waitFor(() => expect(core.close).toHaveBeenCalledTimes(1));
    expect(fake.exitCode).toBeUndefined();
    fake.app.quit();
    expect(core.close).toHaveBeenCalledTimes(1);
    closing.resolve();
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
  });

  it('does not wait forever for a core that never closes', async () => {
    const { fake, running } = launch({ createCore: async () => closableCore(() => new Promise(() => undefined)), quitTimeoutMs: 50 });
    await fake.emitReady();
    await running.started;
    fake.app.quit();
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
    expect(readFileSync(join(fake.app.getPath('logs'), 'main.log'), 'utf8')).toMatch(/quit without waiting longer for the core to close/);
  });

  it('quits when the last window closes (outside macOS)', async () => {
    const { fake, running } = launch({});
    await fake.emitReady();
    await running.started;
    window(fake).destroy();
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
  });
});

describe('the window', () => {
  it('reloads a renderer that crashed, and asks after the third crash in a minute', async () => {
    const { fake, running } = launch({});
    await fake.emitReady();
    await running.started;
    const contents = window(fake).webContents;
    contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    contents.emit('render-process-gone', {}, { reason: 'oom', exitCode: 0 });
    expect(contents.reloads).toBe(2);
    fake.dialogAnswers.push(1);
    contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    await vi.waitFor(() => expect(fake.messageBoxes.at(-1)?.message).toBe('The Tooldeck window keeps crashing'));
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
  });

  it('remembers its size and position, and drops a position no display shows any more', async () => {
    const userData = tempDir('state');
    const first = launch({ userData });
    await first.fake.emitReady();
    await first.running.started;
    Object.assign(window(first.fake).options, { x: 200, y: 120, width: 1200, height: 800 });
    window(first.fake).destroy();
    await vi.waitFor(() => expect(existsSync(join(userData, 'window-state.json'))).toBe(true));
    await vi.waitFor(() => expect(first.fake.exitCode).toBe(0));

    const again = launch({ userData });
    await again.fake.emitReady();
    await again.running.started;
    expect(window(again.fake).options).toMatchObject({ x: 200, y: 120, width: 1200, height: 800 });

    const unplugged = launch({ userData, displays: [{ x: 3000, y: 0, width: 1280, height: 720 }] });
    await unplugged.fake.emitReady();
    await unplugged.running.started;
    expect(window(unplugged.fake).options).toMatchObject({ width: 1200, height: 720 });
    expect(window(unplugged.fake).options.x).toBeUndefined();
  });

  it('ends a page’s subscriptions when it reloads or closes', async () => {
    const { fake, running } = launch({ createCore: (deps) => createCore({ ...deps, autoConnect: false, exampleWorkspace: false }) });
    await fake.emitReady();
    await running.started;
    const win = window(fake);
    const subscribe = fake.ipcListeners.get(IPC_SUBSCRIBE)![0]!;
    subscribe(fake.ipcEvent(win), { id: 's1', path: 'system.heartbeat', input: { intervalMs: 50 } });
    const beats = (id: string) => win.webContents.sent.filter((m) => m.channel === IPC_EVENT && (m.payload as IpcEvent).kind === 'data' && (m.payload as IpcEvent).id === id).length;
    await vi.waitFor(() => expect(beats('s1')).toBeGreaterThan(1));
    win.webContents.reload();
    const beforeReload = beats('s1');
    // The reloaded page subscribes afresh; by the time it has three beats the old stream would have
    // sent as many, had it survived the reload.
    subscribe(fake.ipcEvent(win), { id: 's2', path: 'system.heartbeat', input: { intervalMs: 50 } });
    await vi.waitFor(() => expect(beats('s2')).toBeGreaterThanOrEqual(3));
    expect(beats('s1')).toBe(beforeReload);
    win.destroy();
    const closedAt = beats('s2');
    expect(() => win.webContents.send('x', 1)).toThrow(/destroyed/);
    expect(beats('s2')).toBe(closedAt);
    fake.app.quit();
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
  });
});

describe('menu and updates', () => {
  const labels = (template: MenuItemConstructorOptions[]): string[] =>
    template.flatMap((item) => [item.role ?? item.label ?? '', ...(Array.isArray(item.submenu) ? labels(item.submenu) : [])]).filter(Boolean) as string[];

  it('has no Reload or DevTools in a release, and has them with --debug', async () => {
    const release = launch({});
    await release.fake.emitReady();
    await release.running.started;
    expect(labels(release.fake.menuTemplate!)).not.toEqual(expect.arrayContaining(['toggleDevTools']));
    expect(labels(release.fake.menuTemplate!)).not.toContain('reload');
    expect(labels(release.fake.menuTemplate!)).toEqual(expect.arrayContaining(['copy', 'paste', 'About Tooldeck', 'Open Logs Folder']));
    expect(window(release.fake).options.webPreferences?.devTools).toBe(false);

    const debug = launch({ argv: ['/opt/Tooldeck/tooldeck', '--debug'] });
    await debug.fake.emitReady();
    await debug.running.started;
    expect(labels(debug.fake.menuTemplate!)).toEqual(expect.arrayContaining(['reload', 'toggleDevTools']));
    expect(window(debug.fake).options.webPreferences?.devTools).toBe(true);
  });

  it('offers a downloaded update in the window and installs it when asked', async () => {
    const updater = Object.assign(new (await import('node:events')).EventEmitter(), {
      autoDownload: false,
      autoInstallOnAppQuit: false,
      checkForUpdates: vi.fn(async () => undefined),
      quitAndInstall: vi.fn(),
    });
    const { fake, running } = launch({ updater: () => updater as unknown as UpdaterLike });
    await fake.emitReady();
    await running.started;
    expect(updater.checkForUpdates).toHaveBeenCalled();
    expect(updater).toMatchObject({ autoDownload: true, autoInstallOnAppQuit: true });
    updater.emit('update-downloaded', { version: '0.2.0' });
    expect(desktopEvents(window(fake))).toEqual([{ kind: 'update-ready', version: '0.2.0' }]);
    fake.ipcListeners.get('tooldeck:desktop:install-update')![0]!(fake.ipcEvent(window(fake), { url: 'https://evil.example/', parent: null }), undefined);
    expect(updater.quitAndInstall).not.toHaveBeenCalled();
    window(fake).url = 'app://tooldeck/';
    fake.ipcListeners.get('tooldeck:desktop:install-update')![0]!(fake.ipcEvent(window(fake)), undefined);
    expect(updater.quitAndInstall).toHaveBeenCalledTimes(1);
  });
});

describe('approval notices', () => {
  it('shows a desktop notification when another process holds a call for approval, and a click opens the inbox', async () => {
    const { fake, running } = launch({ createCore: (deps) => createCore({ ...deps, autoConnect: false, exampleWorkspace: false }) });
    await fake.emitReady();
    await running.started;
    // The gateway is another process on the same data folder: here, a book of its own.
    const gateway = new ApprovalBook({ dataDir: running.dataDir });
    const held = gateway.hold({ agent: 'planner-bot', tool: 'mcp:ops.deploy', operationClass: 'write', input: { service: 'billing' }, reason: 'ToolPermission ops: write needs approval', policyVersion: 'v1', taskRef: 's1' }).catch((error: Error) => error.message);
    await vi.waitFor(() => expect(fake.notifications).toHaveLength(1), { timeout: 10_000 });
    expect(fake.notifications[0]!.options.title).toBe('planner-bot waits for your approval');
    fake.notifications[0]!.click();
    expect(desktopEvents(window(fake))).toContainEqual({ kind: 'navigate', section: 'approvals', params: {} });
    await gateway.close();
    expect(await held).toMatch(/canceled/);
    fake.app.quit();
    await vi.waitFor(() => expect(fake.exitCode).toBe(0));
  });
});

afterAll(() => vi.restoreAllMocks());
