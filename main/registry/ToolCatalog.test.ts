import { describe, expect, it } from 'vitest';
import type { ToolSource } from '../../shared/invocation';
import type { CatalogChange } from '../../shared/registry';
import { createToolEntry } from './createToolEntry';
import { FakeExecutor } from './testing/FakeExecutor';
import { ToolCatalog } from './ToolCatalog';

const github: ToolSource = { kind: 'mcp', name: 'github' };
const entry = (source: ToolSource, name: string, extra: Partial<Parameters<typeof createToolEntry>[0]> = {}) =>
  createToolEntry({ source, tool: { name, description: `${name} tool` }, ...extra });

describe('ToolCatalog', () => {
  it('names entries <source>.<tool> and finds them by name with their executor', () => {
    const catalog = new ToolCatalog();
    const executor = new FakeExecutor();
    catalog.replaceSource(github, [entry(github, 'create_issue'), entry(github, 'list_issues')], executor);
    expect(catalog.get('mcp:github.create_issue')?.toolName).toBe('create_issue');
    expect(catalog.resolve('mcp:github.list_issues')?.executor).toBe(executor);
    expect(catalog.get('mcp:github.nope')).toBeUndefined();
    expect(catalog.size).toBe(2);
  });

  it('replaces a rediscovered source as a whole and reports what changed in one event', () => {
    const catalog = new ToolCatalog();
    const changes: CatalogChange[] = [];
    catalog.onChange((change) => changes.push(change));
    catalog.replaceSource(github, [entry(github, 'a'), entry(github, 'b')], new FakeExecutor());
    const second = new FakeExecutor();
    catalog.replaceSource(github, [entry(github, 'b'), entry(github, 'c')], second);

    expect(catalog.list().map((e) => e.name)).toEqual(['mcp:github.b', 'mcp:github.c']);
    expect(catalog.resolve('mcp:github.b')?.executor).toBe(second);
    expect(changes).toEqual([
      { source: github, added: ['mcp:github.a', 'mcp:github.b'], removed: [], updated: [] },
      { source: github, added: ['mcp:github.c'], removed: ['mcp:github.a'], updated: ['mcp:github.b'] },
    ]);
  });

  it('keeps the previous entries when a rediscovery is rejected (nothing half-applied)', () => {
    const catalog = new ToolCatalog();
    catalog.replaceSource(github, [entry(github, 'a')], new FakeExecutor());
    expect(() => catalog.replaceSource(github, [entry(github, 'b'), entry(github, 'b')], new FakeExecutor())).toThrow(/mcp:github lists the tool b twice/);
    expect(catalog.list().map((e) => e.name)).toEqual(['mcp:github.a']);
  });

  it('refuses a name already held by another source, naming both (RockBot: duplicate registration throws)', () => {
    const catalog = new ToolCatalog();
    const dotted: ToolSource = { kind: 'mcp', name: 'acme.tools' };
    const acme: ToolSource = { kind: 'mcp', name: 'acme' };
    catalog.replaceSource(dotted, [entry(dotted, 'search')], new FakeExecutor());
    let thrown: unknown;
    try {
      catalog.replaceSource(acme, [entry(acme, 'tools.search')], new FakeExecutor());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'AlreadyExists',
      message: 'Tool name mcp:acme.tools.search from mcp:acme is already registered by mcp:acme.tools; names must be unique across sources.',
    });
    expect(catalog.get('mcp:acme.tools.search')?.source).toEqual(dotted);
  });

  it('rejects entries filed under the wrong source or name', () => {
    const catalog = new ToolCatalog();
    const other: ToolSource = { kind: 'http', name: 'crm' };
    expect(() => catalog.replaceSource(github, [entry(other, 'x')], new FakeExecutor())).toThrow(/belongs to http:crm, not mcp:github/);
    expect(() => catalog.replaceSource(github, [{ ...entry(github, 'x'), name: 'x' }], new FakeExecutor())).toThrow(/should be named mcp:github.x/);
  });

  it('registers and unregisters single entries, and removes whole sources', () => {
    const catalog = new ToolCatalog();
    const executor = new FakeExecutor();
    catalog.register(entry(github, 'a'), executor);
    catalog.register(entry(github, 'b'), executor);
    expect(() => catalog.register(entry(github, 'c'), new FakeExecutor())).toThrow(/must share one executor/);
    expect(catalog.unregister('mcp:github.a')).toBe(true);
    expect(catalog.unregister('mcp:github.a')).toBe(false);
    expect(catalog.list().map((e) => e.name)).toEqual(['mcp:github.b']);
    catalog.removeSource(github);
    expect(catalog.size).toBe(0);
    expect(catalog.sources()).toEqual([]);
  });

  it('lists with filters, sorted by name', () => {
    const catalog = new ToolCatalog();
    const crm: ToolSource = { kind: 'http', name: 'crm' };
    catalog.replaceSource(github, [entry(github, 'z_read', { tags: ['code'] }), entry(github, 'delete_repo', { config: { operation_classes: ['delete'] } })], new FakeExecutor());
    catalog.replaceSource(crm, [entry(crm, 'find_lead', { tags: ['sales'] })], new FakeExecutor());
    expect(catalog.list().map((e) => e.name)).toEqual(['http:crm.find_lead', 'mcp:github.delete_repo', 'mcp:github.z_read']);
    expect(catalog.list({ sourceKind: 'http' }).map((e) => e.name)).toEqual(['http:crm.find_lead']);
    expect(catalog.list({ source: 'mcp:github', operationClass: 'delete' }).map((e) => e.name)).toEqual(['mcp:github.delete_repo']);
    expect(catalog.list({ tag: 'code' }).map((e) => e.name)).toEqual(['mcp:github.z_read']);
  });

  it('stops telling a listener once it unsubscribes, and stays quiet when nothing changed', () => {
    const catalog = new ToolCatalog();
    let calls = 0;
    const off = catalog.onChange(() => calls++);
    catalog.removeSource(github);
    catalog.replaceSource(github, [entry(github, 'a')], new FakeExecutor());
    off();
    catalog.replaceSource(github, [entry(github, 'b')], new FakeExecutor());
    expect(calls).toBe(1);
  });

  it('keeps which policy fields a Tool resource set, so views need not guess', () => {
    expect(entry(github, 'plain').policy.setBy).toEqual({ riskLevel: false, operationClasses: false });
    const configured = entry(github, 'purge', { config: { risk_level: 'low', operation_classes: ['delete'] } });
    expect(configured.policy).toEqual({ riskLevel: 'low', operationClasses: ['delete'], setBy: { riskLevel: true, operationClasses: true } });
    // Blank values are not settings (Orloj's defaults apply, as the normalizers read them).
    expect(entry(github, 'blank', { config: { risk_level: ' ', operation_classes: [''] } }).policy.setBy).toEqual({ riskLevel: false, operationClasses: false });
  });
});
