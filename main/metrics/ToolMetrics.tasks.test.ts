import { afterEach, describe, expect, it } from 'vitest';
import { invocation } from '../store/testing/testRecords';
import { TASKS_INSTRUMENT, ToolMetrics } from './ToolMetrics';

const running: ToolMetrics[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((metrics) => metrics.shutdown()));
});

/** The Prometheus text of a fresh instrument set after `observe` ran: what a scrape would read. */
async function scrape(observe: (metrics: ToolMetrics) => void): Promise<string> {
  const metrics = new ToolMetrics();
  running.push(metrics);
  observe(metrics);
  const { url } = await metrics.startPrometheus({ port: 0 });
  return (await fetch(url)).text();
}

/** The tool.tasks series of a scrape, sorted, without the scope label every series carries. */
function taskSeries(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('tool_tasks_total{'))
    .map((line) => line.replace(',otel_scope_name="tooldeck"', ''))
    .sort();
}

describe(`ToolMetrics ${TASKS_INSTRUMENT}`, () => {
  it('counts only calls that ran as tasks, by tool, source and the task status they were recorded with', async () => {
    const text = await scrape((metrics) => {
      const research = { sourceName: 'everything', tool: 'simulate-research-query' };
      metrics.observe(invocation({ id: '1', ...research, taskId: 't1', taskStatus: 'completed' }));
      metrics.observe(invocation({ id: '2', ...research, taskId: 't2', taskStatus: 'completed' }));
      // Detached: recorded while the task still works.
      metrics.observe(invocation({ id: '3', ...research, taskId: 't3', taskStatus: 'working' }));
      // A task whose status was never learnt (e.g. the call was cancelled first) still counts.
      metrics.observe(invocation({ id: '4', ...research, taskId: 't4', status: 'canceled' }));
      metrics.observe(invocation({ id: '5', sourceName: 'git', tool: 'log', taskId: 't1', taskStatus: 'failed', status: 'error' }));
      // An ordinary call: an invocation, not a task.
      metrics.observe(invocation({ id: '6', sourceName: 'everything', tool: 'echo' }));
    });
    expect(text).toContain('# TYPE tool_tasks_total counter');
    expect(taskSeries(text)).toEqual([
      'tool_tasks_total{tool_name="log",source="mcp:git",task_status="failed"} 1',
      'tool_tasks_total{tool_name="simulate-research-query",source="mcp:everything",task_status="completed"} 2',
      'tool_tasks_total{tool_name="simulate-research-query",source="mcp:everything",task_status="unknown"} 1',
      'tool_tasks_total{tool_name="simulate-research-query",source="mcp:everything",task_status="working"} 1',
    ]);
    // Every call is still an invocation: tasks are counted besides, not instead.
    expect(text).toContain('tool_invocations_total{tool_name="simulate-research-query",source="mcp:everything",status="ok",otel_scope_name="tooldeck"} 3');
    expect(text).toContain('tool_invocations_total{tool_name="echo",source="mcp:everything",status="ok",otel_scope_name="tooldeck"} 1');
  });

  it('has no task series while no call ran as a task', async () => {
    const text = await scrape((metrics) => metrics.observe(invocation({ id: '1' })));
    expect(taskSeries(text)).toEqual([]);
    expect(text).toContain('tool_invocations_total{');
  });
});
