import { Anchor, Badge, Button, Code, Group, Paper, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleDashed, IconX } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useTRPC } from '../../rpc/client';
import type { SectionId } from '../../shell/sectionIds';
import { useLocation, useNavigate } from '../../shell/useSection';
import { pendingCount, useApprovals } from '../approvals/useApprovals';

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

/** How often a step not yet done is looked at again. */
const RECHECK_MS = 3000;

/** Asked again every few seconds until `done` says the step is done, then never. */
const untilDone = <T,>(done: (data: T) => boolean) => (query: { state: { data: T | undefined } }) => (query.state.data !== undefined && done(query.state.data) ? false : RECHECK_MS);

/**
 * The steps and how far the operator got, read from what the console already knows. Short queries
 * asked again until each step is done, rather than live subscriptions: in browser mode each
 * subscription holds one of the few connections a browser opens to a host.
 */
function useGuideSteps(): GuideStep[] {
  const trpc = useTRPC();
  const { section } = useLocation();
  const { approvals } = useApprovals();
  const [historySeen, setHistorySeen] = useState(false);
  const servers = useQuery({ ...trpc.mcp.list.queryOptions(), refetchInterval: untilDone((list) => list.some((server) => server.state.status === 'ready')) });
  const gateway = useQuery({ ...trpc.gateway.status.queryOptions(), refetchInterval: untilDone((status) => status.running) });
  const agents = useQuery({ ...trpc.gateway.agents.queryOptions(), refetchInterval: untilDone((list) => list.some((agent) => !agent.revokedAt)) });
  const calls = useQuery({ ...trpc.history.count.queryOptions({}), refetchInterval: untilDone((count) => count > 0) });
  const example = servers.data?.find((server) => server.config.name === EXAMPLE_SERVER);
  const serverReady = servers.data?.some((server) => server.state.status === 'ready') ?? false;
  const called = (calls.data ?? 0) > 0;
  useEffect(() => {
    if (section === 'history' && called) setHistorySeen(true);
  }, [section, called]);
  const decided = approvals?.some((approval) => approval.status.phase === 'Approved') ?? false;
  const waiting = pendingCount(approvals);
  const gatewayOn = gateway.data?.running ?? false;
  const credentialMade = agents.data?.some((agent) => !agent.revokedAt) ?? false;

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
      // Only this page knows History was opened: after a reload, a later step done counts for it.
      done: historySeen || (called && (gatewayOn || credentialMade || decided)),
      detail: <>Every call, from the console, the CLI or an agent, is recorded with its arguments, result, caller and timing.</>,
    },
    {
      title: 'Switch the gateway on',
      section: 'gateway',
      done: gatewayOn,
      detail: <>The gateway is one MCP endpoint on 127.0.0.1 through which agents call the tools granted to them, as themselves.</>,
    },
    {
      title: 'Create a credential',
      section: 'gateway',
      done: credentialMade,
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
          As <Code>{EXAMPLE_AGENT}</Code>, call <Code>{EXAMPLE_SERVER}.get-tiny-image</Code>, whose verdict for it is <Code>approval_required</Code> (the Gateway section&apos;s curl
          recipe with <Code>tools/call</Code> in place of <Code>tools/list</Code>, or a Mediation turn). The call waits in Approvals{waiting > 0 ? ` (${waiting} waiting now)` : ''}; approve it
          and the agent gets its result.
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
      {/* The steps in a row (the panel sits above every section: it must leave them room), the next one's how-to below. */}
      <Group gap="xs" component="ol" aria-label="Steps" style={{ listStyle: 'none', paddingLeft: 0, margin: 0 }}>
        {steps.map((step, index) => (
          <Group key={step.title} component="li" gap={6} wrap="nowrap" aria-label={`${index + 1}. ${step.title}${step.done ? ' (done)' : ''}`}>
            <ThemeIcon size="sm" radius="xl" variant={step.done ? 'filled' : 'light'} color={step.done ? 'teal' : index === next ? 'indigo' : 'gray'}>
              {step.done ? <IconCircleCheck size={14} /> : <IconCircleDashed size={14} />}
            </ThemeIcon>
            <Anchor component="button" type="button" size="sm" fw={index === next ? 700 : 500} onClick={() => navigate(step.section, step.params)}>
              {index + 1}. {step.title}
            </Anchor>
          </Group>
        ))}
      </Group>
      <Text size="xs" c="dimmed" mt={6} aria-label="Next step">
        {next >= 0 ? (
          <>
            Next, {steps[next]!.title.toLowerCase()}: {steps[next]!.detail}
          </>
        ) : (
          'All done: a governed agent call, held and approved. The README goes on with evals, collections, the bus and Kubernetes; hide this panel when you like.'
        )}
      </Text>
    </Paper>
  );
}
