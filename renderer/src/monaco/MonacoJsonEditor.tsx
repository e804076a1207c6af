import { Box, Loader, useComputedColorScheme } from '@mantine/core';
import Editor, { type OnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import type { JsonEditorProps } from './JsonEditorProps';
import { monaco, registerModelSchema } from './setupMonaco';

/** Monaco on a JSON document, with `schema` registered so schema errors are marked inline. */
export default function MonacoJsonEditor({ value, onChange, label, modelPath, schema, onSubmit, invalid, minHeight = 160, maxHeight = 480 }: JsonEditorProps) {
  const scheme = useComputedColorScheme('light');
  const [height, setHeight] = useState(minHeight);
  const onSubmitRef = useRef(onSubmit);
  onSubmitRef.current = onSubmit;
  // The JSON service matches schemas against the decoded URI.
  const modelUri = monaco.Uri.parse(modelPath).toString(true);

  useEffect(() => (schema ? registerModelSchema(modelUri, schema) : undefined), [modelUri, schema]);

  const onMount: OnMount = (editor) => {
    // Ctrl/Cmd+Enter would insert a line; here it submits, as everywhere else in the panel.
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => onSubmitRef.current?.());
    const fit = () => setHeight(Math.min(maxHeight, Math.max(minHeight, editor.getContentHeight())));
    editor.onDidContentSizeChange(fit);
    fit();
  };

  return (
    <Box
      style={{
        border: `1px solid ${invalid ? 'var(--mantine-color-error)' : 'var(--mantine-color-default-border)'}`,
        borderRadius: 'var(--mantine-radius-md)',
        overflow: 'hidden',
        paddingTop: 6,
        background: scheme === 'dark' ? '#1e1e1e' : '#fffffe',
      }}
    >
      <Editor
        height={height}
        language="json"
        path={modelPath}
        value={value}
        onChange={(next) => onChange(next ?? '')}
        onMount={onMount}
        theme={scheme === 'dark' ? 'vs-dark' : 'light'}
        loading={<Loader size="sm" aria-label="Loading editor" />}
        options={{
          ariaLabel: label,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          automaticLayout: true,
          fontFamily: '"JetBrains Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
          fontSize: 13,
          lineNumbersMinChars: 3,
          tabSize: 2,
          renderLineHighlight: 'none',
          fixedOverflowWidgets: true,
          scrollbar: { alwaysConsumeMouseWheel: false },
          overviewRulerLanes: 0,
          folding: true,
          formatOnPaste: true,
        }}
      />
    </Box>
  );
}
