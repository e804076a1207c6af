import type { Diagnostic } from '../../../../../shared/resources/diagnostics';

export type WorkspaceLanguage = 'yaml' | 'json';

/** A spot to scroll to and put the cursor on; `seq` repeats a request for the same spot. */
export interface RevealRequest {
  line: number;
  column: number;
  seq: number;
}

export interface YamlEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** The accessible name of the text area. */
  label: string;
  /** The document's URI, e.g. `file:///workspace/servers.yaml`; the YAML schemas are matched against it. */
  modelPath: string;
  language: WorkspaceLanguage;
  /** Checked by the backend; shown as inline markers. */
  diagnostics: Diagnostic[];
  /** Ctrl/Cmd+S inside the editor. */
  onSave: () => void;
  reveal?: RevealRequest;
  /** The JSON Schema the editor completes, documents and checks against. */
  schema?: unknown;
  height: string;
}

export interface YamlDiffProps {
  /** The file as saved. */
  original: string;
  /** The draft. */
  modified: string;
  language: WorkspaceLanguage;
  /** Unique per file, e.g. the workspace path. */
  modelKey: string;
  height: string;
}
