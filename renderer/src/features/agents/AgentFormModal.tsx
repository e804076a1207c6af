import { Alert, Badge, Button, Group, Modal, Paper, PasswordInput, Select, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconCardsFilled, IconCheck, IconLock } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { A2aAgentInput, type A2aAgentConfig, type A2aCardReport } from '../../../../shared/a2a';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { readableError } from '../servers/readableError';
import { authKindFor, draftFrom, inputFrom, nameFromCard, withScheme, type AgentDraft, type AuthKind } from './agentDraft';
import { CHECK_COLOR, summarizeChecks } from './checkRows';
import { HeadersEditor } from './HeadersEditor';
import { useAgentCache } from './useAgentCache';
import { MONO_INPUT } from './display';

const AUTH_KINDS: Array<{ value: AuthKind; label: string }> = [
  { value: 'none', label: 'None' },
  { value: 'bearer', label: 'Bearer token' },
  { value: 'apiKey', label: 'API key' },
  { value: 'oauth2ClientCredentials', label: 'OAuth2 client credentials' },
];

/** Adds an agent, or edits a saved one (its name stays; empty secret fields keep what is stored). */
export function AgentFormModal({ onClose, existing, onSaved }: { onClose: () => void; existing?: A2aAgentConfig; onSaved?: (name: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<AgentDraft>(() => draftFrom(existing));
  const [error, setError] = useState<string>();
  const [card, setCard] = useState<{ url: string; report?: A2aCardReport; error?: string; loading?: boolean }>();
  const save = useMutation(trpc.a2a.save.mutationOptions());
  const cache = useAgentCache();
  const set = (patch: Partial<AgentDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const editing = !!existing;
  const stored = (kind: AuthKind) => existing?.auth.kind === kind;

  const fetchCard = async () => {
    const url = draft.url.trim();
    if (!/^https?:\/\//i.test(url) || card?.url === url) return;
    setCard({ url, loading: true });
    try {
      const report = (await queryClient.fetchQuery({ ...trpc.a2a.inspect.queryOptions({ target: url }), retry: false })) as A2aCardReport;
      setCard({ url, report });
      setDraft((d) => {
        let next = d.name.trim() ? d : { ...d, name: nameFromCard(report.card.name) };
        // An agent that requires credentials gets its first usable scheme preselected.
        const required = report.card.securityRequirements.flat();
        const scheme = report.card.securitySchemes.find((s) => required.includes(s.name) && authKindFor(s));
        if (scheme && next.authKind === 'none') next = withScheme(next, scheme);
        return next;
      });
    } catch (e) {
      setCard({ url, error: appErrorOf(e).message });
    }
  };

  const submit = async () => {
    setError(undefined);
    const input = inputFrom(draft);
    const parsed = A2aAgentInput.safeParse(input);
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => `${i.path.join('.') || 'agent'}: ${i.message}`).join('\n'));
      return;
    }
    try {
      const saved = await save.mutateAsync(input);
      await cache.refresh(saved.name);
      notifications.show({
        color: 'teal',
        title: `${editing ? 'Saved' : 'Added'} ${saved.name}`,
        message: 'Its skills join the tool registry as a2a:' + saved.name + '.<skill>.',
      });
      onSaved?.(saved.name);
      onClose();
    } catch (e) {
      setError(readableError(e));
    }
  };

  const schemes = card?.report?.card.securitySchemes.filter((s) => authKindFor(s) === draft.authKind) ?? [];

  return (
    <Modal opened onClose={onClose} title={editing ? `Edit ${existing.name}` : 'Add A2A agent'} size="lg" centered>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack gap="md">
          <TextInput
            label="URL"
            description="The agent's base URL, or its card URL (…/.well-known/agent-card.json)"
            placeholder="http://127.0.0.1:9999"
            required
            value={draft.url}
            onChange={(e) => set({ url: e.currentTarget.value })}
            onBlur={() => void fetchCard()}
            styles={MONO_INPUT}
            data-autofocus
            rightSectionWidth={92}
            rightSection={
              <Button
                size="compact-xs"
                variant="light"
                onClick={() => void fetchCard()}
                loading={card?.loading}
                disabled={!/^https?:\/\//i.test(draft.url.trim())}
              >
                Fetch card
              </Button>
            }
          />
          {card && !card.loading && <CardPreview report={card.report} error={card.error} />}
          {(draft.authKind !== 'none' || draft.interfaceOrigin) && (
            <TextInput
              label="Interface origin"
              description="Only when the card's interface lives on another origin than the URL: credentials go there too once saved here"
              placeholder="https://agent.example.com"
              value={draft.interfaceOrigin}
              onChange={(e) => set({ interfaceOrigin: e.currentTarget.value })}
              styles={MONO_INPUT}
            />
          )}
          <TextInput
            label="Name"
            description="Used in tool names: a2a:<name>.<skill>"
            required
            disabled={editing}
            value={draft.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            styles={MONO_INPUT}
          />
          <Select
            label="Authentication"
            description={card?.report ? 'What the card asks for is preselected' : undefined}
            data={AUTH_KINDS}
            value={draft.authKind}
            onChange={(v) => v && set({ authKind: v as AuthKind })}
            allowDeselect={false}
          />
          {draft.authKind !== 'none' && schemes.length > 0 && (
            <Select
              label="Card scheme"
              description="The card's security scheme these credentials satisfy"
              data={schemes.map((s) => ({ value: s.name, label: `${s.name} — ${s.detail}` }))}
              value={draft.scheme || null}
              onChange={(value) => {
                const scheme = schemes.find((s) => s.name === value);
                if (scheme) setDraft((d) => withScheme(d, scheme));
              }}
              clearable
              onClear={() => set({ scheme: '' })}
            />
          )}
          {draft.authKind === 'bearer' && (
            <PasswordInput
              label="Bearer token"
              description={stored('bearer') ? 'A token is stored; leave empty to keep it' : 'Kept in the secret store, never in the config file'}
              value={draft.token}
              onChange={(e) => set({ token: e.currentTarget.value })}
            />
          )}
          {draft.authKind === 'apiKey' && (
            <>
              <PasswordInput
                label="API key"
                description={stored('apiKey') ? 'A key is stored; leave empty to keep it' : 'Kept in the secret store, never in the config file'}
                value={draft.apiKey}
                onChange={(e) => set({ apiKey: e.currentTarget.value })}
              />
              <Group grow>
                <Select
                  label="Sent in"
                  placeholder="As the card says"
                  data={[
                    { value: 'header', label: 'Header' },
                    { value: 'query', label: 'Query parameter' },
                  ]}
                  value={draft.apiKeyIn || null}
                  onChange={(v) => set({ apiKeyIn: (v ?? '') as AgentDraft['apiKeyIn'] })}
                  clearable
                />
                <TextInput
                  label="Parameter"
                  placeholder="As the card says, e.g. X-API-Key"
                  value={draft.apiKeyName}
                  onChange={(e) => set({ apiKeyName: e.currentTarget.value })}
                  styles={MONO_INPUT}
                />
              </Group>
            </>
          )}
          {draft.authKind === 'oauth2ClientCredentials' && (
            <>
              <Group grow align="flex-start">
                <TextInput label="Client ID" required value={draft.clientId} onChange={(e) => set({ clientId: e.currentTarget.value })} styles={MONO_INPUT} />
                <PasswordInput
                  label="Client secret"
                  description={stored('oauth2ClientCredentials') ? 'Stored; leave empty to keep it' : undefined}
                  value={draft.clientSecret}
                  onChange={(e) => set({ clientSecret: e.currentTarget.value })}
                />
              </Group>
              <TextInput
                label="Token endpoint"
                placeholder="As the card says"
                value={draft.tokenUrl}
                onChange={(e) => set({ tokenUrl: e.currentTarget.value })}
                styles={MONO_INPUT}
              />
              <TextInput
                label="Scopes"
                placeholder="Space-separated"
                value={draft.scopes}
                onChange={(e) => set({ scopes: e.currentTarget.value })}
                styles={MONO_INPUT}
              />
            </>
          )}
          <HeadersEditor rows={draft.headers} onChange={(headers) => set({ headers })} />
          {error && (
            <Alert color="red" icon={<IconAlertTriangle />} title="Not saved" role="alert">
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {error}
              </Text>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              {editing ? 'Save' : 'Add agent'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function CardPreview({ report, error }: { report?: A2aCardReport; error?: string }) {
  if (error || !report) {
    return (
      <Alert color="orange" icon={<IconAlertTriangle size={16} />} p="xs" title="No agent card found">
        <Text size="xs" style={{ whiteSpace: 'pre-wrap' }}>
          {error ?? 'The card could not be read.'} You can still save the agent and fix the URL later.
        </Text>
      </Alert>
    );
  }
  const summary = summarizeChecks(report.rows);
  const required = new Set(report.card.securityRequirements.flat());
  return (
    <Paper withBorder p="xs" radius="md" aria-label="Agent card preview">
      <Group gap={8} mb={4}>
        <IconCardsFilled size={16} aria-hidden />
        <Text fw={600} size="sm">
          {report.card.name}
        </Text>
        <Badge size="xs" variant="light" tt="none">
          v{report.card.version}
        </Badge>
        <Badge size="xs" variant="outline">
          A2A {report.protocolVersion}
        </Badge>
        <Badge
          size="xs"
          variant="light"
          color={CHECK_COLOR[summary.worst]}
          leftSection={summary.worst === 'pass' ? <IconCheck size={10} /> : <IconAlertTriangle size={10} />}
        >
          {summary.label}
        </Badge>
      </Group>
      <Text size="xs" c="dimmed" lineClamp={2}>
        {report.card.skills.length} skill{report.card.skills.length === 1 ? '' : 's'}: {report.card.skills.map((s) => s.name).join(', ') || 'none'}
      </Text>
      {report.card.securitySchemes.length > 0 && (
        <Group gap={4} mt={4}>
          <IconLock size={12} aria-hidden />
          {report.card.securitySchemes.map((s) => (
            <Badge key={s.name} size="xs" variant={required.has(s.name) ? 'filled' : 'outline'} color="violet" tt="none">
              {s.name}: {s.detail}
            </Badge>
          ))}
        </Group>
      )}
    </Paper>
  );
}
