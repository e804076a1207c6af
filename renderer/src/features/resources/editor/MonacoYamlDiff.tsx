import { Box, Loader, useComputedColorScheme } from '@mantine/core';
import { DiffEditor } from '@monaco-editor/react';
import '../../../monaco/setupMonaco';
import { editorOptions } from './editorOptions';
import type { YamlDiffProps } from './YamlEditorProps';

/** Monaco's diff editor: the saved file on the left, the draft (read-only here) on the right. */
export default function MonacoYamlDiff({ original, modified, language, modelKey, height }: YamlDiffProps) {
  const scheme = useComputedColorScheme('light');
  return (
    <Box style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)', overflow: 'hidden' }}>
      <DiffEditor
        height={height}
        language={language}
        original={original}
        modified={modified}
        // Own models, apart from the editor's, so closing the diff leaves the draft's model alone. They
        // are kept on unmount: disposing them first makes the diff widget throw while it lets go.
        originalModelPath={`inmemory://tooldeck/diff/saved/${modelKey}`}
        modifiedModelPath={`inmemory://tooldeck/diff/draft/${modelKey}`}
        keepCurrentOriginalModel
        keepCurrentModifiedModel
        theme={scheme === 'dark' ? 'vs-dark' : 'light'}
        loading={<Loader size="sm" aria-label="Loading diff" />}
        options={{ ...editorOptions, readOnly: true, originalEditable: false, renderSideBySide: true, ariaLabel: 'Changes against the saved file' }}
      />
    </Box>
  );
}
