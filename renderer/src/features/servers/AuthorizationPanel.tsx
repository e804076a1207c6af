import { Alert, Anchor, Badge, Box, Button, Group, List, Loader, Paper, PasswordInput, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconCircleX, IconLock, IconLockOpen } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import type { TRPCClient } from '@trpc/client';
import { useEffect, useId, useState } from 'react';
import type { oauthRouter } from '../../../../main/rpc/oauthRouter';
import type { OAuthGrant, OAuthLoginResult, OAuthStatus, OAuthStep } from '../../../../shared/oauth';
import { JsonTree } from '../../components/JsonTree';
import { useTRPCClient } from '../../rpc/client';

type OAuthClient = TRPCClient<typeof oauthRouter>;

/** The `oauth` procedures, typed by their own router so the panel only relies on the `oauth` mount key. */
function useOAuthClient(): OAuthClient {
  return (useTRPCClient() as unknown as { oauth: OAuthClient }).oauth;
}

/** The server's authorization status, pushed again after every step. */
function useAuthorizationStatus(server: string): { status?: OAuthStatus; error?: string } {
  const oauth = useOAuthClient();
  const [status, setStatus] = useState<OAuthStatus>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setStatus(undefined);
    const subscription = oauth.watch.subscribe({ server }, { onData: (next) => setStatus(next as OAuthStatus), onError: (e) => setError(e.message) });
    return () => subscription.unsubscribe();
  }, [oauth, server]);
  return { status, error };
}

const STATE_LABEL: Record<OAuthStatus['state'], { label: string; color: string }> = {
  'signed-in': { label: 'Signed in', color: 'teal' },
  'signed-out': { label: 'Signed out', color: 'gray' },
  working: { label: 'Signing in…', color: 'blue' },
  'awaiting-browser': { label: 'Waiting for the browser', color: 'blue' },
  failed: { label: 'Sign-in failed', color: 'red' },
};

function clock(at: number): string {
  return `${new Date(at).toLocaleTimeString(undefined, { hour12: false })}.${String(at % 1000).padStart(3, '0')}`;
}

function StepIcon({ step }: { step: OAuthStep }) {
  if (step.status === 'ok') return <IconCircleCheck size={18} color="var(--mantine-color-teal-6)" aria-label="done" />;
  if (step.status === 'failed') return <IconCircleX size={18} color="var(--mantine-color-red-6)" aria-label="failed" />;
  return <Loader size={14} aria-label="in progress" />;
}

function StepRow({ step }: { step: OAuthStep }) {
  const [showDocument, setShowDocument] = useState(false);
  return (
    <List.Item icon={<StepIcon step={step} />} aria-label={`${step.title}: ${step.status === 'ok' ? 'done' : step.status === 'failed' ? 'failed' : 'in progress'}`}>
      <Group gap="xs" wrap="nowrap">
        <Text size="sm" fw={600} c={step.status === 'failed' ? 'red' : undefined}>
          {step.title}
        </Text>
        <Text size="xs" c="dimmed" ff="monospace">
          {clock(step.startedAt)}
          {step.endedAt !== undefined && step.endedAt - step.startedAt > 0 ? ` · ${step.endedAt - step.startedAt} ms` : ''}
        </Text>
        {step.httpStatus !== undefined && (
          <Badge size="xs" variant="light" color={step.httpStatus < 400 ? 'gray' : 'red'}>
            HTTP {step.httpStatus}
          </Badge>
        )}
      </Group>
      {step.url && (
        <Text size="xs" ff="monospace" c="dimmed" style={{ wordBreak: 'break-all' }}>
          {step.method ? `${step.method} ` : ''}
          {step.url}
        </Text>
      )}
      {step.detail && <Text size="xs">{step.detail}</Text>}
      {step.status === 'failed' && step.error && (
        <Text size="sm" c="red" role="status">
          {step.title} failed: {step.error}
        </Text>
      )}
      {step.document !== undefined && (
        <Box>
          <Anchor component="button" type="button" size="xs" onClick={() => setShowDocument((v) => !v)} aria-expanded={showDocument}>
            {showDocument ? 'Hide document' : 'Show document'}
          </Anchor>
          {showDocument && <JsonTree value={step.document} label={`${step.title} document`} expandDepth={2} />}
        </Box>
      )}
    </List.Item>
  );
}

function ClientSettingsForm({ server, status }: { server: string; status: OAuthStatus }) {
  const oauth = useOAuthClient();
  const { settings } = status;
  const [grant, setGrant] = useState<OAuthGrant>(settings.grant);
  const [clientId, setClientId] = useState(settings.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [scopes, setScopes] = useState(settings.scopes ?? '');
  const save = useMutation({
    mutationFn: () => oauth.setClient.mutate({ server, grant, clientId, clientSecret: clientSecret === '' ? undefined : clientSecret, scopes, clientMetadataUrl: settings.clientMetadataUrl }),
    onSuccess: () => setClientSecret(''),
  });
  return (
    <Stack gap="xs" component="form" onSubmit={(e) => (e.preventDefault(), save.mutate())} aria-label="Client settings">
      <Text size="sm" fw={600}>
        Client
      </Text>
      <Text size="xs" c="dimmed">
        Leave the client ID empty to let Tooldeck use a client metadata document or register itself. A secret is kept in the secret store, never in the server list.
      </Text>
      <SegmentedControl
        size="xs"
        value={grant}
        onChange={(v) => setGrant(v as OAuthGrant)}
        data={[
          { value: 'authorization_code', label: 'Browser sign-in' },
          { value: 'client_credentials', label: 'Client credentials (machine to machine)' },
        ]}
        aria-label="Grant"
      />
      <Group grow align="flex-start">
        <TextInput size="xs" label="Client ID" value={clientId} onChange={(e) => setClientId(e.currentTarget.value)} placeholder="pre-registered client id (optional)" />
        <PasswordInput
          size="xs"
          label="Client secret"
          value={clientSecret}
          onChange={(e) => setClientSecret(e.currentTarget.value)}
          placeholder={settings.hasClientSecret ? 'stored — type to replace' : 'none (public client)'}
        />
      </Group>
      <TextInput size="xs" label="Scopes" value={scopes} onChange={(e) => setScopes(e.currentTarget.value)} placeholder="used when the server names none, space-separated" />
      {save.error && (
        <Text size="xs" c="red" role="alert">
          {save.error.message}
        </Text>
      )}
      <Group>
        <Button size="xs" variant="default" type="submit" loading={save.isPending}>
          Save client settings
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * MCP authorization of one HTTP server: each step of the flow as it happens (discovery documents,
 * registration, the authorization URL, the callback, token exchange and refresh), Sign in / Sign
 * out, and the client settings (pre-registered id and secret, scopes, grant).
 */
export function AuthorizationPanel({ server }: { server: string }) {
  const oauth = useOAuthClient();
  const headingId = useId();
  const { status, error } = useAuthorizationStatus(server);
  const [callbackUrl, setCallbackUrl] = useState('');
  const login = useMutation({
    mutationFn: (): Promise<OAuthLoginResult> => oauth.login.mutate({ server }),
    onSuccess: (result) => {
      if (result.status === 'redirect') window.open(result.authorizationUrl, '_blank', 'noopener,noreferrer');
    },
  });
  const logout = useMutation({ mutationFn: () => oauth.logout.mutate({ server }) });
  const complete = useMutation({ mutationFn: () => oauth.completeLogin.mutate({ server, callbackUrl }), onSuccess: () => setCallbackUrl('') });

  const state = status ? STATE_LABEL[status.state] : undefined;
  const signedIn = status?.state === 'signed-in';
  const busy = status?.state === 'working' || status?.state === 'awaiting-browser';

  return (
    <Paper withBorder p="md" component="section" role="region" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start">
          <div>
            <Group gap="xs">
              {signedIn ? <IconLock size={18} aria-hidden /> : <IconLockOpen size={18} aria-hidden />}
              <Title order={4} id={headingId}>
                Authorization
              </Title>
              {state && (
                <Badge color={state.color} variant="light">
                  {state.label}
                </Badge>
              )}
            </Group>
            {status?.issuer && (
              <Text size="xs" c="dimmed">
                {status.issuer}
                {status.scope ? ` · scope "${status.scope}"` : ''}
                {status.expiresAt ? ` · token expires ${new Date(status.expiresAt).toLocaleString()}` : ''}
                {status.hasRefreshToken ? ' · refresh token kept' : ''}
              </Text>
            )}
          </div>
          <Group gap="xs">
            {signedIn ? (
              <Button size="xs" variant="default" onClick={() => logout.mutate()} loading={logout.isPending}>
                Sign out
              </Button>
            ) : (
              <Button size="xs" onClick={() => login.mutate()} loading={login.isPending} disabled={!status}>
                Sign in
              </Button>
            )}
          </Group>
        </Group>

        {(error || login.error || logout.error) && (
          <Alert color="red" icon={<IconAlertTriangle size={16} />} role="alert" title="Authorization request failed">
            {error ?? login.error?.message ?? logout.error?.message}
          </Alert>
        )}
        {status?.failure && !busy && (
          <Alert color="red" icon={<IconCircleX size={16} />} role="alert" title={`Failed at: ${status.steps.find((s) => s.kind === status.failure!.step)?.title ?? status.failure.step}`}>
            {status.failure.message}
          </Alert>
        )}
        {status?.state === 'awaiting-browser' && status.authorizationUrl && (
          <Alert color="blue" title="Finish signing in in your browser">
            <Stack gap={6}>
              <Anchor href={status.authorizationUrl} target="_blank" rel="noopener noreferrer" size="sm">
                Open the sign-in page
              </Anchor>
              <Text size="xs">If the browser cannot reach Tooldeck, paste the address it ended on:</Text>
              <Group gap="xs" align="flex-end">
                <TextInput size="xs" style={{ flex: 1 }} label="Redirect URL" value={callbackUrl} onChange={(e) => setCallbackUrl(e.currentTarget.value)} placeholder="http://127.0.0.1:…/oauth/callback?code=…" />
                <Button size="xs" variant="default" onClick={() => complete.mutate()} disabled={!callbackUrl} loading={complete.isPending}>
                  Complete sign-in
                </Button>
              </Group>
            </Stack>
          </Alert>
        )}

        {!status ? (
          <Loader size="sm" aria-label="Loading authorization status" />
        ) : status.steps.length === 0 ? (
          <Text size="sm" c="dimmed">
            No authorization activity yet. A server that asks for OAuth authorization answers the first request with HTTP 401; Sign in starts the flow.
          </Text>
        ) : (
          <List spacing="xs" size="sm" aria-label="Authorization steps" center={false}>
            {status.steps.map((step) => (
              <StepRow key={step.seq} step={step} />
            ))}
          </List>
        )}

        {status && <ClientSettingsForm key={`${server}:${JSON.stringify(status.settings)}`} server={server} status={status} />}
      </Stack>
    </Paper>
  );
}
