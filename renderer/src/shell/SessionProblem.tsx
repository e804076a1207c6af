import { Alert, Center, Code, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import type { SessionState } from '../rpc/session';

export function SessionProblem({ state }: { state: Exclude<SessionState, 'ok'> }) {
  return (
    <Center h="100vh" p="xl">
      <Stack maw={560} gap="md">
        <Title order={2}>Tooldeck</Title>
        <Alert
          color="orange"
          icon={<IconLock />}
          title={state === 'rejected' ? 'This link’s token was not accepted' : 'Open the link printed by tooldeck serve'}
          role="alert"
        >
          <Text size="sm">
            Browser mode only answers pages that hold its per-process token. Open the full URL that <Code>tooldeck serve</Code> printed
            (it ends in <Code>#token=…</Code>). A restarted server has a new token.
          </Text>
        </Alert>
      </Stack>
    </Center>
  );
}
