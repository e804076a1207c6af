import { describe, expect, it } from 'vitest';
import type { ClawPod } from '../../../shared/resources/clawPod';
import { createToolEntry } from '../createToolEntry';
import { agentDocuments, AgentSearchDocuments } from './agentDocuments';
import { toolDocument, ToolSearchIndex } from './ToolSearchIndex';

const pod: ClawPod = {
  pod: 'trading-desk',
  defaults: [{ service: 'trading-api', allow: ['get_market_context'] }],
  agents: [
    { name: 'analyst', cllama: 'passthrough', tools: ['...', { source: 'mcp:research', allow: 'all' }] },
    { name: 'watcher', cllama: 'passthrough' },
    { name: 'mute', cllama: 'passthrough', tools: [] },
  ],
};

describe('agents in search', () => {
  it('describes pod agents by the services they may call, and A2A agents by their card', () => {
    const docs = agentDocuments([{ name: 'travel', url: 'http://127.0.0.1:4000', card: { name: 'Travel Planner', description: 'Plans trips', skills: [{ name: 'book flight', tags: ['flights'] }] } }], [pod]);
    expect(docs).toEqual([
      { id: 'a2a:travel', kind: 'agent', name: 'travel', title: 'Travel Planner', description: 'Plans trips', source: 'a2a:travel', tags: ['book flight', 'flights'] },
      { id: 'pod:trading-desk/analyst', kind: 'agent', name: 'analyst', description: 'Agent of pod trading-desk; may call tools of trading-api, mcp:research', source: 'pod:trading-desk', tags: ['trading-api', 'mcp:research'] },
      { id: 'pod:trading-desk/watcher', kind: 'agent', name: 'watcher', description: 'Agent of pod trading-desk; may call tools of trading-api', source: 'pod:trading-desk', tags: ['trading-api'] },
      { id: 'pod:trading-desk/mute', kind: 'agent', name: 'mute', description: 'Agent of pod trading-desk; may call no tools', source: 'pod:trading-desk', tags: [] },
    ]);
  });

  it('ranks agents beside tools and skills, and follows agents coming and going', () => {
    const index = new ToolSearchIndex();
    index.upsert(toolDocument(createToolEntry({ source: { kind: 'mcp', name: 'travel-tools' }, tool: { name: 'search_flights', description: 'Find flights between two cities' } })));
    index.upsert(toolDocument(createToolEntry({ source: { kind: 'a2a', name: 'travel' }, tool: { name: 'book-flight', description: 'Book a flight' } })));
    const agents = new AgentSearchDocuments(index);
    agents.replace(agentDocuments([{ name: 'travel', url: 'http://127.0.0.1:4000', card: { name: 'Travel Planner', description: 'Plans trips and books flights', skills: [] } }], [pod]));
    const hits = index.search('flight');
    expect(hits.map((hit) => [hit.kind, hit.id])).toEqual(
      expect.arrayContaining([
        ['tool', 'mcp:travel-tools.search_flights'],
        ['skill', 'a2a:travel.book-flight'],
        ['agent', 'a2a:travel'],
      ]),
    );
    expect(index.search('flight', { kinds: ['skill'] }).map((hit) => hit.id)).toEqual(['a2a:travel.book-flight']);
    expect(index.search('analyst').map((hit) => hit.id)).toEqual(['pod:trading-desk/analyst']);

    agents.replace(agentDocuments([], [{ ...pod, agents: [] }]));
    expect(index.search('analyst')).toEqual([]);
    expect(index.search('travel planner', { kinds: ['agent'] })).toEqual([]);
    expect(index.size).toBe(2);
  });
});
