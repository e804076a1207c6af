import { Group, NumberInput, TagsInput, Text } from '@mantine/core';
import { useState } from 'react';
import { DEFAULT_LOAD_CONCURRENCY, MAX_LOAD_CONCURRENCY, MAX_LOAD_RPS, parseThreshold, type LoadOptionsInput } from '../../../../../shared/loadRuns';

export interface LoadSettings {
  rps: number;
  durationS: number;
  rampUpS: number;
  concurrency: number;
  thresholds: string[];
}

export const DEFAULT_LOAD_SETTINGS: LoadSettings = { rps: 10, durationS: 30, rampUpS: 0, concurrency: DEFAULT_LOAD_CONCURRENCY, thresholds: ['p95<200ms', 'error_rate<1%'] };

export function toLoadOptions(s: LoadSettings): LoadOptionsInput {
  return { rps: s.rps, durationMs: Math.round(s.durationS * 1000), rampUpMs: Math.round(s.rampUpS * 1000), concurrency: s.concurrency, thresholds: s.thresholds };
}

/** What is wrong with the settings, in one sentence, or undefined. */
export function loadSettingsProblem(s: LoadSettings): string | undefined {
  if (!(s.rps > 0) || s.rps > MAX_LOAD_RPS) return `The rate goes from above 0 to ${MAX_LOAD_RPS} per second.`;
  if (!(s.durationS >= 1) || s.durationS > 3600) return 'The duration goes from 1 s to 1 hour.';
  if (s.rampUpS < 0 || s.rampUpS >= s.durationS) return 'The ramp-up must be shorter than the duration.';
  return undefined;
}

const number = (value: string | number, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** Rate, duration, ramp-up, calls in flight and thresholds of a load run. */
export function LoadSettingsForm({ value, onChange, disabled }: { value: LoadSettings; onChange: (next: LoadSettings) => void; disabled?: boolean }) {
  const [thresholdError, setThresholdError] = useState<string>();
  const set = (patch: Partial<LoadSettings>) => onChange({ ...value, ...patch });
  const setThresholds = (next: string[]) => {
    const problems = next.map((t) => parseThreshold(t)).flatMap((p) => ('error' in p ? [p.error] : []));
    setThresholdError(problems[0]);
    set({ thresholds: next.filter((t) => !('error' in parseThreshold(t))) });
  };
  return (
    <Group gap="md" align="flex-start" wrap="wrap">
      <NumberInput size="xs" w={120} label="Rate" suffix=" /s" min={0.1} max={MAX_LOAD_RPS} decimalScale={2} value={value.rps} disabled={disabled} onChange={(v) => set({ rps: number(v, value.rps) })} description="Arrivals per second" />
      <NumberInput size="xs" w={110} label="Duration" suffix=" s" min={1} max={3600} value={value.durationS} disabled={disabled} onChange={(v) => set({ durationS: number(v, value.durationS) })} description="How long to send" />
      <NumberInput size="xs" w={110} label="Ramp-up" suffix=" s" min={0} max={Math.max(0, value.durationS - 1)} value={value.rampUpS} disabled={disabled} onChange={(v) => set({ rampUpS: number(v, 0) })} description="Climb from 0" />
      <NumberInput
        size="xs"
        w={120}
        label="Max in flight"
        min={1}
        max={MAX_LOAD_CONCURRENCY}
        value={value.concurrency}
        disabled={disabled}
        onChange={(v) => set({ concurrency: Math.max(1, Math.floor(number(v, value.concurrency))) })}
        description="Concurrency cap"
      />
      <TagsInput
        size="xs"
        style={{ flex: 1, minWidth: 260 }}
        label="Thresholds"
        description="e.g. p95<200ms, p99.9<1s, error_rate<1%, rps>=45 — Enter to add"
        placeholder={value.thresholds.length ? '' : 'p95<200ms'}
        value={value.thresholds}
        onChange={setThresholds}
        disabled={disabled}
        error={thresholdError}
        clearable
        acceptValueOnBlur
        splitChars={[',']}
      />
      {loadSettingsProblem(value) && (
        <Text size="xs" c="red" w="100%" role="alert">
          {loadSettingsProblem(value)}
        </Text>
      )}
    </Group>
  );
}
