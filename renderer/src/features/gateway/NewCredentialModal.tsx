import { Alert, Button, Code, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { GatewayAgentName } from '../../../../shared/gateway';
import { CopyButton } from '../../components/CopyButton';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';
import { ConnectSnippet } from './ConnectSnippet';

/** Why `name` cannot be an agent's name, in one sentence; undefined when it can. */
export function agentNameProblem(name: string): string | undefined {
  if (!name) return undefined;
  const parsed = GatewayAgentName.safeParse(name);
  if (parsed.success) return undefined;
  const message = parsed.error.issues[0]?.message ?? 'not a valid agent name';
  return `${message[0]!.toUpperCase()}${message.slice(1)}.`;
}

interface NewCredentialModalProps {
  opened: boolean;
  onClose: () => void;
  /** Agents holding a live credential now: creating one of theirs replaces it. */
  liveAgents: readonly string[];
  /** The gateway's URL (or the one it will have), for the snippet shown with the credential. */
  url: string;
}

/**
 * Names an agent and creates its credential. The credential (NAME:SECRET) is shown here once, with a
 * copy button and how to use it; closing the dialog forgets it — Tooldeck keeps only its hash.
 */
export function NewCredentialModal({ opened, onClose, liveAgents, url }: NewCredentialModalProps) {
  const trpc = useTRPC();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const create = useMutation(trpc.gateway.createCredential.mutationOptions());
  // Names the workspace declares that hold no live credential yet come first to mind.
  const declared = useQuery({ ...trpc.gateway.declaredAgents.queryOptions(), enabled: opened });
  const suggestions = (declared.data ?? []).filter((agent) => !liveAgents.includes(agent));
  const credential = create.data?.credential;
  const trimmed = name.trim();
  const problem = agentNameProblem(trimmed);
  const replaces = liveAgents.includes(trimmed);

  const close = () => {
    setName('');
    setTouched(false);
    create.reset();
    onClose();
  };
  const submit = () => {
    setTouched(true);
    if (!trimmed || problem) return;
    create.mutate({ name: trimmed });
  };

  return (
    <Modal opened={opened} onClose={close} title={credential ? `Credential for ${create.variables?.name}` : 'New agent credential'} size="lg" closeOnClickOutside={!credential}>
      {credential ? (
        <Stack gap="sm">
          <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={16} />} p="xs">
            <Text size="sm">Copy it now: it is shown this once. Tooldeck keeps only a hash of the secret, so it cannot show it again; a lost credential is replaced by creating a new one.</Text>
          </Alert>
          <Group gap={4} wrap="nowrap">
            <Code block fz="sm" style={{ flex: 1, overflowWrap: 'anywhere' }} aria-label="New credential">
              {credential}
            </Code>
            <CopyButton value={credential} label="Copy credential" />
          </Group>
          <ConnectSnippet url={url} credential={credential} agent={create.variables?.name} framed={false} />
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Agent name"
              description="As the workspace names it (a Clawdapus service, an Orloj target agent, a LanguageAgent): it sees exactly the tools granted to that name."
              placeholder={suggestions[0] ?? 'reader'}
              data-autofocus
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              onBlur={() => setTouched(true)}
              error={(touched || trimmed.length > 0) && problem}
            />
            {/* The workspace's names as buttons under the field: a dropdown list opened over the dialog's own buttons. */}
            {suggestions.length > 0 && (
              <Group gap={6} role="group" aria-label="Agents the workspace declares">
                <Text size="xs" c="dimmed">
                  Declared by the workspace:
                </Text>
                {suggestions.map((suggestion) => (
                  <Button key={suggestion} size="compact-xs" variant={suggestion === trimmed ? 'filled' : 'light'} onClick={() => setName(suggestion)}>
                    {suggestion}
                  </Button>
                ))}
              </Group>
            )}
            {replaces && !problem && (
              <Text size="xs" c="orange">
                {trimmed} already holds a credential: the new one replaces it, and the old one stops working.
              </Text>
            )}
            {create.error && (
              <Alert color="red" variant="light" p="xs">
                <Text size="xs">{appErrorOf(create.error).message}</Text>
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} disabled={!trimmed || Boolean(problem)}>
                Create credential
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
