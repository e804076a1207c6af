import { ActionIcon, CopyButton as MantineCopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export interface CopyButtonProps {
  value: string;
  /** The accessible name, e.g. "Copy result JSON". */
  label?: string;
  size?: 'xs' | 'sm' | 'md';
}

/** An icon button that copies `value` and says so for a moment. */
export function CopyButton({ value, label = 'Copy', size = 'sm' }: CopyButtonProps) {
  return (
    <MantineCopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} withArrow position="left">
          <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} size={size} aria-label={label} onClick={copy}>
            {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
          </ActionIcon>
        </Tooltip>
      )}
    </MantineCopyButton>
  );
}
