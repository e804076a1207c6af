import { Group, Select } from '@mantine/core';
import { DateTimePicker, type DatesRangeValue } from '@mantine/dates';
import { IconCalendar, IconClock } from '@tabler/icons-react';
import dayjs from 'dayjs';
import { useState } from 'react';
import { HOUR_MS, RANGE_LABEL, type RangeKey, type TimeRange } from './timeRange';

export interface TimeRangePickerProps {
  value: TimeRange;
  onChange: (range: TimeRange) => void;
  /** Offered keys, in order; `custom` shows a date-time range picker. */
  keys?: RangeKey[];
  size?: 'xs' | 'sm';
}

const FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** "Time range" select with the presets and a custom from–to picker (local time). */
export function TimeRangePicker({ value, onChange, keys = ['15m', '1h', '24h', '7d', 'custom'], size = 'sm' }: TimeRangePickerProps) {
  const [draft, setDraft] = useState<DatesRangeValue<string>>(() =>
    value.key === 'custom' ? [dayjs(value.from).format(FORMAT), dayjs(value.to).format(FORMAT)] : [null, null],
  );

  const pick = (key: string | null) => {
    if (!key || key === value.key) return;
    if (key !== 'custom') return onChange({ key: key as Exclude<RangeKey, 'custom'> });
    // Start from the last hour so the picker opens on something sensible and the view keeps data.
    const to = Date.now();
    const from = to - HOUR_MS;
    setDraft([dayjs(from).format(FORMAT), dayjs(to).format(FORMAT)]);
    onChange({ key: 'custom', from, to });
  };

  const pickDates = (next: DatesRangeValue<string>) => {
    setDraft(next);
    const [from, to] = next;
    if (!from || !to) return;
    const fromMs = dayjs(from).valueOf();
    const toMs = dayjs(to).valueOf();
    if (toMs > fromMs) onChange({ key: 'custom', from: fromMs, to: toMs });
  };

  return (
    <Group gap={6} wrap="nowrap">
      <Select
        size={size}
        w={170}
        aria-label="Time range"
        leftSection={<IconClock size={14} />}
        data={keys.map((key) => ({ value: key, label: RANGE_LABEL[key] }))}
        value={value.key}
        onChange={pick}
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      {value.key === 'custom' && (
        <DateTimePicker
          type="range"
          size={size}
          miw={300}
          aria-label="Custom range"
          leftSection={<IconCalendar size={14} />}
          valueFormat="MMM D HH:mm"
          value={draft}
          onChange={pickDates}
          maxDate={dayjs().add(1, 'day').format('YYYY-MM-DD')}
        />
      )}
    </Group>
  );
}
