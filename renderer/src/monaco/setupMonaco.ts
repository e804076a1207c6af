import { loader } from '@monaco-editor/react';
// The editor core and only the languages Tooldeck edits (YAML, JSON), not the ~80 languages and
// the TypeScript/CSS/HTML services `monaco-editor`'s main entry brings.
import * as editorCore from 'monaco-editor/esm/vs/editor/edcore.main.js';
import 'monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js';
import 'monaco-editor/esm/vs/language/json/monaco.contribution.js';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker?worker';
import { configureMonacoYaml, type SchemasSettings } from 'monaco-yaml';
import YamlWorker from 'monaco-yaml/yaml.worker?worker';

/** The same API object as `monaco-editor` (the JSON contribution adds `languages.json` to it). */
const monaco = editorCore as unknown as typeof import('monaco-editor');

// Monaco comes from the bundle, never a CDN (the CSP would refuse it and the app must work offline);
// its language workers are bundled files too.
self.MonacoEnvironment = {
  getWorker(_workerId, label) {
    if (label === 'json') return new JsonWorker();
    if (label === 'yaml') return new YamlWorker();
    return new EditorWorker();
  },
};
loader.config({ monaco });

/**
 * monaco-yaml starts its worker the older way, by `label` and `createData`. `monaco-editor`'s full
 * entry adapts that call onto the editor core's `createWebWorker({ worker })`; the editor core
 * alone does not, and the worker would answer every request with "Missing requestHandler". This is
 * the same adaptation: the worker comes from MonacoEnvironment.getWorker above, and its first two
 * messages are the ones the worker's bootstrap expects (a message to ignore, then the create data).
 */
type LegacyWorkerOptions = { label?: string; moduleId?: string; createData?: unknown; host?: unknown; keepIdleModels?: boolean; worker?: unknown };
const createWorkerClient = monaco.editor.createWebWorker as unknown as (options: LegacyWorkerOptions) => unknown;
(monaco.editor as { createWebWorker: unknown }).createWebWorker = (options: LegacyWorkerOptions) => {
  if (options.worker !== undefined) return createWorkerClient(options);
  const worker = Promise.resolve(self.MonacoEnvironment!.getWorker!('workerMain.js', options.label ?? 'monaco-editor-worker')).then((started) => {
    started.postMessage('ignore');
    started.postMessage(options.createData);
    return started;
  });
  return createWorkerClient({ worker, host: options.host, keepIdleModels: options.keepIdleModels });
};

const schemasByModel = new Map<string, unknown>();

function applySchemas() {
  monaco.languages.json.jsonDefaults.setDiagnosticsOptions({
    validate: true,
    allowComments: false,
    enableSchemaRequest: false,
    schemaValidation: 'error',
    schemas: [...schemasByModel].map(([modelUri, schema]) => ({ uri: `${modelUri}.schema`, fileMatch: [modelUri], schema })),
  });
}

/**
 * Validates one model against a JSON Schema, so schema errors show as inline markers. The JSON
 * defaults are global to Monaco; this keeps one entry per model and returns its removal.
 */
export function registerModelSchema(modelUri: string, schema: unknown): () => void {
  schemasByModel.set(modelUri, schema);
  applySchemas();
  return () => {
    if (schemasByModel.get(modelUri) !== schema) return;
    schemasByModel.delete(modelUri);
    applySchemas();
  };
}

// Schemas come from the backend, never fetched by URL: the CSP allows no such requests.
const yamlOptions = { enableSchemaRequest: false, validate: true, hover: true, completion: true };
const yaml = configureMonacoYaml(monaco, { ...yamlOptions, schemas: [] });

/** Sets the JSON Schemas the YAML editor validates, completes and documents against (replacing earlier ones). */
export function setYamlSchemas(schemas: SchemasSettings[]): void {
  void yaml.update({ ...yamlOptions, schemas });
}

export { monaco };
