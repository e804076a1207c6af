import { Box, Center, Group, Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export interface ChartCardProps {
  /** The chart's accessible name and heading, e.g. "Latency percentiles". */
  title: string;
  subtitle?: string;
  /** Legend or totals, right of the title. */
  aside?: ReactNode;
  height: number;
  /** Shown instead of the chart when there is nothing to draw. */
  empty?: string;
  children: ReactNode;
}

/** A titled panel holding one chart at a fixed height. */
export function ChartCard({ title, subtitle, aside, height, empty, children }: ChartCardProps) {
  return (
    <Paper withBorder radius="md" p="md" role="figure" aria-label={title}>
      <Group justify="space-between" align="flex-start" mb="xs" gap="xs">
        <div>
          <Text fw={600} size="sm">
            {title}
          </Text>
          {subtitle && (
            <Text size="xs" c="dimmed">
              {subtitle}
            </Text>
          )}
        </div>
        {aside}
      </Group>
      <Box h={height}>
        {empty ? (
          <Center h="100%">
            <Text size="sm" c="dimmed">
              {empty}
            </Text>
          </Center>
        ) : (
          children
        )}
      </Box>
    </Paper>
  );
}

export function LegendDot({ color, label }: { color: string; label: string }) {
  return (
    <Group gap={5} wrap="nowrap">
      <Box w={10} h={10} style={{ borderRadius: 3, background: color }} aria-hidden />
      <Text size="xs" c="dimmed">
        {label}
      </Text>
    </Group>
  );
}
