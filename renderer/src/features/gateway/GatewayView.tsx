import { Alert, Grid, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { DEFAULT_GATEWAY_PORT } from '../../../../shared/gateway';
import { AgentsCard } from './AgentsCard';
import { ConnectSnippet, gatewayUrlFor } from './ConnectSnippet';
import { EndpointCard } from './EndpointCard';
import { LiveCallsCard, SessionsCard } from './LiveCallsCard';
import { NewCredentialModal } from './NewCredentialModal';
import { useGatewayOverview, useGatewayTraffic } from './useGateway';

/**
 * The MCP gateway for agents: on and off, the URL and how an agent connects, the agents and their
 * credentials, and what they call as it happens. Every call is also in History and Metrics under
 * the agent's name.
 */
export function GatewayView() {
  const { overview, error } = useGatewayOverview();
  const { traffic, error: trafficError } = useGatewayTraffic();
  const [creating, setCreating] = useState(false);
  const status = overview?.status;
  const url = gatewayUrlFor(status?.url, status?.port ?? DEFAULT_GATEWAY_PORT);

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2}>Gateway</Title>
          <Text c="dimmed" size="sm">
            One MCP endpoint through which agents call the tools granted to them, as themselves: under the policy for that agent, held for a person when it says so, and recorded.
          </Text>
        </div>
      </Group>

      {(error ?? trafficError) && (
        <Alert color="red" variant="light" title="The gateway's state could not be read">
          {error ?? trafficError}
        </Alert>
      )}

      {!overview ? (
        <Stack gap="sm">
          <Skeleton h={120} />
          <Skeleton h={160} />
        </Stack>
      ) : (
        <>
          <Grid gap="md" align="stretch">
            <Grid.Col span={{ base: 12, lg: 5 }}>
              <EndpointCard
                status={overview.status}
                counts={{
                  liveAgents: overview.agents.filter((agent) => !agent.revokedAt).length,
                  sessions: traffic?.sessions.length ?? 0,
                  running: traffic?.calls.filter((call) => call.state === 'running').length ?? 0,
                  held: traffic?.calls.filter((call) => call.state === 'held').length ?? 0,
                }}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 7 }}>
              <ConnectSnippet url={url} />
            </Grid.Col>
          </Grid>
          {overview.agents.length === 0 ? (
            // No agent can connect without a credential: the sessions wait for the first one.
            <AgentsCard agents={overview.agents} onNewCredential={() => setCreating(true)} />
          ) : (
            <Grid gap="md">
              <Grid.Col span={{ base: 12, xl: 8 }}>
                <AgentsCard agents={overview.agents} onNewCredential={() => setCreating(true)} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, xl: 4 }}>
                <SessionsCard sessions={traffic?.sessions ?? []} />
              </Grid.Col>
            </Grid>
          )}
          <LiveCallsCard calls={traffic?.calls ?? []} running={overview.status.running} url={overview.status.url} />
          <NewCredentialModal opened={creating} onClose={() => setCreating(false)} liveAgents={overview.agents.filter((agent) => !agent.revokedAt).map((agent) => agent.name)} url={url} />
        </>
      )}
    </Stack>
  );
}
