import { Alert, Anchor, Badge, Box, Code, Group, List, Loader, Paper, Stack, Text, Tooltip, useComputedColorScheme } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconAlertTriangle, IconShieldLock } from '@tabler/icons-react';
import { AppBridge, PostMessageTransport, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { TRPCClient } from '@trpc/client';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { appsRouter } from '../../../../main/rpc/appsRouter';
import type { AppActivity, CspViolation, OpenedApp } from '../../../../shared/apps';
import type { ToolResult, ToolView } from '../../../../shared/registry';
import { useTRPCClient } from '../../rpc/client';
import { ConfirmInvokeDialog } from '../invoke/ConfirmInvokeDialog';
import { formatClock } from '../../components/format';

type AppsClient = TRPCClient<typeof appsRouter>;
type ToolsClient = { get: { query(input: { name: string }): Promise<ToolView | null> } };

const MIN_HEIGHT = 80;
const MAX_HEIGHT = 1600;

/** Something the app said or did, for the panel under it. */
interface AppNote {
  at: number;
  kind: 'message' | 'log' | 'context' | 'call' | 'link';
  text: string;
  level?: string;
}

/** A call the app asked for that policy wants approved: the operator sees the tool and the app's arguments. */
interface PendingApproval {
  view: ToolView;
  args: Record<string, unknown>;
  decide: (approved: boolean) => void;
}

function useClients() {
  const client = useTRPCClient() as unknown as { apps: AppsClient; tools: ToolsClient };
  return { apps: client.apps, tools: client.tools };
}

/** Resolves true when the operator confirms. */
function confirm(title: string, body: React.ReactNode, label: string): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title,
      children: body,
      labels: { confirm: label, cancel: 'Cancel' },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}

function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => ((b as { type?: string })?.type === 'text' ? String((b as { text?: unknown }).text) : `[${String((b as { type?: string })?.type ?? 'content')}]`)).join(' ');
}

export interface McpAppFrameProps {
  server: string;
  tool: Pick<ToolView, 'toolName' | 'title' | 'description' | 'inputSchema' | 'appResourceUri'>;
  /** The call's arguments (tool input) and result, delivered to the app once it is initialized. */
  args: Record<string, unknown>;
  result?: ToolResult;
}

/**
 * An MCP App (SEP-1865) after a call: the tool's ui:// resource in an iframe served from a
 * loopback origin of its own, confined by the CSP and permissions it declares, wired to the
 * console through the ext-apps host bridge (AppBridge over postMessage). The app's tools/call goes
 * through Tooldeck's pipeline and policy, links open only after a confirmation, and what it
 * says (messages, logs, model context) and what the browser blocked shows below it.
 */
export function McpAppFrame({ server, tool, args, result }: McpAppFrameProps) {
  const { apps, tools } = useClients();
  const scheme = useComputedColorScheme('light');
  const iframe = useRef<HTMLIFrameElement>(null);
  const bridgeRef = useRef<AppBridge>(undefined);
  const [opened, setOpened] = useState<OpenedApp>();
  const [error, setError] = useState<string>();
  const [src, setSrc] = useState<string>();
  const [height, setHeight] = useState(240);
  const [notes, setNotes] = useState<AppNote[]>([]);
  const [violations, setViolations] = useState<CspViolation[]>([]);
  const [approval, setApproval] = useState<PendingApproval>();
  const note = (n: Omit<AppNote, 'at'>) => setNotes((prev) => [...prev.slice(-199), { at: Date.now(), ...n }]);
  const latest = useRef({ args, result });
  latest.current = { args, result };

  useEffect(() => {
    let live = true;
    setOpened(undefined);
    setError(undefined);
    apps.open.mutate({ server, tool: tool.toolName, hostOrigin: window.location.origin }).then(
      (app) => live && setOpened(app as OpenedApp),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [apps, server, tool.toolName]);

  const hostContext = useMemo<McpUiHostContext>(
    () => ({
      theme: scheme,
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: 'Tooldeck',
      platform: 'tooldeckDesktop' in window ? 'desktop' : 'web',
      deviceCapabilities: { hover: true, touch: false },
      toolInfo: { tool: { name: tool.toolName, ...(tool.title ? { title: tool.title } : {}), ...(tool.description ? { description: tool.description } : {}), inputSchema: tool.inputSchema as never } },
    }),
    [scheme, tool.toolName, tool.title, tool.description, tool.inputSchema],
  );
  // The bridge starts with the context of the moment; later changes go through setHostContext
  // below, not a new bridge (which would reload the app).
  const initialHostContext = useRef(hostContext);
  initialHostContext.current = hostContext;

  // The bridge listens before the app loads, so its ui/initialize is never missed.
  useEffect(() => {
    const frame = iframe.current;
    if (!opened || !frame?.contentWindow) return;
    const appId = opened.appId;
    const bridge = new AppBridge(
      null,
      { name: 'Tooldeck', version: '1' },
      {
        openLinks: {},
        serverTools: {},
        serverResources: {},
        logging: {},
        message: { text: {} },
        updateModelContext: { text: {} },
        sandbox: { ...(opened.meta.permissions ? { permissions: opened.meta.permissions } : {}), ...(opened.meta.csp ? { csp: opened.meta.csp } : {}) },
      },
      { hostContext: initialHostContext.current },
    );
    bridgeRef.current = bridge;
    bridge.addEventListener('initialized', () => {
      void bridge.sendToolInput({ arguments: latest.current.args });
      if (latest.current.result) void bridge.sendToolResult(latest.current.result as CallToolResult);
    });
    bridge.addEventListener('sizechange', ({ height: h }) => {
      if (typeof h === 'number' && Number.isFinite(h)) setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h))));
    });
    bridge.addEventListener('loggingmessage', (params) => note({ kind: 'log', level: params.level, text: typeof params.data === 'string' ? params.data : JSON.stringify(params.data) }));
    // One approval at a time: a call the app makes while another waits for the operator is refused.
    let approvalPending: PendingApproval | undefined;
    const askApproval = (view: ToolView, args: Record<string, unknown>) =>
      new Promise<boolean>((resolve) => {
        approvalPending = {
          view,
          args,
          decide: (approved) => {
            approvalPending = undefined;
            setApproval(undefined);
            resolve(approved);
          },
        };
        setApproval(approvalPending);
      });
    bridge.oncalltool = async (params) => {
      const name = params.name;
      // Exactly these arguments are shown for approval and sent.
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      const view = await tools.get.query({ name: `mcp:${server}.${name}` });
      let confirmed = false;
      if (view?.verdict.verdict === 'confirm') {
        if (approvalPending) return { isError: true, content: [{ type: 'text', text: 'Another call from this app is waiting for the operator.' }] };
        confirmed = await askApproval(view, args);
        if (!confirmed) {
          note({ kind: 'call', text: `${name}: declined by the operator` });
          return { isError: true, content: [{ type: 'text', text: 'The operator declined the call.' }] };
        }
      }
      const outcome = await apps.callTool.mutate({ appId, name, arguments: args, ...(confirmed ? { confirmed: true } : {}) });
      note({ kind: 'call', text: `${name}: ${outcome.error ? `${outcome.error.code} ${outcome.error.message}` : outcome.result?.isError ? 'tool error' : 'ok'} (recorded ${outcome.record.id})` });
      if (outcome.error) return { isError: true, content: [{ type: 'text', text: `${outcome.error.code}: ${outcome.error.message}` }] };
      return outcome.result as CallToolResult;
    };
    bridge.onreadresource = async (params) => (await apps.readResource.mutate({ appId, uri: params.uri })) as never;
    bridge.onopenlink = async ({ url }) => {
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        parsed = undefined;
      }
      if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
        note({ kind: 'link', text: `refused to open ${url} (only http and https links open)` });
        return { isError: true };
      }
      if (parsed.username || parsed.password) {
        note({ kind: 'link', text: `refused to open ${parsed.host} (links with credentials in them are not opened)` });
        return { isError: true };
      }
      // The exact address, with its host on its own so a look-alike is noticed.
      const ok = await confirm(
        'Open a link from the app?',
        <Stack gap={6}>
          <Text size="sm">
            The app asks to open a page on <Text span fw={700}>{parsed.host}</Text> in a new tab:
          </Text>
          <Code block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {parsed.href}
          </Code>
        </Stack>,
        'Open link',
      );
      note({ kind: 'link', text: `${ok ? 'opened' : 'did not open'} ${parsed.href}` });
      if (ok) window.open(parsed.href, '_blank', 'noopener,noreferrer');
      return ok ? {} : { isError: true };
    };
    bridge.onmessage = async ({ content }) => {
      note({ kind: 'message', text: textOf(content) });
      return {};
    };
    bridge.onupdatemodelcontext = async (params) => {
      note({ kind: 'context', text: textOf((params as { content?: unknown }).content ?? []) || JSON.stringify((params as { structuredContent?: unknown }).structuredContent ?? {}) });
      return {};
    };
    bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
    let closed = false;
    void bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow)).then(() => !closed && setSrc(opened.src));
    const activity = apps.watch.subscribe({ appId }, { onData: (a) => setViolations((a as AppActivity).violations) });
    return () => {
      closed = true;
      approvalPending?.decide(false);
      activity.unsubscribe();
      bridgeRef.current = undefined;
      void bridge
        .teardownResource({})
        .catch(() => undefined)
        .finally(() => void bridge.close());
      void apps.close.mutate({ appId }).catch(() => undefined);
    };
  }, [opened, apps, tools, server]);

  useEffect(() => {
    bridgeRef.current?.setHostContext(hostContext);
  }, [hostContext]);

  if (error) {
    return (
      <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} title="The app could not be opened" role="alert">
        {error}
      </Alert>
    );
  }
  if (!opened) return <Loader size="sm" aria-label="Loading the app" />;
  const border = opened.meta.prefersBorder !== false;
  return (
    <Stack gap={6} component="section" aria-label="MCP App">
      <Group gap="xs" justify="space-between">
        <Group gap={6}>
          <Text size="sm" fw={600}>
            App
          </Text>
          <Code>{opened.resourceUri}</Code>
        </Group>
        <Tooltip multiline w={420} label={<Text size="xs" ff="monospace" style={{ wordBreak: 'break-word' }}>{opened.csp}</Text>}>
          <Badge variant="light" color="gray" leftSection={<IconShieldLock size={12} />} style={{ textTransform: 'none' }}>
            {opened.origin} · {opened.meta.domain ? 'own origin, sandboxed' : 'sandboxed'}
          </Badge>
        </Tooltip>
      </Group>
      {opened.warnings.length > 0 && (
        <Alert color="yellow" variant="light" title="Parts of the app's declaration were refused">
          <List size="xs">
            {opened.warnings.map((w) => (
              <List.Item key={w}>{w}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      <Paper withBorder={border} radius="md" style={{ overflow: 'hidden' }}>
        <iframe
          ref={iframe}
          src={src}
          title={`App of ${tool.toolName}`}
          sandbox={opened.sandbox}
          allow={opened.allow}
          referrerPolicy="no-referrer"
          style={{ display: 'block', width: '100%', height, border: 0, colorScheme: 'normal' }}
        />
      </Paper>
      {violations.length > 0 && (
        <Alert color="orange" variant="light" icon={<IconShieldLock size={16} />} title="Blocked by the app's content security policy" role="alert">
          <List size="xs" aria-label="Blocked requests">
            {violations.slice(-10).map((v, i) => (
              <List.Item key={`${v.at}-${i}`}>
                <Code>{v.directive}</Code> {v.blockedUri || '(inline)'} <Text span size="xs" c="dimmed">{formatClock(v.at)}</Text>
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {notes.length > 0 && (
        <Box>
          <Text size="xs" tt="uppercase" fw={700} c="dimmed" mb={4}>
            From the app
          </Text>
          <List size="xs" spacing={2} aria-label="App activity">
            {notes.slice(-30).map((n, i) => (
              <List.Item key={`${n.at}-${i}`}>
                <Text span size="xs" c="dimmed" ff="monospace">
                  {formatClock(n.at)}
                </Text>{' '}
                <Badge size="xs" variant="light" color={n.kind === 'log' && (n.level === 'error' || n.level === 'critical') ? 'red' : 'gray'}>
                  {n.kind === 'log' ? `log ${n.level ?? ''}`.trim() : n.kind}
                </Badge>{' '}
                {n.text}
              </List.Item>
            ))}
          </List>
        </Box>
      )}
      {approval && (
        <ConfirmInvokeDialog
          opened
          tool={approval.view}
          arguments={approval.args}
          requestedBy={`the app of ${tool.toolName} (${server})`}
          onConfirm={() => approval.decide(true)}
          onClose={() => approval.decide(false)}
        />
      )}
      <Text size="xs" c="dimmed">
        The app runs on <Anchor size="xs" component="span">{opened.origin}</Anchor>, not the console’s origin: it reaches Tooldeck only through the bridge, and its tool calls go through policy and history.
      </Text>
    </Stack>
  );
}
