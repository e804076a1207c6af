import type { JsonSchema } from '../components/jsonSchema';

export interface JsonEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** The accessible name, e.g. "Arguments JSON". */
  label: string;
  /**
   * Names the editor's document, e.g. `inmemory://tooldeck/arguments/echo.json`; unique per editor on
   * screen (Monaco matches `schema` to it), so keep it to letters, digits, `.`, `-` and `_`.
   */
  modelPath: string;
  /** Checked inline as the text changes, where the editor can. */
  schema?: JsonSchema;
  /** Ctrl/Cmd+Enter inside the editor. */
  onSubmit?: () => void;
  /** Marks the editor as holding a value the caller rejects. */
  invalid?: boolean;
  minHeight?: number;
  maxHeight?: number;
}
