import { Button, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect } from 'react';
import type { DesktopEvent } from '../../../shared/desktop';
import { useNavigate } from './useSection';

/** What the desktop app's preload exposes beside the tRPC bridge; absent in browser mode. */
export interface DesktopBridge {
  onEvent(listener: (event: DesktopEvent) => void): () => void;
  installUpdate(): void;
}

export function getDesktopBridge(): DesktopBridge | undefined {
  return (globalThis as { tooldeckDesktop?: DesktopBridge }).tooldeckDesktop;
}

/**
 * The desktop app's own events: a `tooldeck://` link selects its server, tool or agent; a link the
 * app refused to open says why; a downloaded update offers a restart. Renders nothing itself.
 */
export function DesktopEvents() {
  const navigate = useNavigate();
  useEffect(() => {
    const bridge = getDesktopBridge();
    if (!bridge) return;
    return bridge.onEvent((event) => {
      if (event.kind === 'navigate') return navigate(event.section, event.params);
      if (event.kind === 'link-blocked') {
        notifications.show({ color: 'yellow', title: 'Link not opened', message: `${event.reason}: ${event.url}` });
        return;
      }
      notifications.show({
        id: 'update-ready',
        autoClose: false,
        title: `Tooldeck ${event.version} is ready to install`,
        message: (
          <Stack gap="xs" align="flex-start">
            <Text size="sm">It installs when you quit, or now.</Text>
            <Button size="xs" onClick={() => bridge.installUpdate()}>
              Restart and update
            </Button>
          </Stack>
        ),
      });
    });
  }, [navigate]);
  return null;
}
