import { Button, Menu } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconChevronDown, IconDownload, IconFileSpreadsheet, IconJson } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ExportFormat, InvocationFilter } from '../../../../shared/history';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';

const MIME: Record<ExportFormat, string> = { json: 'application/json', csv: 'text/csv' };

/** Saves the calls that match the filter (not just the loaded rows) as JSON or CSV. */
export function ExportMenu({ filter, disabled }: { filter: InvocationFilter; disabled?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);

  const save = async (format: ExportFormat) => {
    setBusy(true);
    try {
      const text = await queryClient.fetchQuery({ ...trpc.history.export.queryOptions({ filter, format }), staleTime: 0 });
      const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
      downloadText(`tooldeck-calls-${stamp}.${format}`, text, MIME[format]);
    } catch (error) {
      notifications.show({ color: 'red', title: 'Export failed', message: error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" size="sm" leftSection={<IconDownload size={16} />} rightSection={<IconChevronDown size={14} />} loading={busy} disabled={disabled}>
          Export
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Calls matching the filters</Menu.Label>
        <Menu.Item leftSection={<IconJson size={16} />} onClick={() => void save('json')}>
          Export as JSON
        </Menu.Item>
        <Menu.Item leftSection={<IconFileSpreadsheet size={16} />} onClick={() => void save('csv')}>
          Export as CSV
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
