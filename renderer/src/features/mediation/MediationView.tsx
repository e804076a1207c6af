import { Alert, Skeleton, Stack, Text, Title } from '@mantine/core';
import { HeldTurnsCard } from './HeldTurnsCard';
import { ProvidersCard } from './ProvidersCard';
import { TurnsCard } from './TurnsCard';
import { useMediatedTurns, useProviders } from './useMediation';

/**
 * Model mediation (Clawdapus cllama's, on the gateway's port): the providers runners' requests go
 * to, and each mediated turn round by round — the managed calls the model made, what they
 * returned, the tokens, and the answer the runner got.
 */
export function MediationView() {
  const { providers, error } = useProviders();
  const { turns, error: turnsError } = useMediatedTurns();
  return (
    <Stack gap="md">
      <div>
        <Title order={2}>Mediation</Title>
        <Text c="dimmed" size="sm">
          Runners point their OpenAI or Anthropic client at the gateway; their agent's managed tools are offered to the model and run through Tooldeck's pipeline, and the runner gets the answer.
        </Text>
      </div>
      {(error ?? turnsError) && (
        <Alert color="red" variant="light" title="Mediation's state could not be read">
          {error ?? turnsError}
        </Alert>
      )}
      <HeldTurnsCard />
      {providers ? <ProvidersCard providers={providers} /> : <Skeleton h={120} />}
      {turns ? <TurnsCard turns={turns} /> : <Skeleton h={200} />}
    </Stack>
  );
}
