import type { RequestResult, RequestStatus, RunEvent, RunSummary } from '../../../../shared/collections';
import type { AppErrorShape } from '../../../../shared/errors';

export type RowState = 'pending' | 'running' | RequestStatus;

export interface RunRow {
  index: number;
  name: string;
  tool: string;
  state: RowState;
  result?: RequestResult;
}

export interface RunProgress {
  phase: 'idle' | 'running' | 'finished' | 'failed';
  runId?: string;
  rows: RunRow[];
  summary?: RunSummary;
  error?: AppErrorShape;
}

export const IDLE_RUN: RunProgress = { phase: 'idle', rows: [] };

function withRow(progress: RunProgress, index: number, update: (row: RunRow) => RunRow): RunProgress {
  return { ...progress, rows: progress.rows.map((row) => (row.index === index ? update(row) : row)) };
}

/** Folds one run event into what the live view shows. */
export function applyRunEvent(progress: RunProgress, event: RunEvent): RunProgress {
  switch (event.type) {
    case 'run-started':
      return { phase: 'running', runId: event.runId, rows: event.requests.map((r, index) => ({ index, name: r.name, tool: r.tool, state: 'pending' })) };
    case 'request-started':
      return withRow(progress, event.index, (row) => ({ ...row, state: 'running' }));
    case 'request-finished':
      return withRow(progress, event.result.index, (row) => ({ ...row, state: event.result.status, result: event.result }));
    case 'run-finished': {
      const byIndex = new Map(event.summary.results.map((r) => [r.index, r]));
      const rows = progress.rows.map((row) => {
        const result = byIndex.get(row.index);
        return result ? { ...row, state: result.status, result } : row;
      });
      return { phase: 'finished', runId: event.runId, rows, summary: event.summary };
    }
  }
}

export function doneCount(progress: RunProgress): number {
  return progress.rows.filter((r) => r.state !== 'pending' && r.state !== 'running').length;
}
