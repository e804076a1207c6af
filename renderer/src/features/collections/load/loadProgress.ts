import type { AppErrorShape } from '../../../../../shared/errors';
import type { LoadEvent, LoadSummary, LoadTick } from '../../../../../shared/loadRuns';

export interface LoadProgress {
  phase: 'idle' | 'preparing' | 'running' | 'finished' | 'failed';
  runId?: string;
  settings?: LoadSummary['settings'];
  replicas?: string[];
  ticks: LoadTick[];
  summary?: LoadSummary;
  error?: AppErrorShape;
}

export const IDLE_LOAD: LoadProgress = { phase: 'idle', ticks: [] };

/** Folds one load event into what the live view shows. */
export function applyLoadEvent(progress: LoadProgress, event: LoadEvent): LoadProgress {
  switch (event.type) {
    case 'load-started':
      return { phase: 'running', runId: event.runId, settings: event.settings, replicas: event.replicas, ticks: [] };
    case 'load-tick':
      return { ...progress, runId: event.runId, ticks: [...progress.ticks, event.tick] };
    case 'load-finished':
      return { ...progress, phase: 'finished', runId: event.runId, settings: event.summary.settings, ticks: event.summary.timeline, summary: event.summary };
  }
}

/** Running totals from the ticks so far: what the KPIs show until the summary arrives. */
export function liveTotals(ticks: readonly LoadTick[]) {
  let completed = 0;
  let errors = 0;
  let sent = 0;
  let asked = 0;
  for (const t of ticks) {
    completed += t.completed;
    errors += t.errors;
    sent += t.sent;
    asked += t.asked;
  }
  const last = ticks.at(-1);
  return { completed, errors, sent, asked, last };
}
