// npm run bench -- ui
// The console in Debian Chromium (playwright-core, /usr/bin/chromium) against a 1,000-tool MCP
// server written for the tests: the JavaScript loaded before the Servers view is interactive,
// click → "Connected" for that server (median of 5), every main-thread task over 50 ms while it
// connects and its tools render (a PerformanceObserver of long tasks), and the rows the server's
// Tools tab keeps in the DOM. With BENCH_INSPECTOR=1 (the default) the same click → "Connected" is
// measured in the MCP Inspector's web UI for the same server. The last line is JSON.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page, type Response } from 'playwright-core';
import { createCore } from '../../main/core';
import { silentLogger } from '../../main/platform/Logger';
import { MemorySecretStore } from '../../main/platform/SecretStore';
import { freePort } from '../peers/mcp/everything';
import { startTooldeckServer } from '../support/tooldeckServer';
import { round, summarize } from './benchStats';

const root = resolve(import.meta.dirname, '../..');
const TOOLS = 1_000;
const CYCLES = Number(process.env.BENCH_CYCLES ?? 5);
const serverScript = join(root, 'e2e/peers/mcp/thousandToolServerForTests.mjs');
const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

interface LongTask {
  start: number;
  duration: number;
}

// In-page helpers as plain script text: functions handed to page.evaluate would carry the
// bundler's `__name` helper, which the page does not have.
const PAGE_HELPERS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  /** Clicks the element matched by \`button\` (or whose text is \`buttonText\`), resolves with the ms until \`isDone()\` holds, timed in the page. */
  window.__timedClick = (button, buttonText, isDone) => new Promise((resolve, reject) => {
    const target = button ? document.querySelector(button) : [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === buttonText);
    if (!target) return reject(new Error('no button ' + (button || buttonText)));
    const clickedAt = performance.now();
    const observer = new MutationObserver(() => {
      if (isDone()) { observer.disconnect(); resolve({ ms: performance.now() - clickedAt, clickedAt }); }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    target.click();
    setTimeout(() => reject(new Error('not done in 60 s')), 60000);
  });
`;

const longTasksSince = (page: Page, since: number) => page.evaluate(`window.__longTasks.filter((task) => task.start >= ${since})`) as Promise<LongTask[]>;

async function tooldeck(page: Page) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tooldeck-bench-ui-'));
  // An empty workspace: no example server connecting in the background while we measure.
  mkdirSync(join(dataDir, 'workspace'), { recursive: true });
  const core = await createCore({ appVersion: 'bench', host: 'cli', dataDir, secretStore: new MemorySecretStore(), logger: silentLogger, exampleWorkspace: false });
  await core.mcp.save({ config: { name: 'thousand', transport: 'stdio', command: process.execPath, args: [serverScript, String(TOOLS)], enabled: false } as never });
  await core.close();
  const server = await startTooldeckServer({ dataDir });
  try {
    const scripts = new Map<string, number>();
    // Each body arrives asynchronously, after its 'response' event: the handlers' promises are kept
    // and awaited before summing, or scripts still being read when the view became interactive
    // (often the largest) would be left out of the figure.
    const bodies: Promise<void>[] = [];
    const unread: string[] = [];
    const onResponse = (response: Response) => {
      if (!/\.m?js(\?|$)/.test(new URL(response.url()).pathname)) return;
      bodies.push(
        response.body().then(
          (body) => void scripts.set(response.url(), body.length),
          () => void unread.push(response.url()),
        ),
      );
    };
    page.on('response', onResponse);
    await page.goto(`${server.origin}/servers?server=thousand#token=${server.token}`);
    await page.getByRole('listitem', { name: 'thousand' }).waitFor();
    await page.getByRole('button', { name: 'Connect' }).waitFor();
    // What loaded up to here is the figure; later chunks (the Tools tab's, on connect) are not.
    page.off('response', onResponse);
    await Promise.all(bodies);
    if (unread.length) {
      // A body Playwright could not hand over is counted from the page's resource timing (its
      // decoded size, as body() gives), never left out: an undercount would flatter the figure.
      const decoded = (await page.evaluate(`Object.fromEntries(performance.getEntriesByType('resource').map((entry) => [entry.name, entry.decodedBodySize]))`)) as Record<string, number>;
      for (const url of unread) {
        if (!decoded[url]) throw new Error(`cannot measure ${url}: neither its body nor its resource timing is available`);
        scripts.set(url, decoded[url]);
      }
    }
    const serversJsBytes = [...scripts.values()].reduce((a, b) => a + b, 0);
    const serversJsFiles = scripts.size;
    const monacoBeforeEditor = [...scripts.keys()].some((url) => /editor\.api|setupMonaco|\.worker/.test(url));
    if (process.env.BENCH_LIST_JS) for (const [url, bytes] of [...scripts].sort((a, b) => b[1] - a[1])) console.log(`  ${(bytes / 1024).toFixed(0).padStart(6)} KB  ${new URL(url).pathname}`);

    const connects: number[] = [];
    const tasks: LongTask[] = [];
    for (let i = 0; i < CYCLES; i++) {
      // By its words: the plug icon it shows is also the Gateway's in the navigation.
      const { ms, clickedAt } = (await page.evaluate(`window.__timedClick('', 'Connect', () => !!document.querySelector('[aria-label="Status: Connected"]'))`)) as { ms: number; clickedAt: number };
      connects.push(ms);
      // Let the tools render and the catalogue settle before reading the long tasks of this connect.
      await page.getByRole('row', { name: /^github_create_issue/ }).first().waitFor();
      await page.waitForTimeout(1_000);
      tasks.push(...(await longTasksSince(page, clickedAt)));
      await page.getByRole('button', { name: 'Disconnect' }).click();
      await page.locator('[aria-label="Status: Disconnected"]').first().waitFor();
    }
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('[aria-label="Status: Connected"]').first().waitFor();
    await page.getByRole('row', { name: /^github_create_issue/ }).first().waitFor();
    const rowsInDom = await page.getByRole('table', { name: 'Tools of thousand' }).getByRole('row').count();
    const search = page.getByRole('textbox', { name: 'Search tools of thousand' });
    let matches: number | undefined;
    if (await search.count()) {
      await search.fill('stripe_reopen_deployment');
      await page.getByRole('row', { name: /^stripe_reopen_deployment/ }).waitFor();
      matches = await page.getByRole('table', { name: 'Tools of thousand' }).getByRole('row').count();
    }
    return { serversJsBytes, serversJsFiles, monacoBeforeEditor, connects, tasks, rowsInDom, searchRows: matches };
  } finally {
    await server.stop();
  }
}

/** The MCP Inspector's web UI (its own proxy) against the same server: click Connect → "Connected". */
async function inspector(page: Page): Promise<number[]> {
  const uiPort = await freePort();
  const proxyPort = await freePort();
  const child: ChildProcess = spawn(join(root, 'node_modules/.bin/mcp-inspector'), [], {
    env: { ...process.env, CLIENT_PORT: String(uiPort), SERVER_PORT: String(proxyPort), DANGEROUSLY_OMIT_AUTH: 'true', MCP_AUTO_OPEN_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the Inspector starts a proxy and a web server of its own, and all of
    // them must end with the bench (a survivor holding our pipes would keep this process alive).
    detached: true,
  });
  try {
    await new Promise<void>((ready, fail) => {
      let out = '';
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (/MCP Inspector is up and running/.test(out)) ready();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => fail(new Error(`the Inspector exited (${code}): ${out}`)));
      setTimeout(() => fail(new Error(`the Inspector did not start: ${out}`)), 60_000).unref();
    });
    const query = new URLSearchParams({ transport: 'stdio', serverCommand: process.execPath, serverArgs: `${serverScript} ${TOOLS}`, MCP_PROXY_PORT: String(proxyPort) });
    await page.goto(`http://localhost:${uiPort}/?${query}`);
    const connects: number[] = [];
    for (let i = 0; i < CYCLES; i++) {
      await page.getByRole('button', { name: 'Connect', exact: true }).waitFor();
      const { ms } = (await page.evaluate(
        `window.__timedClick('', 'Connect', () => [...document.querySelectorAll('span, div, p')].some((el) => el.childElementCount === 0 && el.textContent.trim() === 'Connected'))`,
      )) as { ms: number };
      connects.push(ms);
      await page.getByRole('button', { name: 'Disconnect' }).click();
    }
    return connects;
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.addInitScript({ content: PAGE_HELPERS });
  const ours = await tooldeck(page);
  let theirs: number[] | undefined;
  if (process.env.BENCH_INSPECTOR !== '0') {
    const inspectorPage = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await inspectorPage.addInitScript({ content: PAGE_HELPERS });
    theirs = await inspector(inspectorPage).catch((error: Error) => {
      console.log(`Inspector comparison skipped: ${error.message.split('\n')[0]}`);
      return undefined;
    });
  }
  const connect = summarize(ours.connects).median;
  const longest = Math.max(0, ...ours.tasks.map((t) => t.duration));
  const over100 = ours.tasks.filter((t) => t.duration > 100);
  console.log(`JavaScript before the Servers view is interactive: ${(ours.serversJsBytes / 1024 / 1024).toFixed(2)} MB in ${ours.serversJsFiles} files (target ≤ 1.5 MB)`);
  console.log(`Monaco and its workers with the Servers view: ${ours.monacoBeforeEditor ? 'loaded (they should wait for an editor)' : 'not loaded (they load with the first editor)'}`);
  console.log(`click → Connected, ${TOOLS}-tool server: median ${connect.toFixed(0)} ms of ${CYCLES} (${ours.connects.map((ms) => ms.toFixed(0)).join(', ')})`);
  if (theirs) console.log(`MCP Inspector click → Connected, same server: median ${summarize(theirs).median.toFixed(0)} ms (${theirs.map((ms) => ms.toFixed(0)).join(', ')})`);
  console.log(`main-thread tasks over 50 ms while connecting and rendering: ${ours.tasks.length}, longest ${longest.toFixed(0)} ms, over 100 ms: ${over100.length} (target 0)`);
  for (const task of ours.tasks) console.log(`  long task ${task.duration.toFixed(0)} ms`);
  console.log(`server Tools tab: ${ours.rowsInDom} rows in the DOM for ${TOOLS} tools; ${ours.searchRows === undefined ? 'no search box' : `search narrows to ${ours.searchRows}`}`);
  console.log(
    JSON.stringify({
      bench: 'ui',
      servers_js_mb: round(ours.serversJsBytes / 1024 / 1024, 2),
      connect_ms: round(connect, 0),
      inspector_connect_ms: theirs ? round(summarize(theirs).median, 0) : null,
      longest_task_ms: round(longest, 0),
      long_tasks_over_100ms: over100.length,
      tools_tab_rows_in_dom: ours.rowsInDom,
      monaco_before_editor: ours.monacoBeforeEditor,
    }),
  );
} finally {
  await browser.close();
}
