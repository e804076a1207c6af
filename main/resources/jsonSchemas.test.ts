import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { clawDescriptorSchema } from '../../shared/resources/clawDescriptor';
import { clawPodSchema } from '../../shared/resources/clawPod';
import { evalSuiteSchema } from '../../shared/evals';
import { workspaceDocumentSchema } from '../../shared/resources/kinds';
import { normalizeResource } from './normalizeResource';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateDocument = ajv.compile(workspaceDocumentSchema);
const exampleDir = join(import.meta.dirname, '../../examples/workspace');

const validatePod = ajv.compile(clawPodSchema);
const validateSuite = ajv.compile(evalSuiteSchema);

/** The editor's verdict (JSON Schema) next to the validator's (the kinds' rules); pod files and eval suites are told by their name. */
function verdicts(object: unknown, fileName?: string) {
  const pod = fileName?.includes('claw-pod.');
  const suite = fileName?.startsWith('evals/');
  return { schema: pod ? validatePod(object) : suite ? validateSuite(object) : validateDocument(object), rules: normalizeResource(object, { fileName }).stored !== undefined };
}

describe('the JSON Schemas the YAML editor loads', () => {
  it('compile as draft-07 schemas (descriptor included)', () => {
    expect(() => ajv.compile(clawDescriptorSchema)).not.toThrow();
    expect(() => ajv.compile(clawPodSchema)).not.toThrow();
  });

  it('accept every document of the example workspace, as the validator does', () => {
    // The example's evals/ folder included: every YAML file, at any depth, named as the workspace names it.
    for (const entry of readdirSync(exampleDir, { recursive: true, withFileTypes: true }).filter((item) => item.isFile() && /\.ya?ml$/.test(item.name))) {
      const file = relative(exampleDir, join(entry.parentPath, entry.name));
      for (const doc of parseAllDocuments(readFileSync(join(exampleDir, file), 'utf8')) as Array<{ toJS(): unknown }>) {
        expect(verdicts(doc.toJS(), file), file).toEqual({ schema: true, rules: true });
      }
    }
  });

  it('reject what the validator rejects for the rules a schema can say', () => {
    const tool = (spec: Record<string, unknown>) => ({ apiVersion: 'orloj.dev/v1', kind: 'Tool', metadata: { name: 't' }, spec });
    const cases = [
      tool({ type: 'ftp' }),
      tool({ type: 'mcp' }),
      tool({ risk_level: 'extreme' }),
      tool({ operation_classes: ['execute'] }),
      tool({ runtime: { timeout: 'abc' } }),
      tool({ runtime: { retry: { jitter: 'random' } } }),
      tool({ auth: { profile: 'api_key_header', secretRef: 's' } }),
      tool({ auth: { profile: 'oauth2_client_credentials', secretRef: 's' } }),
      tool({ auth: { profile: 'basic' } }),
      { apiVersion: 'orloj.dev/v1', kind: 'McpServer', metadata: { name: 's' }, spec: { transport: 'stdio' } },
      { apiVersion: 'orloj.dev/v1', kind: 'McpServer', metadata: { name: 's' }, spec: { transport: 'http' } },
      { apiVersion: 'orloj.dev/v1', kind: 'McpServer', metadata: { name: 's' }, spec: { transport: 'stdio', command: 'x', env: [{ name: 'A', value: 'v', secretRef: 's' }] } },
      { apiVersion: 'orloj.dev/v1', kind: 'ToolPermission', metadata: { name: 'p' }, spec: { apply_mode: 'scoped' } },
      { apiVersion: 'orloj.dev/v1', kind: 'ToolPermission', metadata: { name: 'p' }, spec: { operation_rules: [{ verdict: 'maybe' }] } },
      { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', metadata: { name: 'x' }, spec: { image: 'i', port: 70000 } },
      { apiVersion: 'orloj.dev/v1', kind: 'Agent', metadata: { name: 'a' } },
    ];
    for (const object of cases) expect(verdicts(object), JSON.stringify(object)).toEqual({ schema: false, rules: false });
  });
});
