import { canonicalJson } from './canonicalJson';

export interface FirstCall {
  /** 1-based position of the original call among the executed calls of its run. */
  round: number;
  /** How many repeats of it have been refused so far, this one included. */
  duplicates: number;
}

/**
 * Remembers, per run, which (name, arguments) pairs were already executed, so a repeat can be
 * refused (Clawdapus: "later duplicates are skipped"). Only the most recent `maxRuns` runs are kept;
 * a run is also forgotten when its owner ends it.
 */
export class RunCallLedger {
  private readonly runs = new Map<string, { executed: number; calls: Map<string, FirstCall> }>();

  constructor(private readonly maxRuns = 256) {}

  /** Undefined the first time (and notes the call as executed); the first call's facts on a repeat. */
  claim(runId: string, name: string, args: Record<string, unknown>): FirstCall | undefined {
    let run = this.runs.get(runId);
    if (!run) {
      run = { executed: 0, calls: new Map() };
      this.runs.set(runId, run);
      if (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
    }
    const key = `${name}\n${canonicalJson(args)}`;
    const first = run.calls.get(key);
    if (first) {
      first.duplicates++;
      return { ...first };
    }
    run.calls.set(key, { round: ++run.executed, duplicates: 0 });
    return undefined;
  }

  endRun(runId: string): void {
    this.runs.delete(runId);
  }
}
