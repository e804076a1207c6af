import { ActionIcon, AppShell, Badge, Box, Button, Center, Divider, Group, Kbd, Loader, NavLink, ScrollArea, Text, Tooltip, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { Suspense } from 'react';
import { IconMoon, IconSearch, IconStack2, IconSun } from '@tabler/icons-react';
import { openCommandPalette } from './CommandPalette';
import { DesktopEvents } from './DesktopEvents';
import { HistoryStoreNotice } from '../features/history/HistoryStoreNotice';
import { ApprovalsHeaderButton } from '../features/approvals/ApprovalsHeaderButton';
import { StartHere } from '../features/guide/StartHere';
import type { LinkKind } from '../rpc/client';
import { sectionGroups } from './sectionIds';
import { sections } from './sections';
import { useLocation, useNavigate } from './useSection';

export function AppLayout({ linkKind }: { linkKind: LinkKind }) {
  const { section: sectionId } = useLocation();
  const navigate = useNavigate();
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('light');
  const current = sections.find((s) => s.id === sectionId) ?? sections[0]!;
  const Current = current.component;

  const navItem = (s: (typeof sections)[number]) => (
    <NavLink
      key={s.id}
      component="button"
      label={s.label}
      leftSection={<s.icon size={18} stroke={1.6} />}
      rightSection={s.badge ? <s.badge /> : undefined}
      active={s.id === current.id}
      aria-current={s.id === current.id ? 'page' : undefined}
      onClick={() => navigate(s.id)}
      variant="light"
      styles={{ root: { borderRadius: 'var(--mantine-radius-md)', paddingBlock: 5 } }}
    />
  );
  const bySection = new Map(sections.map((s) => [s.id, s]));

  return (
    <AppShell header={{ height: 52 }} navbar={{ width: 220, breakpoint: 0 }} padding="lg">
      <DesktopEvents />
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap={8}>
            <IconStack2 size={22} stroke={1.8} color="var(--mantine-color-indigo-6)" aria-hidden />
            <Text fw={700} size="lg">
              Tooldeck
            </Text>
            <Badge variant="light" color={linkKind === 'ipc' ? 'teal' : 'blue'} size="sm" aria-label={`Connected over ${linkKind === 'ipc' ? 'Electron IPC' : 'HTTP'}`}>
              {linkKind === 'ipc' ? 'desktop' : 'browser mode'}
            </Badge>
          </Group>
          <Group gap="xs">
          <ApprovalsHeaderButton />
          <Button variant="default" size="xs" leftSection={<IconSearch size={14} />} rightSection={<Kbd size="xs">Ctrl K</Kbd>} onClick={openCommandPalette} aria-label="Open command palette" w={260} styles={{ inner: { justifyContent: 'space-between' } }}>
            <Text size="xs" c="dimmed">
              Search tools and servers
            </Text>
          </Button>
          <Tooltip label={scheme === 'dark' ? 'Light theme' : 'Dark theme'}>
            <ActionIcon variant="subtle" color="gray" aria-label="Toggle color scheme" onClick={() => setColorScheme(scheme === 'dark' ? 'light' : 'dark')}>
              {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
            </ActionIcon>
          </Tooltip>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Sections">
        <AppShell.Section grow component={ScrollArea}>
          <Box component="nav" aria-label="Main">
            {sectionGroups.map((group) => (
              <Box key={group.label} role="group" aria-label={group.label} mb={6}>
                <Text size="xs" fw={700} c="dimmed" tt="uppercase" px="sm" pt={4} pb={2} aria-hidden>
                  {group.label}
                </Text>
                {group.ids.map((id) => navItem(bySection.get(id)!))}
              </Box>
            ))}
          </Box>
        </AppShell.Section>
        <AppShell.Section>
          <Divider my="xs" />
          {sections.filter((s) => s.footer).map(navItem)}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <HistoryStoreNotice />
        <StartHere />
        <Box component="section" aria-label={current.label}>
          <Suspense
            fallback={
              <Center py="xl">
                <Loader aria-label={`Loading ${current.label}`} />
              </Center>
            }
          >
            <Current />
          </Suspense>
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}
