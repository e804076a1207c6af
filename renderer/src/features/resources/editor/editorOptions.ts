import type { editor } from 'monaco-editor';

/** What the workspace editors share: the app's monospace font, no minimap, two-space indents. */
export const editorOptions: editor.IStandaloneEditorConstructionOptions = {
  minimap: { enabled: false },
  scrollBeyondLastLine: false,
  automaticLayout: true,
  fontFamily: '"JetBrains Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  fontSize: 13,
  lineNumbersMinChars: 3,
  tabSize: 2,
  insertSpaces: true,
  fixedOverflowWidgets: true,
  renderLineHighlight: 'line',
};
