import { describe, expect, it } from 'vitest';
import type { InvocationRecord } from '../../../../shared/invocation';
import { agentChoice, filterParams, filtersFromParams, hasFilters, matchesFilter, NO_FILTERS, OPERATOR_CHOICE, splitSource, toInvocationFilter } from './historyFilter';

const record: InvocationRecord = {
  id: 'r1',
  startedAt: 1_000,
  sourceKind: 'mcp',
  sourceName: 'everything',
  tool: 'get-sum',
  argumentsJson: '{"a":1}',
  status: 'error',
  errorCode: 'InvalidArguments',
  errorMessage: 'Invalid arguments: /b is required',
  latencyMs: 2,
  requestBytes: 7,
  responseBytes: 0,
  resultPreview: '',
  truncated: false,
};

describe('matchesFilter', () => {
  it('matches live calls the way the store filters rows', () => {
    expect(matchesFilter(record, {})).toBe(true);
    expect(matchesFilter(record, { sourceKind: 'mcp', sourceName: 'everything', tool: 'get-sum', status: ['error', 'timeout'] })).toBe(true);
    expect(matchesFilter(record, { status: ['ok'] })).toBe(false);
    expect(matchesFilter(record, { since: 1_000, until: 1_001 })).toBe(true);
    expect(matchesFilter(record, { until: 1_000 })).toBe(false);
    expect(matchesFilter(record, { text: '/B IS REQ' })).toBe(true);
    expect(matchesFilter(record, { text: 'echo' })).toBe(false);
  });
});

describe('filters', () => {
  it('splits a source id and reads the filters a link carries', () => {
    expect(splitSource('a2a:planner:v2')).toEqual({ sourceKind: 'a2a', sourceName: 'planner:v2' });
    expect(splitSource('ftp:x')).toBeUndefined();
    const filters = filtersFromParams(filterParams({ source: 'mcp:everything', tool: 'echo', status: ['error'], range: '24h' }));
    expect(toInvocationFilter(filters, 100_000_000)).toEqual({ sourceKind: 'mcp', sourceName: 'everything', tool: 'echo', status: ['error'], since: 100_000_000 - 86_400_000 });
    expect(filtersFromParams({ status: 'error,bogus', range: 'forever' })).toMatchObject({ status: ['error'], range: { key: 'all' } });
  });

  it('filters by a trace id once it is one (32 hex digits), from the bar or a link', () => {
    const trace = '0af7651916cd43dd8448eb211c80319c';
    expect(toInvocationFilter({ ...NO_FILTERS, trace: ` ${trace.toUpperCase()} ` }, 0)).toEqual({ traceId: trace });
    expect(toInvocationFilter({ ...NO_FILTERS, trace: '0af76519' }, 0)).toEqual({});
    expect(filtersFromParams({ trace })).toMatchObject({ trace });
    expect(filtersFromParams({ trace: "x' OR 1=1" })).toMatchObject({ trace: '' });
    expect(hasFilters({ ...NO_FILTERS, trace: 'abc' })).toBe(true);
    expect(matchesFilter({ ...record, traceId: trace }, { traceId: trace })).toBe(true);
    expect(matchesFilter(record, { traceId: trace })).toBe(false);
  });

  it('filters by the way in and by the caller: the operator (no agent) or one agent, even one named "operator"', () => {
    expect(toInvocationFilter({ ...NO_FILTERS, via: 'gateway', caller: agentChoice('operator') }, 0)).toEqual({ via: 'gateway', agent: 'operator' });
    expect(toInvocationFilter({ ...NO_FILTERS, caller: OPERATOR_CHOICE }, 0)).toEqual({ agent: null });
    expect(hasFilters({ ...NO_FILTERS, via: 'bus' })).toBe(true);
    expect(filtersFromParams({ via: 'mediation', agent: 'planner-bot' })).toMatchObject({ via: 'mediation', caller: agentChoice('planner-bot') });
    expect(filtersFromParams({ via: 'pigeon' })).toMatchObject({ via: null, caller: null });
    const byAgent = { ...record, via: 'gateway' as const, agent: 'planner-bot' };
    expect(matchesFilter(byAgent, { via: 'gateway', agent: 'planner-bot' })).toBe(true);
    expect(matchesFilter(byAgent, { agent: null })).toBe(false);
    expect(matchesFilter(record, { agent: null })).toBe(true);
    expect(matchesFilter(record, { via: 'ui' })).toBe(false);
  });
});

describe('the replica filter (a history shared by several Tooldeck processes)', () => {
  it('narrows the store query and live calls to one replica, from the bar or a link', () => {
    const filters = { ...NO_FILTERS, replica: 'gateway-7d9f-a' };
    expect(hasFilters(filters)).toBe(true);
    expect(toInvocationFilter(filters, 0)).toEqual({ replica: 'gateway-7d9f-a' });
    expect(filtersFromParams({ replica: 'gateway-7d9f-b' }).replica).toBe('gateway-7d9f-b');
    const filter = toInvocationFilter(filters, 0);
    expect(matchesFilter({ ...record, replica: 'gateway-7d9f-a' }, filter)).toBe(true);
    expect(matchesFilter({ ...record, replica: 'gateway-7d9f-b' }, filter)).toBe(false);
    expect(matchesFilter(record, filter)).toBe(false);
  });
});
