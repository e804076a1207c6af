import { Box, Group, Paper, Text } from '@mantine/core';

interface TooltipEntry {
  name?: string | number;
  value?: unknown;
  color?: string;
  dataKey?: unknown;
}

export interface ChartTooltipProps {
  active?: boolean;
  payload?: readonly TooltipEntry[];
  label?: unknown;
  formatLabel: (label: unknown) => string;
  formatValue: (value: number, name: string) => string;
}

/** Recharts' tooltip content in Mantine's look, readable in light and dark. */
export function ChartTooltip({ active, payload, label, formatLabel, formatValue }: ChartTooltipProps) {
  if (!active || !payload?.length) return null;
  return (
    <Paper withBorder shadow="md" radius="md" px="sm" py={6} style={{ pointerEvents: 'none' }}>
      <Text size="xs" fw={600} mb={4}>
        {formatLabel(label)}
      </Text>
      {payload.map((entry) => (
        <Group key={String(entry.dataKey ?? entry.name)} gap={8} justify="space-between" wrap="nowrap">
          <Group gap={6} wrap="nowrap">
            <Box w={8} h={8} style={{ borderRadius: 2, background: entry.color }} aria-hidden />
            <Text size="xs" c="dimmed">
              {entry.name}
            </Text>
          </Group>
          <Text size="xs" fw={600} ff="monospace">
            {typeof entry.value === 'number' ? formatValue(entry.value, String(entry.name)) : '—'}
          </Text>
        </Group>
      ))}
    </Paper>
  );
}
