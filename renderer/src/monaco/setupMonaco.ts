import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker?worker';
import { configureMonacoYaml, type SchemasSettings } from 'monaco-yaml';
import YamlWorker from 'monaco-yaml/yaml.worker?worker';

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
