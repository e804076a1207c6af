import { Badge, Tooltip } from '@mantine/core';
import type { A2aProtocolVersion } from '../../../../shared/a2a';

export interface Reachability {
  checking: boolean;
  /** Why the card could not be read, when it could not. */
  error?: string;
}

/** Whether the agent's card could be fetched just now. */
export function ReachabilityBadge({ reachability, size = 'sm' }: { reachability: Reachability; size?: 'xs' | 'sm' | 'md' }) {
  if (reachability.checking) {
    return (
      <Badge color="gray" variant="dot" size={size}>
        Checking
      </Badge>
    );
  }
  if (reachability.error) {
    return (
      <Tooltip label={reachability.error} multiline maw={420} withArrow>
        <Badge color="red" variant="dot" size={size} aria-label="Status: Unreachable">
          Unreachable
        </Badge>
      </Tooltip>
    );
  }
  return (
    <Badge color="teal" variant="dot" size={size} aria-label="Status: Reachable">
      Reachable
    </Badge>
  );
}

export function ProtocolBadge({ version, size = 'sm' }: { version: A2aProtocolVersion | undefined; size?: 'xs' | 'sm' | 'md' }) {
  if (!version) return null;
  return (
    <Tooltip label={version === '1.0' ? 'A2A 1.0' : 'A2A 0.3 (legacy method names, lowercase states)'} withArrow>
      <Badge size={size} variant="light" color={version === '1.0' ? 'indigo' : 'orange'} aria-label={`A2A ${version}`}>
        {version}
      </Badge>
    </Tooltip>
  );
}
