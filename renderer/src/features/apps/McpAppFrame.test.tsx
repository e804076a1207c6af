import { ModalsProvider } from '@mantine/modals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OpenedApp } from '../../../../shared/apps';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { outcomeOf, toolView } from '../invoke/testing/fixtures';
import { McpAppFrame } from './McpAppFrame';

const opened: OpenedApp = {
  appId: 'app-0123456789abcdef',
  src: 'http://127.0.0.1:9/app/app-0123456789abcdef',
  origin: 'http://127.0.0.1:9',
  sandbox: 'allow-scripts allow-forms',
  allow: '',
  csp: "default-src 'none'",
  meta: {},
  resourceUri: 'ui://clock/app.html',
  warnings: [],
};

/** delete_city on the app's server, under a rule that wants writes approved. */
const deleteCity = toolView(
  { name: 'mcp:clock.delete_city', source: { kind: 'mcp', name: 'clock' }, toolName: 'delete_city', policy: { riskLevel: 'low', operationClasses: ['write'] } },
  [{ name: 'writes-need-approval', toolRef: 'mcp:clock.*', operationRules: [{ operationClass: 'write', verdict: 'confirm' }] }],
);

/** What a hand-written hostile app chooses to send: a harmless-looking call with a payload nested inside. */
const chosenArguments = { city: 'Lisbon', cascade: { orders: true, backups: ['all', 'offsite'] } };

function backend() {
  return new FakeBackend()
    .answer('apps.open', () => opened)
    .answer('apps.close', () => undefined)
    .answer('tools.get', (input) => ((input as { name: string }).name === deleteCity.name ? deleteCity : null))
    .answer('apps.callTool', () => outcomeOf({ content: [{ type: 'text', text: 'deleted' }] }));
}

/**
 * A browser keeps one WindowProxy per iframe across its navigations (the bridge binds to it before
 * the app loads); jsdom makes a new window when `src` is set. Each iframe here keeps its first one.
 */
const contentWindow = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'contentWindow')!;
const firstWindows = new WeakMap<HTMLIFrameElement, Window>();
beforeAll(() => {
  Object.defineProperty(HTMLIFrameElement.prototype, 'contentWindow', {
    configurable: true,
    get(this: HTMLIFrameElement) {
      const current = contentWindow.get!.call(this) as Window | null;
      if (current && !firstWindows.has(this)) firstWindows.set(this, current);
      return firstWindows.get(this) ?? current;
    },
  });
});
afterAll(() => Object.defineProperty(HTMLIFrameElement.prototype, 'contentWindow', contentWindow));

interface JsonRpcMessage {
  id?: number;
  method?: string;
  result?: Record<string, unknown>;
  error?: unknown;
}

/**
 * The app's side of the bridge, hand-written: it posts JSON-RPC to the console page as the iframe's
 * window (the source the bridge checks) and reads what the bridge posts back into the iframe.
 */
async function connectApp() {
  const iframe = (await screen.findByTitle('App of get-time')) as HTMLIFrameElement;
  // The console sets the iframe's src once its bridge listens.
  await waitFor(() => expect(iframe).toHaveAttribute('src', opened.src));
  const appWindow = iframe.contentWindow!;
  const received: JsonRpcMessage[] = [];
  // What the bridge posts into the frame is what the app receives (jsdom does not deliver to a window its iframe navigated away from).
  appWindow.postMessage = ((message: JsonRpcMessage) => void received.push(message)) as typeof appWindow.postMessage;
  const post = (message: object) => {
    const event = new MessageEvent('message', { data: { jsonrpc: '2.0', ...message } });
    // jsdom's postMessage leaves `source` unset: set it as a browser would.
    Object.defineProperty(event, 'source', { value: appWindow });
    window.dispatchEvent(event);
  };
  const reply = (id: number) => waitFor(() => received.find((m) => m.id === id) ?? Promise.reject(new Error(`no reply to ${id} yet`)));
  post({ id: 1, method: 'ui/initialize', params: { appInfo: { name: 'hostile-app', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' } });
  expect((await reply(1)).result).toMatchObject({ hostInfo: { name: 'Tooldeck' } });
  post({ method: 'ui/notifications/initialized' });
  // The console answers the handshake's end by sending the tool's input.
  await waitFor(() => expect(received.map((m) => m.method)).toContain('ui/notifications/tool-input'));
  return { post, reply };
}

/** The frame inside the console's providers (the link confirmation uses Mantine's modals). */
const renderFrame = (fake: FakeBackend) =>
  renderWithBackend(
    <ModalsProvider>
      <McpAppFrame server="clock" tool={{ toolName: 'get-time', inputSchema: { type: 'object' } }} args={{}} />
    </ModalsProvider>,
    fake,
  );

describe('McpAppFrame: a call the app makes that policy wants approved', () => {
  it('shows the arguments the app chose, all of them, and sends exactly those once confirmed', async () => {
    const user = userEvent.setup();
    const fake = backend();
    renderFrame(fake);
    const app = await connectApp();

    app.post({ id: 2, method: 'tools/call', params: { name: 'delete_city', arguments: chosenArguments } });
    const dialog = await screen.findByRole('dialog', { name: 'Invoke delete_city?' });
    expect(within(dialog).getByText('Requested by the app of get-time (clock)')).toBeInTheDocument();
    expect(within(dialog).getByText(/writes-need-approval/)).toBeInTheDocument();
    const tree = within(dialog).getByRole('tree', { name: 'Arguments' });
    for (const row of [/"city":\s*"Lisbon"/, /"orders":\s*true/, /0:\s*"all"/, /1:\s*"offsite"/]) expect(within(tree).getByRole('treeitem', { name: row })).toBeInTheDocument();
    expect(fake.callsTo('apps.callTool')).toEqual([]);

    await user.click(within(dialog).getByRole('button', { name: 'Confirm and invoke' }));
    expect((await app.reply(2)).result).toMatchObject({ content: [{ type: 'text', text: 'deleted' }] });
    expect(fake.callsTo('apps.callTool')).toEqual([{ appId: opened.appId, name: 'delete_city', arguments: chosenArguments, confirmed: true }]);
  });

  it('sends nothing when the operator cancels, and tells the app it was declined', async () => {
    const user = userEvent.setup();
    const fake = backend();
    renderFrame(fake);
    const app = await connectApp();

    app.post({ id: 2, method: 'tools/call', params: { name: 'delete_city', arguments: chosenArguments } });
    const dialog = await screen.findByRole('dialog', { name: 'Invoke delete_city?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect((await app.reply(2)).result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The operator declined the call.' }] });
    expect(fake.callsTo('apps.callTool')).toEqual([]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});

describe('McpAppFrame: a link the app asks the host to open (ui/open-link)', () => {
  it('shows the exact address with its host on its own, and opens nothing unless confirmed', async () => {
    const user = userEvent.setup();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    renderFrame(backend());
    const app = await connectApp();
    const lookalike = 'https://accounts.example.com.evil.example/login?next=%2F&data=app-secret';

    app.post({ id: 3, method: 'ui/open-link', params: { url: lookalike } });
    const dialog = await screen.findByRole('dialog', { name: 'Open a link from the app?' });
    expect(within(dialog).getByText('accounts.example.com.evil.example')).toBeInTheDocument();
    expect(within(dialog).getByText(lookalike)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect((await app.reply(3)).result).toMatchObject({ isError: true });

    app.post({ id: 4, method: 'ui/open-link', params: { url: lookalike } });
    await user.click(within(await screen.findByRole('dialog', { name: 'Open a link from the app?' })).getByRole('button', { name: 'Open link' }));
    expect((await app.reply(4)).result).not.toHaveProperty('isError');
    expect(open.mock.calls).toEqual([[lookalike, '_blank', 'noopener,noreferrer']]);

    // Credentials in a link are refused outright, with no dialog.
    app.post({ id: 5, method: 'ui/open-link', params: { url: 'https://user:pass@example.org/' } });
    expect((await app.reply(5)).result).toMatchObject({ isError: true });
    expect(open).toHaveBeenCalledTimes(1);
    open.mockRestore();
  });
});
