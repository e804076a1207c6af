import { Alert, Box, Center, Group, Loader, Paper, SegmentedControl, Select, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconSearch, IconTool } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { sourceId } from '../../../../shared/invocation';
import { useLocation, useNavigate } from '../../shell/useSection';
import { AgentAccessView } from './AgentAccessView';
import { LockReviewView } from '../lock/LockReviewView';
import { useLintFindings } from '../lock/useLintFindings';
import { ToolDetail } from './ToolDetail';
import { ToolList } from './ToolList';
import { useTools } from './useTools';
import { ClearableTextInput } from '../../components/ClearableTextInput';

export function ToolsView() {
  const { tools, error } = useTools();
  const { params } = useLocation();
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const [source, setSource] = useState<string | null>(null);

  const sources = useMemo(() => [...new Set((tools ?? []).map((t) => sourceId(t.source)))].sort(), [tools]);
  const visible = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return (tools ?? [])
      .filter((t) => !source || sourceId(t.source) === source)
      .filter((t) => {
        if (words.length === 0) return true;
        const haystack = `${t.toolName} ${t.title ?? ''} ${t.description ?? ''}`.toLowerCase();
        return words.every((w) => haystack.includes(w));
      })
      .sort((a, b) => a.toolName.localeCompare(b.toolName) || a.name.localeCompare(b.name));
  }, [tools, query, source]);
  const selected = tools?.find((t) => t.name === params.tool);
  const view = params.view === 'agents' || params.view === 'review' ? params.view : 'catalog';
  const findings = useLintFindings(tools);

  return (
    // The catalog fits the window: the list and the detail scroll on their own, the page does not.
    <Stack gap="md" h={view === 'catalog' ? 'calc(100dvh - 52px - 2 * var(--mantine-spacing-lg))' : undefined}>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Tools</Title>
          <Text c="dimmed" size="sm">
            {view === 'catalog'
              ? 'Every callable tool across servers, with its schema, annotations and policy.'
              : view === 'agents'
                ? 'What each agent of the workspace may call, and its compiled tools.json and config.yaml.'
                : 'Tool definitions pinned in tooldeck.lock: what changed, what is held for review, and their history.'}
          </Text>
        </div>
        <SegmentedControl
          value={view}
          onChange={(next) => navigate('tools', next === 'catalog' ? {} : { view: next })}
          data={[
            { value: 'catalog', label: 'Catalog' },
            { value: 'agents', label: 'Agent access' },
            { value: 'review', label: 'Review' },
          ]}
          aria-label="Tools view"
        />
      </Group>
      {error && <Alert color="red">{error}</Alert>}
      {view === 'agents' ? (
        <AgentAccessView selected={params.agent} onSelect={(agent) => navigate('tools', { view: 'agents', agent })} toolsVersion={tools} />
      ) : view === 'review' ? (
        <LockReviewView selected={params.source} onSelect={(source) => navigate('tools', { view: 'review', source })} />
      ) : !tools ? (
        <Center py="xl">
          <Loader aria-label="Loading tools" />
        </Center>
      ) : (
        <Group align="stretch" gap="lg" wrap="nowrap" style={{ flex: 1, minHeight: 0 }}>
          <Paper withBorder w={340} p="xs" style={{ flexShrink: 0, display: 'flex', flexDirection: 'column' }}>
            <Stack gap={6} style={{ flex: 1, minHeight: 0 }}>
              <ClearableTextInput
                leftSection={<IconSearch size={14} />}
                placeholder="Search name, title, description"
                value={query}
                onValueChange={setQuery}
                aria-label="Search tools"
                clearLabel="Clear search"
              />
              <Select placeholder="All sources" data={sources} value={source} onChange={setSource} clearable aria-label="Filter by source" />
              <Text size="xs" c="dimmed" px={4}>
                {visible.length} of {tools.length} tools
              </Text>
              <ToolList tools={visible} selected={selected?.name} onSelect={(name) => navigate('tools', { tool: name })} findings={findings} />
            </Stack>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0, overflowY: 'auto' }}>
            {selected ? (
              <ToolDetail key={selected.name} tool={selected} findings={findings.get(selected.name) ?? []} />
            ) : (
              <Paper withBorder p="xl" radius="lg">
                <Stack align="center" gap="sm" py="xl">
                  <ThemeIcon size={56} radius="xl" variant="light">
                    <IconTool size={30} />
                  </ThemeIcon>
                  <Text fw={600}>{tools.length ? 'Pick a tool' : 'No tools yet'}</Text>
                  <Text c="dimmed" size="sm" ta="center" maw={420}>
                    {tools.length ? 'Its description, schemas, annotations and an invoke form appear here.' : 'Connect a server in Servers and its tools appear here.'}
                  </Text>
                </Stack>
              </Paper>
            )}
          </Box>
        </Group>
      )}
    </Stack>
  );
}
