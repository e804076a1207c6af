import { Badge, Button, CloseButton, Group, MultiSelect, Paper, Select } from '@mantine/core';
import { IconFilterOff, IconPlayerPlay, IconSearch } from '@tabler/icons-react';
import { CallerVia } from '../../../../shared/caller';
import { InvocationStatus } from '../../../../shared/invocation';
import { TimeRangePicker } from '../metrics/TimeRangePicker';
import { agentChoice, hasFilters, NO_FILTERS, OPERATOR_CHOICE, traceIdOf, type HistoryFilters } from './historyFilter';
import { ClearableTextInput } from '../../components/ClearableTextInput';

const STATUS_LABEL: Record<InvocationStatus, string> = { ok: 'OK', error: 'Error', timeout: 'Timeout', canceled: 'Canceled', denied: 'Denied' };
/** How each way in reads in the filter and the calls table. */
export const VIA_LABEL: Record<CallerVia, string> = {
  ui: 'UI',
  cli: 'CLI',
  run: 'Run',
  app: 'MCP App',
  replay: 'Replay',
  a2a: 'A2A',
  gateway: 'Gateway',
  mediation: 'Model mediation',
  bus: 'Message bus',
  playground: 'Playground',
  eval: 'Eval',
};
const KIND_GROUP: Record<string, string> = { mcp: 'MCP servers', a2a: 'A2A agents', http: 'HTTP services', bus: 'Bridges on the bus' };

export interface HistoryFilterBarProps {
  value: HistoryFilters;
  /** How to name the run filter (collection and time); its id otherwise. */
  runLabel?: string;
  onChange: (next: HistoryFilters) => void;
  /** Known sources (`mcp:everything`) and tools to offer; the current choices are always offered. */
  sources: string[];
  tools: string[];
  /** Agents known to have made calls, to offer beside the operator. */
  agents?: string[];
  /** Replicas seen in the calls: a Replica picker appears once there are several (a shared history). */
  replicas?: string[];
}

export function HistoryFilterBar({ value, onChange, sources, tools, runLabel, agents = [], replicas = [] }: HistoryFilterBarProps) {
  const set = (patch: Partial<HistoryFilters>) => onChange({ ...value, ...patch });
  const sourceData = groupSources(value.source && !sources.includes(value.source) ? [...sources, value.source] : sources);
  const toolData = value.tool && !tools.includes(value.tool) ? [...tools, value.tool] : tools;
  const agentChoices = agents.map((agent) => ({ value: agentChoice(agent), label: agent }));
  if (value.caller && value.caller !== OPERATOR_CHOICE && !agentChoices.some((c) => c.value === value.caller)) {
    agentChoices.push({ value: value.caller, label: value.caller.slice('agent:'.length) });
  }
  const callerData = [{ value: OPERATOR_CHOICE, label: 'Operator' }, ...(agentChoices.length ? [{ group: 'Agents', items: agentChoices }] : [])];

  return (
    <Paper withBorder p="xs" radius="md">
      <Group gap="xs" wrap="wrap">
        <Select
          size="sm"
          w={190}
          aria-label="Source"
          placeholder="All sources"
          data={sourceData}
          value={value.source}
          onChange={(source) => set({ source, tool: null })}
          searchable
          clearable
          nothingFoundMessage="No calls from such a source"
        />
        <Select
          size="sm"
          w={190}
          aria-label="Tool"
          placeholder="All tools"
          data={toolData}
          value={value.tool}
          onChange={(tool) => set({ tool })}
          searchable
          clearable
          nothingFoundMessage="No such tool"
        />
        <MultiSelect
          size="sm"
          w={260}
          aria-label="Status"
          placeholder={value.status.length ? undefined : 'Any status'}
          data={InvocationStatus.options.map((s) => ({ value: s, label: STATUS_LABEL[s] }))}
          value={value.status}
          onChange={(status) => set({ status: status as InvocationStatus[] })}
          // Not searchable: once a status is chosen the text field needs no room, so two pills fit on one line.
          styles={value.status.length ? { inputField: { minWidth: 0, width: 0, flex: 0 } } : undefined}
          clearSectionMode="clear"
          clearable
        />
        <Select
          size="sm"
          w={150}
          aria-label="Way in"
          placeholder="Any way in"
          data={CallerVia.options.map((via) => ({ value: via, label: VIA_LABEL[via] }))}
          value={value.via}
          onChange={(via) => set({ via: via as CallerVia | null })}
          clearable
        />
        <Select
          size="sm"
          w={160}
          aria-label="Caller"
          placeholder="Any caller"
          data={callerData}
          value={value.caller}
          onChange={(caller) => set({ caller: caller === null ? null : String(caller) })}
          searchable
          clearable
          nothingFoundMessage="No such agent"
        />
        {(replicas.length > 1 || value.replica) && (
          <Select
            size="sm"
            w={170}
            aria-label="Replica"
            placeholder="Any replica"
            data={[...new Set([...replicas, ...(value.replica ? [value.replica] : [])])]}
            value={value.replica ?? null}
            onChange={(replica) => set({ replica })}
            searchable
            clearable
          />
        )}
        <TimeRangePicker value={value.range} onChange={(range) => set({ range })} keys={['15m', '1h', '24h', '7d', 'all', 'custom']} />
        <ClearableTextInput
          size="sm"
          style={{ flex: 1, minWidth: 180 }}
          aria-label="Search"
          placeholder="Search tool, arguments, result, error"
          leftSection={<IconSearch size={14} />}
          value={value.text}
          onValueChange={(text) => set({ text })}
          clearLabel="Clear search"
        />
        <ClearableTextInput
          size="sm"
          w={200}
          aria-label="Trace id"
          placeholder="Trace id"
          ff="monospace"
          value={value.trace}
          onValueChange={(trace) => set({ trace })}
          error={value.trace.trim() && !traceIdOf(value.trace) ? '32 hex digits' : undefined}
          clearLabel="Clear trace id"
        />
        {value.run && (
          <Badge
            size="lg"
            radius="sm"
            variant="light"
            tt="none"
            leftSection={<IconPlayerPlay size={12} />}
            rightSection={<CloseButton size="xs" variant="transparent" aria-label="Show calls of every run" onClick={() => set({ run: null })} />}
          >
            Run: {runLabel ?? value.run.slice(0, 8)}
          </Badge>
        )}
        {hasFilters(value) && (
          <Button size="sm" variant="subtle" color="gray" leftSection={<IconFilterOff size={14} />} onClick={() => onChange(NO_FILTERS)}>
            Clear
          </Button>
        )}
      </Group>
    </Paper>
  );
}

function groupSources(sources: string[]) {
  const groups = new Map<string, string[]>();
  for (const source of [...sources].sort()) {
    const kind = source.slice(0, source.indexOf(':'));
    groups.set(kind, [...(groups.get(kind) ?? []), source]);
  }
  return [...groups].map(([kind, items]) => ({ group: KIND_GROUP[kind] ?? kind, items }));
}
