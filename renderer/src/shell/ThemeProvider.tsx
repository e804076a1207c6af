import { Badge, createTheme, MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';

const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  fontFamilyMonospace: '"JetBrains Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  headings: { fontWeight: '600' },
  components: {
    // Badges carry identifiers (mcp:everything, LanguageTool) and states beside ordinary labels: in
    // the labels' own case and font rather than Mantine's all-caps, so `mcp:github` stays readable.
    Badge: Badge.extend({ defaultProps: { tt: 'none' }, styles: { label: { fontWeight: 600, letterSpacing: 0 } } }),
  },
});

/** Light or dark follows the OS unless the user picks one. */
export function ThemeProvider({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <Notifications position="bottom-right" />
      <ModalsProvider>{children}</ModalsProvider>
    </MantineProvider>
  );
}
