import { Button, type ButtonProps } from '@mantine/core';
import { IconBookmarkPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { SaveToCollectionDialog, type SaveSource } from './SaveToCollectionDialog';

/** "Save to collection" and its dialog; the source is read when the dialog opens. */
export function SaveToCollectionButton({ source, disabled, size = 'sm' }: { source: () => SaveSource; disabled?: boolean; size?: ButtonProps['size'] }) {
  const [opened, setOpened] = useState<SaveSource | null>(null);
  return (
    <>
      <Button variant="default" size={size} leftSection={<IconBookmarkPlus size={16} aria-hidden />} disabled={disabled} onClick={() => setOpened(source())}>
        Save to collection
      </Button>
      {opened && <SaveToCollectionDialog opened source={opened} onClose={() => setOpened(null)} />}
    </>
  );
}
