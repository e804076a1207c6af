import { Alert, Anchor, Badge, Button, Code, Drawer, Group, NavLink, NumberInput, Paper, Progress, ScrollArea, Skeleton, Stack, Switch, Table, TagsInput, Text, Title, UnstyledButton } from '@mantine/core';
import { IconFlask, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import type { EvalRun } from '../../../../shared/evals';
import { EmptyState } from '../../components/EmptyState';
import { formatDuration } from '../../components/format';
import { appErrorOf } from '../../rpc/appError';
import { useLocation, useNavigate } from '../../shell/useSection';
import { TracedCallCard } from '../mediation/TracedCallCard';
import { useCancelRun, useEvalRuns, useEvalSuites, useModelSuggestions, useProviders, useRunSuite, type EvalRunView, type SuiteFile } from './useEvals';

/**
 * Eval suites of the workspace (`evals/*.yml`): run one against models from the console, see the
 * case × model matrix fill in, and open a run's transcript (the tool calls the model made, what
 * they returned, its answer and why it failed). `tooldeck eval` runs the same suites in CI.
 */
export function EvalsView() {
  const suites = useEvalSuites();
  const { runs, error } = useEvalRuns();
  const { params } = useLocation();
  const navigate = useNavigate();
  const list = suites.data ?? [];
  const selected = list.find((item) => item.file === params.suite) ?? list[0];

  return (
    <Stack gap="md">
      <div>
        <Title order={2}>Evals</Title>
        <Text c="dimmed" size="sm">
          Does a model pick the right tool, with the right arguments? Each case runs per model through the same mediation engine agents use, every tool call through the pipeline (History: via Eval).
        </Text>
      </div>
      {(error ?? suites.error) && (
        <Alert color="red" variant="light" title="The evals could not be read">
          {error ?? suites.error?.message}
        </Alert>
      )}
      {suites.isPending ? (
        <Skeleton h={160} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<IconFlask size={30} />}
          title="No eval suites yet"
          description={
            <>
              Write a suite as YAML in the workspace's <Code>evals/</Code> folder: a name, the agent whose tools it uses, and cases with a prompt and the tool calls expected. New suite starts from a commented example; the editor completes and checks every field against the eval suite schema as you type.
            </>
          }
          actions={
            <Group gap="xs">
              <Button onClick={() => navigate('resources', { new: 'EvalSuite' })}>New suite</Button>
              <Button variant="light" onClick={() => navigate('resources', {})}>
                Open Resources
              </Button>
            </Group>
          }
        />
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={260} p={6} style={{ flexShrink: 0 }} component="nav" aria-label="Eval suites">
            {list.map((item) => (
              <NavLink
                key={item.file}
                active={item.file === selected?.file}
                label={item.suite?.name ?? item.file}
                description={item.suite ? `${item.file} · ${item.suite.cases.length} case(s)` : `${item.file}: ${item.problem}`}
                color={item.suite ? undefined : 'red'}
                onClick={() => navigate('evals', { suite: item.file })}
              />
            ))}
          </Paper>
          {selected && <SuitePanel key={selected.file} suite={selected} run={runs?.find((run) => run.file === selected.file)} />}
        </Group>
      )}
    </Stack>
  );
}

function SuitePanel({ suite, run }: { suite: SuiteFile; run: EvalRunView | undefined }) {
  const navigate = useNavigate();
  const providers = useProviders();
  const start = useRunSuite();
  const cancel = useCancelRun();
  const [models, setModels] = useState<string[]>([]);
  const [iterations, setIterations] = useState<number | string>('');
  const [execute, setExecute] = useState(true);
  const [opened, setOpened] = useState<{ case: string; model: string } | undefined>();
  const suggestions = useModelSuggestions();

  if (!suite.suite) {
    return (
      <Alert color="red" variant="light" title={`${suite.file} is not a valid eval suite`} style={{ flex: 1 }}>
        {suite.problem}{' '}
        <Anchor component="button" onClick={() => navigate('resources', { file: suite.file })}>
          Open it in Resources
        </Anchor>
      </Alert>
    );
  }
  const definition = suite.suite;
  const running = run?.state === 'running';
  const runBlocked =
    providers.data?.length === 0
      ? 'Run needs a model provider: add one in Mediation, then pick its models here.'
      : models.length === 0
        ? 'Run needs at least one model: type provider/model and press Enter.'
        : undefined;

  return (
    <Stack gap="md" style={{ flex: 1, minWidth: 0 }}>
      <Paper withBorder p="md" radius="md" component="section" aria-label="Run the suite">
        <Group justify="space-between" align="flex-start" mb="sm">
          <div>
            <Title order={4}>{definition.name}</Title>
            <Text size="sm" c="dimmed">
              {definition.agent ? `Tools: agent ${definition.agent}'s grants` : `Tools: ${definition.tools?.join(', ')}`} · {definition.cases.length} case(s) · {definition.iterations} iteration(s) each
            </Text>
          </div>
          <Anchor size="sm" component="button" onClick={() => navigate('resources', { file: suite.file })}>
            Edit {suite.file}
          </Anchor>
        </Group>
        <Group align="flex-end" gap="sm">
          <TagsInput
            label="Models"
            description={providers.data?.length ? `provider/model, Enter after each; providers: ${providers.data.map((provider) => provider.name).join(', ')}` : 'provider/model: add a model provider first (Mediation)'}
            // An example model here read like a value already chosen: the placeholder says what to do instead.
            placeholder={models.length ? '' : providers.data?.length ? `Type ${providers.data[0]!.name}/…, then Enter` : 'No provider yet'}
            value={models}
            onChange={setModels}
            data={suggestions}
            maxTags={8}
            style={{ flex: 1, minWidth: 260 }}
          />
          <NumberInput label="Iterations" placeholder={String(definition.iterations)} min={1} max={100} value={iterations} onChange={setIterations} w={110} />
          <Switch label="Execute tools" checked={execute} onChange={(event) => setExecute(event.currentTarget.checked)} mb={8} />
          {running ? (
            <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} onClick={() => cancel.mutate({ id: run.id })}>
              Stop
            </Button>
          ) : (
            <Button
              leftSection={<IconPlayerPlay size={16} />}
              disabled={runBlocked !== undefined}
              aria-describedby={runBlocked ? 'eval-run-blocked' : undefined}
              loading={start.isPending}
              onClick={() => start.mutate({ file: suite.file, models, ...(typeof iterations === 'number' ? { iterations } : {}), execute })}
            >
              Run suite
            </Button>
          )}
        </Group>
        {runBlocked && !running && (
          <Group gap="xs" mt={6}>
            <Text id="eval-run-blocked" size="xs" c="dimmed">
              {runBlocked}
            </Text>
            {providers.data?.length === 0 && (
              <Button size="compact-xs" variant="light" onClick={() => navigate('mediation', { add: 'provider' })}>
                Add provider
              </Button>
            )}
          </Group>
        )}
        {start.error && (
          <Alert color="red" variant="light" mt="sm" title="Not started">
            {appErrorOf(start.error).message}
          </Alert>
        )}
      </Paper>
      {run && <RunMatrix run={run} cases={definition.cases.map((item) => item.name)} onOpen={setOpened} />}
      <Drawer opened={opened !== undefined && run !== undefined} onClose={() => setOpened(undefined)} position="right" size="xl" title={opened ? `${opened.case} · ${opened.model}` : ''}>
        {opened && run && <Transcript runs={run.results.filter((item) => item.case === opened.case && item.model === opened.model).map((item) => item.run)} />}
      </Drawer>
    </Stack>
  );
}

function RunMatrix({ run, cases, onOpen }: { run: EvalRunView; cases: string[]; onOpen: (cell: { case: string; model: string }) => void }) {
  const byCell = useMemo(() => {
    const cells = new Map<string, EvalRun[]>();
    for (const item of run.results) cells.set(`${item.case}\u0000${item.model}`, [...(cells.get(`${item.case}\u0000${item.model}`) ?? []), item.run]);
    return cells;
  }, [run.results]);
  const accuracy = run.report?.accuracy;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Results">
      <Group justify="space-between" mb="sm">
        <Group gap="xs">
          <Title order={5}>Results</Title>
          <Badge color={run.state === 'done' ? (run.report?.cases.every((item) => item.passed) ? 'green' : 'red') : run.state === 'running' ? 'blue' : 'gray'} variant="light">
            {run.state === 'done' ? `accuracy ${Math.round((accuracy ?? 0) * 100)}%` : run.state}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed">
          {run.done} of {run.planned} run(s)
        </Text>
      </Group>
      {run.state === 'running' && <Progress value={(run.done / Math.max(1, run.planned)) * 100} size="sm" mb="sm" aria-label="Progress" />}
      {run.error && (
        <Alert color="red" variant="light" mb="sm">
          {run.error}
        </Alert>
      )}
      {run.notConnected && (
        <Alert color="yellow" variant="light" mb="sm" title="Some sources did not connect: their tools were not offered">
          {run.notConnected}
        </Alert>
      )}
      <ScrollArea>
        <Table withTableBorder withColumnBorders aria-label="Case by model">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Case</Table.Th>
              {run.models.map((model) => (
                <Table.Th key={model}>
                  <Code>{model}</Code>
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {cases.map((name) => (
              <Table.Tr key={name}>
                <Table.Td>{name}</Table.Td>
                {run.models.map((model) => {
                  const runs = byCell.get(`${name}\u0000${model}`) ?? [];
                  const passed = runs.filter((item) => item.passed).length;
                  return (
                    <Table.Td key={model}>
                      {runs.length === 0 ? (
                        <Text size="sm" c="dimmed">
                          …
                        </Text>
                      ) : (
                        <UnstyledButton onClick={() => onOpen({ case: name, model })} aria-label={`${name} with ${model}: ${passed} of ${runs.length} passed`}>
                          <Badge color={passed === runs.length ? 'green' : passed === 0 ? 'red' : 'yellow'} variant="light" style={{ cursor: 'pointer' }}>
                            {passed}/{runs.length} passed
                          </Badge>
                        </UnstyledButton>
                      )}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </Paper>
  );
}

/** Each run of one case with one model: the calls in order (tool, arguments, result, latency), the answer, and why it failed. */
function Transcript({ runs }: { runs: EvalRun[] }) {
  return (
    <Stack gap="lg" aria-label="Transcript">
      {runs.map((run) => (
        <Stack key={run.iteration} gap="xs">
          <Group gap="xs">
            <Badge color={run.passed ? 'green' : 'red'}>{run.passed ? 'Passed' : 'Failed'}</Badge>
            <Text size="sm" fw={600}>
              Run {run.iteration}
            </Text>
            <Text size="xs" c="dimmed">
              {formatDuration(run.latency_ms)} · {run.rounds} round(s) · {run.tokens.prompt} prompt + {run.tokens.completion} completion tokens
            </Text>
          </Group>
          {run.failures.map((failure) => (
            <Alert key={failure} color="red" variant="light" p="xs">
              {failure}
            </Alert>
          ))}
          {run.tool_calls.length === 0 && (
            <Text size="sm" c="dimmed">
              No tool called.
            </Text>
          )}
          {run.tool_calls.map((call, index) => (
            <TracedCallCard key={index} call={call} />
          ))}
          {run.answer !== undefined && (
            <Paper withBorder p="xs" radius="sm" bg="var(--mantine-color-default-hover)" aria-label="Answer">
              <Text size="xs" c="dimmed">
                Answer
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {run.answer}
              </Text>
            </Paper>
          )}
          {run.error && <Alert color="red">{run.error}</Alert>}
        </Stack>
      ))}
    </Stack>
  );
}
