import { Anchor, Badge, Button, Code, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleDashed, IconX } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useTRPC } from '../../rpc/client';
import type { SectionId } from '../../shell/sectionIds';
import { useLocation, useNavigate } from '../../shell/useSection';
import { pendingCount, useApprovals } from '../approvals/useApprovals';
import { useGatewayOverview } from '../gateway/useGateway';
import { useServers } from '../servers/useServers';

/** One step of the walk through the seeded example: what to do, where, and whether it is done. */
export interface GuideStep {
  title: string;
  detail: ReactNode;
  section: SectionId;
  params?: Record<string, string>;
  done: boolean;
}

/** The seeded workspace's server and agent: what the steps name (examples/workspace). */
const EXAMPLE_SERVER = 'everything';
const EXAMPLE_AGENT = 'assistant';

/** Whether the first-run guide is dismissed (the settings file), and the setter About and the panel share. */
export function useStartHere() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const guide = useQuery(trpc.system.guide.queryOptions());
  const set = useMutation(
    trpc.system.setGuide.mutationOptions({
      onSuccess: (next) => queryClient.setQueryData(trpc.system.guide.queryKey(), next),
    }),
  );
  return {
    /** Undefined until read: the panel waits rather than flash in and out. */
    dismissed: guide.data?.startHereDismissed,
    setDismissed: (startHereDismissed: boolean) => set.mutate({ startHereDismissed }),
  };
}

/** The steps and how far the operator got, read from what the console already shows. */
function useGuideSteps(): GuideStep[] {
  const trpc = useTRPC();
  const { section } = useLocation();
  const { servers } = useServers();
  const { overview } = useGatewayOverview();
  const { approvals } = useApprovals();
  const [historySeen, setHistorySeen] = useState(false);
  const example = servers?.find((server) => server.config.name === EXAMPLE_SERVER);
  const serverReady = servers?.some((server) => server.state.status === 'ready') ?? false;
  // No live signal for "a call was recorded" without opening History's feed: a cheap count, asked
  // again every few seconds only until the first call is there.
  const calls = useQuery({ ...trpc.history.count.queryOptions({}), refetchInterval: (query) => ((query.state.data ?? 0) > 0 ? false : 3000) });
  const called = (calls.data ?? 0) > 0;
  useEffect(() => {
    if (section === 'history' && called) setHistorySeen(true);
  }, [section, called]);
  const decided = approvals?.some((approval) => approval.status.phase === 'Approved') ?? false;
  const waiting = pendingCount(approvals);

  return [
    {
      title: 'Run the example server',
      section: 'servers',
      params: example ? { server: EXAMPLE_SERVER } : {},
      done: serverReady,
      detail: (
        <>
          The example workspace declares <Code>{EXAMPLE_SERVER}</Code> (the MCP reference server over stdio). Open it in Servers and confirm its command line: nothing a
          folder declares runs unasked.
        </>
      ),
    },
    {
      title: 'Call a tool',
      section: 'tools',
      params: { tool: `mcp:${EXAMPLE_SERVER}.echo` },
      done: called,
      detail: (
        <>
          In Tools, pick <Code>{EXAMPLE_SERVER}.echo</Code>, fill in the form made from its schema and press Invoke. Ctrl K finds any tool by name.
        </>
      ),
    },
    {
      title: 'See it in History',
      section: 'history',
      done: historySeen,
      detail: <>Every call, from the console, the CLI or an agent, is recorded with its arguments, result, caller and timing.</>,
    },
    {
      title: 'Switch the gateway on',
      section: 'gateway',
      done: overview?.status.running ?? false,
      detail: <>The gateway is one MCP endpoint on 127.0.0.1 through which agents call the tools granted to them, as themselves.</>,
    },
    {
      title: 'Create a credential',
      section: 'gateway',
      done: overview?.agents.some((agent) => !agent.revokedAt) ?? false,
      detail: (
        <>
          New credential for <Code>{EXAMPLE_AGENT}</Code>, the agent the example workspace declares. Copy it: it is shown once.
        </>
      ),
    },
    {
      title: 'Hold and approve a call',
      section: 'approvals',
      done: decided,
      detail: (
        <>
          As <Code>{EXAMPLE_AGENT}</Code>, call a tool whose verdict for it is <Code>approval_required</Code> (the Gateway section&apos;s curl recipe, or a Mediation turn). The call
          waits in Approvals{waiting > 0 ? ` (${waiting} waiting now)` : ''}; approve it and the agent gets its result.
        </>
      ),
    },
  ];
}

/**
 * The first-run walk through the seeded example, above every section until dismissed (kept in the
 * settings file, so it stays dismissed across restarts and ports); About shows it again.
 */
export function StartHere() {
  const { dismissed, setDismissed } = useStartHere();
  if (dismissed !== false) return null;
  return <StartHerePanel onDismiss={() => setDismissed(true)} />;
}

function StartHerePanel({ onDismiss }: { onDismiss: () => void }) {
  const navigate = useNavigate();
  const steps = useGuideSteps();
  const next = steps.findIndex((step) => !step.done);
  const doneCount = steps.filter((step) => step.done).length;

  return (
    <Paper withBorder radius="md" p="md" mb="md" component="section" aria-label="Start here" bg="var(--mantine-color-indigo-light)">
      <Group justify="space-between" align="flex-start" wrap="nowrap" mb="xs">
        <div>
          <Group gap="xs">
            <Title order={4}>Start here</Title>
            <Badge size="sm" variant="light" color={doneCount === steps.length ? 'teal' : 'indigo'}>
              {doneCount} of {steps.length} done
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            Walk the example workspace from a tool call to an agent&apos;s call held for your approval. Each step opens where it is done.
          </Text>
        </div>
        <Button size="xs" variant="subtle" color="gray" leftSection={<IconX size={14} />} onClick={onDismiss}>
          Hide (About shows it again)
        </Button>
      </Group>
      <Stack gap={6} component="ol" aria-label="Steps" style={{ listStyle: 'none', paddingLeft: 0, margin: 0 }}>
        {steps.map((step, index) => (
          <Group key={step.title} component="li" gap="sm" wrap="nowrap" align="flex-start" aria-label={`${index + 1}. ${step.title}${step.done ? ' (done)' : ''}`}>
            <ThemeIcon size="sm" radius="xl" variant={step.done ? 'filled' : 'light'} color={step.done ? 'teal' : index === next ? 'indigo' : 'gray'} mt={2}>
              {step.done ? <IconCircleCheck size={14} /> : <IconCircleDashed size={14} />}
            </ThemeIcon>
            <div style={{ minWidth: 0 }}>
              <Anchor component="button" type="button" size="sm" fw={index === next ? 700 : 500} onClick={() => navigate(step.section, step.params)}>
                {index + 1}. {step.title}
              </Anchor>
              {index === next && (
                <Text size="xs" c="dimmed">
                  {step.detail}
                </Text>
              )}
            </div>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
