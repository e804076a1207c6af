import { Anchor, Button, Group, NumberInput, Popover, Stack, Switch, Text } from '@mantine/core';
import { IconClock } from '@tabler/icons-react';
import type { InvokeTimeouts } from './types';

export interface TimeoutsPopoverProps {
  value: InvokeTimeouts;
  /** The tool's effective runtime: what applies when nothing is overridden. */
  defaults: InvokeTimeouts;
  onChange: (value: InvokeTimeouts) => void;
  disabled?: boolean;
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  if (seconds >= 120 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${Number(seconds.toFixed(1))} s`;
}

/** The call's timeouts, out of the way until wanted: per request, reset on progress, hard cap. */
export function TimeoutsPopover({ value, defaults, onChange, disabled }: TimeoutsPopoverProps) {
  const seconds = (ms: number) => ms / 1000;
  const setSeconds = (key: 'timeoutMs' | 'maxTotalTimeoutMs') => (input: string | number) => {
    const n = typeof input === 'number' ? input : Number(input);
    if (Number.isFinite(n) && n > 0) onChange({ ...value, [key]: Math.round(n * 1000) });
  };
  const isDefault =
    value.timeoutMs === defaults.timeoutMs && value.resetTimeoutOnProgress === defaults.resetTimeoutOnProgress && value.maxTotalTimeoutMs === defaults.maxTotalTimeoutMs;

  return (
    <Popover width={300} position="top-start" shadow="md" withArrow trapFocus>
      <Popover.Target>
        <Button variant="default" leftSection={<IconClock size={16} aria-hidden />} disabled={disabled} aria-label={`Timeouts: ${formatSeconds(value.timeoutMs)}`}>
          <Text span size="sm" c="dimmed">
            {formatSeconds(value.timeoutMs)}
          </Text>
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="sm">
          <Group justify="space-between">
            <Text fw={600} size="sm">
              Timeouts
            </Text>
            {!isDefault && (
              <Anchor component="button" type="button" size="xs" onClick={() => onChange(defaults)}>
                Use the tool's runtime
              </Anchor>
            )}
          </Group>
          <NumberInput
            label="Request timeout"
            description="Without a response or progress for this long, the call fails."
            suffix=" s"
            min={1}
            step={5}
            value={seconds(value.timeoutMs)}
            onChange={setSeconds('timeoutMs')}
          />
          <Switch
            label="Reset on progress"
            description="Each progress notification restarts the request timeout."
            checked={value.resetTimeoutOnProgress}
            onChange={(event) => onChange({ ...value, resetTimeoutOnProgress: event.currentTarget.checked })}
          />
          <NumberInput
            label="Maximum total"
            description="A hard cap, however much progress arrives."
            suffix=" s"
            min={1}
            step={60}
            value={seconds(value.maxTotalTimeoutMs)}
            onChange={setSeconds('maxTotalTimeoutMs')}
          />
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
