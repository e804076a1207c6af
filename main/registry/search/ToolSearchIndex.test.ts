import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolSource } from '../../../shared/invocation';
import { createToolEntry } from '../createToolEntry';
import { FakeExecutor } from '../testing/FakeExecutor';
import { ToolCatalog } from '../ToolCatalog';
import { tokenize } from './tokenize';
import { toolDocument, ToolSearchIndex } from './ToolSearchIndex';

interface CorpusTool {
  source: ToolSource;
  name: string;
  description: string;
  tags: string[];
}

const corpus = JSON.parse(readFileSync(new URL('../testing/toolCorpus.json', import.meta.url), 'utf8')) as CorpusTool[];

function corpusIndex(): ToolSearchIndex {
  const index = new ToolSearchIndex();
  for (const tool of corpus) {
    index.upsert(toolDocument(createToolEntry({ source: tool.source, tool: { name: tool.name, description: tool.description }, tags: tool.tags })));
  }
  return index;
}

describe('ToolSearchIndex ranking on a fixed corpus', () => {
  const index = corpusIndex();

  it('indexes the whole corpus', () => {
    expect(index.size).toBe(corpus.length);
    expect(index.size).toBeGreaterThanOrEqual(200);
  });

  it.each([
    ['create github issue', 'mcp:github.create_issue'],
    ['merge pull request', 'mcp:github.merge_pull_request'],
    ['pod logs', 'mcp:kubernetes.get_pod_logs'],
    ['send email', 'mcp:gmail.send_email'],
    ['weather forecast', 'mcp:weather.get_forecast'],
    ['current time timezone', 'mcp:time.get_current_time'],
    ['refund payment', 'mcp:stripe.create_refund'],
    ['restart deployment', 'mcp:kubernetes.rollout_restart'],
    ['aws spend', 'mcp:aws.cost_explorer_get_costs'],
    ['book flight', 'a2a:travel-agent.book-flight'],
    ['upload s3', 'mcp:aws.s3_put_object'],
    ['knowledge graph', 'mcp:memory.read_graph'],
    ['on-call engineer', 'mcp:pagerduty.get_on_call'],
  ])('"%s" → %s first', (query, expected) => {
    const hits = index.search(query);
    expect(hits[0]?.id).toBe(expected);
    expect(hits[0]?.score).toBe(1);
  });

  it('puts every "create issue" tool above the rest', () => {
    const top = index.search('create issue', { limit: 4 }).map((hit) => hit.id);
    expect(top.sort()).toEqual(['mcp:github.create_issue', 'mcp:gitlab.create_issue', 'mcp:jira.jira_create_issue', 'mcp:linear.linear_create_issue']);
  });

  it('matches the word being typed by prefix', () => {
    expect(index.search('slack post')[0]?.id).toBe('mcp:slack.slack_post_message');
    expect(index.search('git comm')[0]?.id).toBe('mcp:git.git_commit');
    expect(index.search('screensh')[0]?.id).toBe('mcp:puppeteer.puppeteer_screenshot');
  });

  it('forgives typos in longer words', () => {
    expect(index.search('kubernets pods')[0]?.id).toBe('mcp:kubernetes.list_pods');
  });

  it('normalizes scores to 0..1, best first', () => {
    const hits = index.search('sql query', { limit: 50 });
    expect(hits.length).toBeGreaterThan(4);
    expect(hits.slice(0, 4).map((hit) => hit.id)).toEqual(expect.arrayContaining(['mcp:postgres.query', 'mcp:sqlite.read_query']));
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
    expect(hits.every((hit) => hit.score > 0 && hit.score <= 1)).toBe(true);
  });

  it('returns nothing for an empty or unmatched query', () => {
    expect(index.search('')).toEqual([]);
    expect(index.search('zzqx')).toEqual([]);
  });
});

describe('ToolSearchIndex: what the palette shows', () => {
  const doc = (name: string, description: string) => toolDocument(createToolEntry({ source: { kind: 'mcp', name: 'srv' }, tool: { name, description } }));

  it('puts the tool whose whole name was typed first, even when others mention the word more', () => {
    const index = new ToolSearchIndex();
    index.upsert(doc('echo_all', 'Echo, echo, echo: repeats every echo it hears as an echo'));
    index.upsert(doc('echo', 'Returns the message'));
    index.upsert(doc('shout', 'Like echo but louder'));
    expect(index.search('echo')[0]).toMatchObject({ id: 'mcp:srv.echo', score: 1 });
    expect(index.search('mcp:srv.shout')[0]!.id).toBe('mcp:srv.shout');
  });

  it('does not pad real matches with typo matches, but still forgives a typo when nothing else matches', () => {
    const index = new ToolSearchIndex();
    index.upsert(doc('deploy_service', 'Deploys a service'));
    index.upsert(doc('deplay_report', 'Reports the deplay of trains'));
    expect(index.search('deploy').map((hit) => hit.id)).toEqual(['mcp:srv.deploy_service']);
    expect(index.search('deploi')[0]?.id).toBe('mcp:srv.deploy_service');
  });
});

describe('ToolSearchIndex scoring (RockBot: Okapi BM25, k1 = 1.5, b = 0.75, adjacent two-word bonus)', () => {
  it('scores term frequency and length with k1 = 1.5 and b = 0.75', () => {
    const index = new ToolSearchIndex();
    index.upsert({ id: 'a', kind: 'tool', name: 'alpha' });
    index.upsert({ id: 'b', kind: 'tool', name: 'alpha beta gamma' });
    index.upsert({ id: 'c', kind: 'tool', name: 'delta' });
    // tf = f(k1+1) / (f + k1(1 - b + b·len/avglen)), avglen = 5/3: 2.5/2.05 for a, 2.5/3.4 for b.
    const [a, b] = index.search('alpha');
    expect(a!.id).toBe('a');
    expect(b!.score).toBeCloseTo(2.05 / 3.4, 6);
  });

  it('ranks a document with two query words adjacent above one with the same words apart', () => {
    const index = new ToolSearchIndex();
    index.upsert({ id: 'apart', kind: 'tool', name: 'apart', description: 'open issue then create label' });
    index.upsert({ id: 'adjacent', kind: 'tool', name: 'adjacent', description: 'create issue then open label' });
    index.upsert({ id: 'other', kind: 'tool', name: 'other', description: 'nothing to see' });
    const reversed = index.search('issue create');
    expect(reversed.map((hit) => hit.score)).toEqual([1, 1]);
    const [first, second] = index.search('create issue');
    expect(first!.id).toBe('adjacent');
    expect(second!.id).toBe('apart');
    expect(second!.score).toBeLessThan(0.6);
  });
});

describe('ToolSearchIndex documents', () => {
  it('searches agents and skills next to tools, and filters by kind', () => {
    const index = corpusIndex();
    index.upsert({ id: 'agent:analyst', kind: 'agent', name: 'analyst', description: 'Reads market context and writes daily trading notes', tags: ['trading'] });
    index.upsert({ id: 'skill:trading-policy', kind: 'skill', name: 'trading-policy', title: 'Trading policy', description: 'When and why to trade: risk limits before execution' });
    expect(index.search('trading policy')[0]).toMatchObject({ id: 'skill:trading-policy', kind: 'skill', title: 'Trading policy', score: 1 });
    const agents = index.search('trading', { kinds: ['agent'] });
    expect(agents.map((hit) => hit.id)).toEqual(['agent:analyst']);
    index.remove('agent:analyst');
    expect(index.search('trading', { kinds: ['agent'] })).toEqual([]);
  });

  it('follows the catalog as sources come, change and go', () => {
    const catalog = new ToolCatalog();
    const index = new ToolSearchIndex();
    const stop = index.attach(catalog);
    const weather: ToolSource = { kind: 'mcp', name: 'weather' };
    const executor = new FakeExecutor();
    catalog.replaceSource(weather, [createToolEntry({ source: weather, tool: { name: 'get_forecast', description: 'Weather forecast for a city' } })], executor);
    expect(index.search('forecast')[0]).toMatchObject({ id: 'mcp:weather.get_forecast', name: 'get_forecast', source: 'mcp:weather' });

    catalog.replaceSource(weather, [createToolEntry({ source: weather, tool: { name: 'get_forecast', description: 'Seven-day outlook' } })], executor);
    expect(index.search('forecast city')[0]?.description).toBe('Seven-day outlook');

    catalog.removeSource(weather);
    expect(index.search('forecast')).toEqual([]);
    stop();
    catalog.replaceSource(weather, [createToolEntry({ source: weather, tool: { name: 'get_forecast' } })], executor);
    expect(index.size).toBe(0);
  });

  it('tokenizes names the way people type them', () => {
    expect(tokenize('mcp:github.create_issue')).toEqual(['mcp', 'github', 'create', 'issue']);
    expect(tokenize('getPodLogs')).toEqual(['get', 'pod', 'logs']);
    expect(tokenize('trigger-long-running-operation')).toEqual(['trigger', 'long', 'running', 'operation']);
  });
});
