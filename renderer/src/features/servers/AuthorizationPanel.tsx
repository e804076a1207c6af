import { Alert, Anchor, Badge, Box, Button, Group, List, Loader, Paper, PasswordInput, SegmentedControl, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconCircleX, IconLock, IconLockOpen } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import type { TRPCClient } from '@trpc/client';
import { useEffect, useId, useState } from 'react';
import type { oauthRouter } from '../../../../main/rpc/oauthRouter';
import { JwsAlgorithm, OAUTH_GRANT_LABELS, OAuthGrant, type DpopMode, type OAuthClientAuth, type OAuthLoginResult, type OAuthStatus, type OAuthStep } from '../../../../shared/oauth';
import { JsonTree } from '../../components/JsonTree';
import { useTRPCClient } from '../../rpc/client';
import { formatClock } from '../../components/format';

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
          {formatClock(step.startedAt)}
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

type SecretField = 'clientSecret' | 'privateKey' | 'assertion' | 'idpClientSecret' | 'idToken';

/** A secret input: empty keeps what the secret store holds, typed text replaces it, Remove deletes it on save. */
function SecretInput({ label, stored, value, onChange, multiline, placeholder, removed, onRemove }: {
  label: string;
  stored: boolean | undefined;
  value: string;
  onChange: (v: string) => void;
  multiline?: boolean;
  placeholder: string;
  removed: boolean;
  onRemove: () => void;
}) {
  const hint = removed ? 'will be removed on save' : stored ? 'stored — type to replace' : placeholder;
  return (
    <Stack gap={2}>
      {multiline ? (
        <Textarea size="xs" label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)} placeholder={hint} autosize minRows={2} maxRows={6} styles={{ input: { fontFamily: 'monospace' } }} spellCheck={false} />
      ) : (
        <PasswordInput size="xs" label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)} placeholder={hint} />
      )}
      {stored && !removed && !value && (
        <Anchor component="button" type="button" size="xs" c="red" onClick={onRemove} style={{ alignSelf: 'flex-start' }}>
          Remove stored {label.toLowerCase()}
        </Anchor>
      )}
    </Stack>
  );
}

function ClientSettingsForm({ server, status }: { server: string; status: OAuthStatus }) {
  const oauth = useOAuthClient();
  const { settings } = status;
  const [grant, setGrant] = useState<OAuthGrant>(settings.grant);
  const [clientId, setClientId] = useState(settings.clientId ?? '');
  const [scopes, setScopes] = useState(settings.scopes ?? '');
  const [clientAuth, setClientAuth] = useState<OAuthClientAuth | ''>(settings.clientAuth ?? '');
  const [signingAlg, setSigningAlg] = useState<JwsAlgorithm | ''>(settings.signingAlg ?? '');
  const [dpop, setDpop] = useState<DpopMode>(settings.dpop ?? 'auto');
  const [assertionFile, setAssertionFile] = useState(settings.assertionFile ?? '');
  const [idpIssuer, setIdpIssuer] = useState(settings.idp?.issuer ?? '');
  const [idpTokenEndpoint, setIdpTokenEndpoint] = useState(settings.idp?.tokenEndpoint ?? '');
  const [idpClientId, setIdpClientId] = useState(settings.idp?.clientId ?? '');
  const [idTokenFile, setIdTokenFile] = useState(settings.idp?.idTokenFile ?? '');
  const [secrets, setSecrets] = useState<Partial<Record<SecretField, string>>>({});
  const [removed, setRemoved] = useState<Set<SecretField>>(new Set());
  const secret = (field: SecretField) => ({
    value: secrets[field] ?? '',
    onChange: (v: string) => setSecrets((prev) => ({ ...prev, [field]: v })),
    removed: removed.has(field),
    onRemove: () => setRemoved((prev) => new Set(prev).add(field)),
  });
  /** undefined keeps the stored secret, '' deletes it. */
  const secretValue = (field: SecretField) => (removed.has(field) ? '' : secrets[field] ? secrets[field] : undefined);
  const save = useMutation({
    mutationFn: () =>
      oauth.setClient.mutate({
        server,
        grant,
        clientId,
        clientSecret: secretValue('clientSecret'),
        scopes,
        clientMetadataUrl: settings.clientMetadataUrl,
        ...(clientAuth ? { clientAuth } : {}),
        ...(secretValue('privateKey') !== undefined ? { privateKey: secretValue('privateKey') } : {}),
        ...(signingAlg ? { signingAlg } : {}),
        ...(dpop !== 'auto' ? { dpop } : {}),
        ...(grant === 'jwt_bearer' ? { assertionFile, assertion: secretValue('assertion') } : {}),
        ...(grant === 'enterprise_managed' ? { idpIssuer, idpTokenEndpoint, idpClientId, idpClientSecret: secretValue('idpClientSecret'), idTokenFile, idToken: secretValue('idToken') } : {}),
      }),
    onSuccess: () => {
      setSecrets({});
      setRemoved(new Set());
    },
  });
  const machine = grant !== 'authorization_code';
  return (
    <Stack gap="xs" component="form" onSubmit={(e) => (e.preventDefault(), save.mutate())} aria-label="Client settings">
      <Text size="sm" fw={600}>
        Client
      </Text>
      <Text size="xs" c="dimmed">
        {machine
          ? 'Tokens are obtained without a browser, with a client registered with the authorization server beforehand.'
          : 'Leave the client ID empty to let Tooldeck use a client metadata document or register itself.'}{' '}
        Secrets and keys are kept in the secret store, never in the server list.
      </Text>
      <Select
        size="xs"
        label="Grant"
        value={grant}
        onChange={(v) => v && setGrant(v as OAuthGrant)}
        data={OAuthGrant.options.map((value) => ({ value, label: OAUTH_GRANT_LABELS[value] }))}
        allowDeselect={false}
      />
      <Group grow align="flex-start">
        <TextInput size="xs" label="Client ID" value={clientId} onChange={(e) => setClientId(e.currentTarget.value)} placeholder={machine ? 'pre-registered client id' : 'pre-registered client id (optional)'} />
        <SecretInput label="Client secret" stored={settings.hasClientSecret} placeholder="none (public client)" {...secret('clientSecret')} />
      </Group>
      <Group grow align="flex-start">
        <Select
          size="xs"
          label="Client authentication"
          value={clientAuth}
          onChange={(v) => setClientAuth((v ?? '') as OAuthClientAuth | '')}
          data={[{ value: '', label: "From the server's metadata" }, ...CLIENT_AUTH_OPTIONS]}
          allowDeselect={false}
        />
        <Select
          size="xs"
          label="Signing algorithm"
          value={signingAlg}
          onChange={(v) => setSigningAlg((v ?? '') as JwsAlgorithm | '')}
          data={[{ value: '', label: 'From the key' }, ...JwsAlgorithm.options.map((value) => ({ value, label: value }))]}
          allowDeselect={false}
          disabled={clientAuth !== 'private_key_jwt' && !settings.hasPrivateKey && !secrets.privateKey}
        />
      </Group>
      <SecretInput label="Private key" multiline stored={settings.hasPrivateKey} placeholder="for private_key_jwt: PKCS #8 PEM (-----BEGIN PRIVATE KEY-----) or a private JWK" {...secret('privateKey')} />
      {grant === 'jwt_bearer' && (
        <Group grow align="flex-start">
          <TextInput size="xs" label="Workload token file" value={assertionFile} onChange={(e) => setAssertionFile(e.currentTarget.value)} placeholder="/var/run/secrets/tokens/mcp (read at each token request)" />
          <SecretInput label="Workload token" stored={settings.hasAssertion} placeholder="or paste a token to store" {...secret('assertion')} />
        </Group>
      )}
      {grant === 'enterprise_managed' && (
        <Stack gap="xs" component="fieldset" style={{ border: 'none', padding: 0, margin: 0 }} aria-label="Identity provider">
          <Group grow align="flex-start">
            <TextInput size="xs" label="Identity provider issuer" value={idpIssuer} onChange={(e) => setIdpIssuer(e.currentTarget.value)} placeholder="https://idp.example.com" />
            <TextInput size="xs" label="Identity provider token endpoint" value={idpTokenEndpoint} onChange={(e) => setIdpTokenEndpoint(e.currentTarget.value)} placeholder="where the issuer publishes no metadata" />
          </Group>
          <Group grow align="flex-start">
            <TextInput size="xs" label="Identity provider client ID" value={idpClientId} onChange={(e) => setIdpClientId(e.currentTarget.value)} />
            <SecretInput label="Identity provider client secret" stored={settings.idp?.hasClientSecret} placeholder="none (public client)" {...secret('idpClientSecret')} />
          </Group>
          <Group grow align="flex-start">
            <TextInput size="xs" label="ID token file" value={idTokenFile} onChange={(e) => setIdTokenFile(e.currentTarget.value)} placeholder="read at each exchange" />
            <SecretInput label="ID token" stored={settings.idp?.hasIdToken} placeholder="or paste the user's ID token to store" {...secret('idToken')} />
          </Group>
        </Stack>
      )}
      <TextInput size="xs" label="Scopes" value={scopes} onChange={(e) => setScopes(e.currentTarget.value)} placeholder="used when the server names none, space-separated" />
      <Stack gap={2}>
        <Text size="xs" fw={500} id={`${server}-dpop-label`}>
          DPoP (sender-constrained tokens)
        </Text>
        <SegmentedControl
          size="xs"
          value={dpop}
          onChange={(v) => setDpop(v as DpopMode)}
          data={[
            { value: 'auto', label: 'Where offered' },
            { value: 'always', label: 'Always' },
            { value: 'off', label: 'Off' },
          ]}
          aria-labelledby={`${server}-dpop-label`}
        />
      </Stack>
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

const CLIENT_AUTH_OPTIONS: Array<{ value: OAuthClientAuth; label: string }> = [
  { value: 'client_secret_basic', label: 'client_secret_basic (HTTP Basic)' },
  { value: 'client_secret_post', label: 'client_secret_post (form body)' },
  { value: 'private_key_jwt', label: 'private_key_jwt (signed assertion, RFC 7523)' },
  { value: 'none', label: 'none (public client)' },
];

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
            {status?.scope && (
              <Group gap={4} mt={2} aria-label="Granted scopes">
                {status.scope.split(' ').map((scope) => (
                  <Badge key={scope} size="xs" variant="light" color="teal" style={{ textTransform: 'none' }}>
                    {scope}
                  </Badge>
                ))}
              </Group>
            )}
            {status?.issuer && (
              <Text size="xs" c="dimmed">
                {status.issuer}
                {status.scope ? ` · scope "${status.scope}"` : ''}
                {status.expiresAt ? ` · token expires ${new Date(status.expiresAt).toLocaleString()}` : ''}
                {status.hasRefreshToken ? ' · refresh token kept' : ''}
              </Text>
            )}
            {status?.tokenType?.toLowerCase() === 'dpop' && (
              <Text size="xs" c="dimmed">
                <Badge size="xs" variant="light" color="grape" mr={4}>
                  DPoP-bound
                </Badge>
                key thumbprint <Text span ff="monospace" size="xs">{status.dpopThumbprint ?? 'unknown'}</Text>
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
        {status?.requestedScopes && status.requestedScopes.length > 0 && !busy && (
          <Alert color="yellow" variant="light" icon={<IconLock size={16} />} title="The server asks for more access" role="status">
            <Stack gap={6}>
              <Text size="sm">A call needed scopes this sign-in did not grant. Grant them to go on (you sign in again, asked only for the added scopes' consent):</Text>
              <Group gap={4} aria-label="Requested scopes">
                {status.requestedScopes.map((scope) => (
                  <Badge key={scope} color="yellow" variant="outline" style={{ textTransform: 'none' }}>
                    {scope}
                  </Badge>
                ))}
              </Group>
              <Group>
                <Button size="xs" onClick={() => login.mutate()} loading={login.isPending}>
                  Grant access
                </Button>
              </Group>
            </Stack>
          </Alert>
        )}
        {status?.failure && !busy && !status.requestedScopes?.length && (
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
