import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESOURCE_TEMPLATES } from '../../shared/resources/templates';
import { parseCollection } from '../collections/collectionYaml';
import { silentLogger } from '../platform/Logger';
import { Workspace } from './Workspace';

/** Resources → New file: every template is read by the workspace as its kind, with no problem at all. */
describe('new-file templates', () => {
  it('offers one per kind', () => {
    expect(RESOURCE_TEMPLATES.map((template) => template.kind)).toEqual(['McpServer', 'Tool', 'ToolPermission', 'LanguageTool', 'LanguageAgent', 'ClawPod', 'EvalSuite', 'Collection']);
  });

  it('each workspace template, saved under its offered name, is a valid document of its kind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooldeck-templates-'));
    const templates = RESOURCE_TEMPLATES.filter((template) => template.kind !== 'Collection');
    for (const template of templates) {
      expect(template.checkPath(template.path), template.kind).toBeUndefined();
      mkdirSync(dirname(join(dir, template.path)), { recursive: true });
      writeFileSync(join(dir, template.path), template.text);
    }
    const workspace = new Workspace({ dir, logger: silentLogger, watch: false });
    await workspace.load();
    try {
      for (const template of templates) {
        const file = workspace.read(template.path);
        expect([...file.diagnostics, ...file.parsed.flatMap((doc) => doc.diagnostics)], template.kind).toEqual([]);
        expect([file.errors, file.warnings], template.kind).toEqual([0, 0]);
        expect(file.parsed.map((doc) => doc.kind), template.kind).toEqual([template.kind]);
      }
    } finally {
      workspace.close();
    }
  });

  it('the Collection template is a valid collection', () => {
    const template = RESOURCE_TEMPLATES.find((item) => item.kind === 'Collection')!;
    expect(template.checkPath(template.path)).toBeUndefined();
    expect(parseCollection(template.text).collection).toMatchObject({ name: template.path, requests: [{ name: 'echo a variable', target: 'mcp:my-server' }] });
  });

  it('a name the workspace would read as another kind is refused with a sentence', () => {
    const check = (kind: string, path: string) => RESOURCE_TEMPLATES.find((item) => item.kind === kind)!.checkPath(path);
    expect(check('EvalSuite', 'suites/mine.yml')).toBe('An eval suite lives in the evals/ folder: evals/<name>.yml');
    expect(check('ClawPod', 'agents.yml')).toBe('A pod file is named claw-pod.yml or <pod>.claw-pod.yml');
    expect(check('ClawPod', 'team/claw-pod.yaml')).toBeUndefined();
    expect(check('McpServer', 'server.json')).toBe('Must end in .yaml or .yml');
    expect(check('Collection', '../escape')).toMatch(/^A collection's name: /);
  });
});
