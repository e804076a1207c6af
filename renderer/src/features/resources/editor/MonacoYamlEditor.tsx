import { Box, Loader, useComputedColorScheme } from '@mantine/core';
import Editor, { type OnMount } from '@monaco-editor/react';
import { useEffect, useRef, useState } from 'react';
import { monaco, registerModelSchema, setYamlSchemas } from '../../../monaco/setupMonaco';
import { editorOptions } from './editorOptions';
import type { YamlEditorProps } from './YamlEditorProps';

type CodeEditor = Parameters<OnMount>[0];

/** Monaco on a workspace file: monaco-yaml marks schema errors; the backend's diagnostics are marked too. */
export default function MonacoYamlEditor({ value, onChange, label, modelPath, language, diagnostics, onSave, reveal, schema, height }: YamlEditorProps) {
  const scheme = useComputedColorScheme('light');
  const [editor, setEditor] = useState<CodeEditor | null>(null);
  const onSaveRef = useRef(onSave);
  onSaveRef.current = onSave;

  // Both language services match schemas against the decoded URI.
  const modelUri = monaco.Uri.parse(modelPath).toString(true);

  useEffect(() => {
    if (!schema) return undefined;
    if (language === 'json') return registerModelSchema(modelUri, schema);
    setYamlSchemas([{ uri: 'tooldeck://schemas/workspace-document.json', fileMatch: [modelUri], schema: schema as object }]);
    return undefined;
  }, [language, modelUri, schema]);

  const onMount: OnMount = (mounted) => {
    // Ctrl/Cmd+S would reach the browser's "Save page"; here it saves the file.
    mounted.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => onSaveRef.current());
    setEditor(mounted);
  };

  useEffect(() => {
    const model = editor?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(
      model,
      'tooldeck',
      diagnostics.map((d) => ({
        severity: d.severity === 'error' ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
        message: d.path ? `${d.path}: ${d.message}` : d.message,
        code: d.code,
        startLineNumber: d.line,
        startColumn: d.column,
        endLineNumber: d.endLine,
        endColumn: d.endLine === d.line && d.endColumn <= d.column ? model.getLineMaxColumn(d.line) : d.endColumn,
      })),
    );
  }, [editor, diagnostics, value]);

  useEffect(() => {
    if (!editor || !reveal) return;
    editor.revealLineInCenter(reveal.line);
    editor.setPosition({ lineNumber: reveal.line, column: reveal.column });
    editor.focus();
  }, [editor, reveal]);

  return (
    <Box style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-md)', overflow: 'hidden', paddingTop: 6, background: scheme === 'dark' ? '#1e1e1e' : '#fffffe' }}>
      <Editor
        height={height}
        language={language}
        path={modelPath}
        value={value}
        onChange={(next) => onChange(next ?? '')}
        onMount={onMount}
        theme={scheme === 'dark' ? 'vs-dark' : 'light'}
        loading={<Loader size="sm" aria-label="Loading editor" />}
        options={{ ...editorOptions, ariaLabel: label, quickSuggestions: { other: true, comments: false, strings: true } }}
      />
    </Box>
  );
}
