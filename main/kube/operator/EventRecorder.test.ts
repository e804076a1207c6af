import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../KubeApiError';
import type { KubeRest } from '../KubeRest';
import { EventRecorder } from './EventRecorder';

/** Stands in for the apiserver: records what the recorder sends, answers or refuses. */
class FakeEventApi {
  readonly calls: Array<{ method: string; path: string; body: Record<string, unknown> }> = [];
  refuse?: KubeApiError;
  readonly rest = {
    request: async (method: string, path: string, options: { body: Record<string, unknown> }) => {
      this.calls.push({ method, path, body: options.body });
      if (this.refuse) throw this.refuse;
      return {};
    },
  } as unknown as KubeRest;
}

const tool = { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', namespace: 'tools', name: 'search', uid: 'u-1' };

function setup() {
  const api = new FakeEventApi();
  let now = Date.parse('2026-11-25T12:00:00Z');
  const warnings: string[] = [];
  const recorder = new EventRecorder({
    rest: api.rest,
    controller: 'tooldeck.dev/tooldeck-operator',
    instance: 'pod-a',
    logger: { debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) },
    now: () => now,
  });
  return { api, recorder, warnings, advance: (ms: number) => (now += ms) };
}

describe('EventRecorder', () => {
  it('writes an events.k8s.io/v1 Event about the object, from this controller and instance', async () => {
    const { api, recorder } = setup();
    recorder.record(tool, 'Normal', 'Reconciled', 'Reconcile', 'created Deployment tools/search');
    await recorder.flush();
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.method).toBe('POST');
    expect(api.calls[0]!.path).toBe('/apis/events.k8s.io/v1/namespaces/tools/events');
    expect(api.calls[0]!.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      eventTime: '2026-11-25T12:00:00.000000Z',
      reportingController: 'tooldeck.dev/tooldeck-operator',
      reportingInstance: 'pod-a',
      type: 'Normal',
      reason: 'Reconciled',
      action: 'Reconcile',
      note: 'created Deployment tools/search',
      regarding: { apiVersion: 'langop.io/v1alpha1', kind: 'LanguageTool', namespace: 'tools', name: 'search', uid: 'u-1' },
    });
    expect((api.calls[0]!.body.metadata as { name: string }).name).toMatch(/^search\.[0-9a-f]+$/);
  });

  it('folds repeats into a series whose count is written at most every 30 s', async () => {
    const { api, recorder, advance } = setup();
    for (let i = 0; i < 5; i++) {
      recorder.record(tool, 'Warning', 'ReconcileFailed', 'Reconcile', 'tools/list failed: 503');
      advance(5_000);
    }
    await recorder.flush();
    expect(api.calls.map((c) => c.method)).toEqual(['POST']);
    advance(10_000);
    recorder.record(tool, 'Warning', 'ReconcileFailed', 'Reconcile', 'tools/list failed: 503');
    await recorder.flush();
    expect(api.calls.map((c) => c.method)).toEqual(['POST', 'PATCH']);
    expect(api.calls[1]!.body).toEqual({ series: { count: 6, lastObservedTime: '2026-11-25T12:00:35.000000Z' } });
    recorder.record(tool, 'Warning', 'ReconcileFailed', 'Reconcile', 'tools/list failed: 502');
    await recorder.flush();
    expect(api.calls.map((c) => c.method)).toEqual(['POST', 'PATCH', 'POST']);
  });

  it('never fails the caller: a refused event is logged once', async () => {
    const { api, recorder, warnings } = setup();
    api.refuse = new KubeApiError(403, 'Forbidden', 'events.events.k8s.io is forbidden');
    recorder.record(tool, 'Normal', 'Reconciled', 'Reconcile', 'a');
    recorder.record(tool, 'Normal', 'Reconciled', 'Reconcile', 'b');
    await recorder.flush();
    expect(api.calls).toHaveLength(2);
    expect(warnings).toEqual(['cannot record an event']);
  });

  it('cuts notes to the 1 kB the API accepts', async () => {
    const { api, recorder } = setup();
    recorder.record(tool, 'Warning', 'ReconcileFailed', 'Reconcile', 'x'.repeat(5_000));
    await recorder.flush();
    expect((api.calls[0]!.body.note as string).length).toBe(1_024);
  });
});
