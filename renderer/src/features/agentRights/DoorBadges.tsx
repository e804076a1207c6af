import { Badge, Group, Tooltip } from '@mantine/core';
import type { AgentDoors } from '../../../../shared/agents';

/** The ways an agent comes in, as badges: its gateway credential (live or revoked), a cluster's LanguageAgent, a broker user on RockBot's bus. */
export function DoorBadges({ doors, name }: { doors: AgentDoors; name: string }) {
  const credential = doors.credential;
  return (
    <Group gap={4} wrap="wrap" role="group" aria-label={`Doors of ${name}`}>
      {credential && (
        <Tooltip label={credential.revokedAt ? 'Its gateway credential is revoked: it opens nothing' : 'Holds a live gateway credential (the MCP gateway and mediation)'} withArrow>
          <Badge size="xs" variant="light" color={credential.revokedAt ? 'gray' : 'teal'} tt="none">
            {credential.revokedAt ? 'credential (revoked)' : 'credential'}
          </Badge>
        </Tooltip>
      )}
      {doors.cluster && (
        <Tooltip label="A Language Operator LanguageAgent of the cluster" withArrow>
          <Badge size="xs" variant="light" color="indigo" tt="none">
            cluster
          </Badge>
        </Tooltip>
      )}
      {doors.bus && (
        <Tooltip label="Called over RockBot's bus as this broker user since the console started" withArrow>
          <Badge size="xs" variant="light" color="grape" tt="none">
            bus
          </Badge>
        </Tooltip>
      )}
      {!credential && !doors.cluster && !doors.bus && (
        <Tooltip label="Granted tools, but no credential, cluster agent or bus user yet: create a credential in Gateway" withArrow>
          <Badge size="xs" variant="outline" color="gray" tt="none">
            no door yet
          </Badge>
        </Tooltip>
      )}
    </Group>
  );
}
