import { Paper, Stack, Text, ThemeIcon, Title, type MantineColor } from '@mantine/core';
import type { ReactNode } from 'react';

interface EmptyStateProps {
  /** The section's icon, drawn at 30 px inside the round badge. */
  icon: ReactNode;
  /** The badge colour; the theme's primary colour when absent. */
  color?: MantineColor;
  /** "No servers yet". */
  title: string;
  /** What to do first, in a sentence or two. */
  description: ReactNode;
  /** How wide the description may run. */
  descriptionWidth?: number;
  /** The first actions (a button, or a group of them), drawn under the description as given. */
  actions: ReactNode;
}

/** What a section shows while it holds nothing yet: what it is for and the first thing to do. */
export function EmptyState({ icon, color, title, description, descriptionWidth = 480, actions }: EmptyStateProps) {
  return (
    <Paper withBorder p="xl" radius="lg">
      <Stack align="center" gap="sm" py="xl">
        <ThemeIcon size={56} radius="xl" variant="light" {...(color ? { color } : {})}>
          {icon}
        </ThemeIcon>
        <Title order={4}>{title}</Title>
        <Text c="dimmed" size="sm" ta="center" maw={descriptionWidth}>
          {description}
        </Text>
        {actions}
      </Stack>
    </Paper>
  );
}
