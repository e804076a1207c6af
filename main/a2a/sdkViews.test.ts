import { describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { normalizeTaskState } from './sdkViews';

describe('normalizeTaskState', () => {
  it('maps 1.0 wire names, SDK enum values and 0.3 lowercase names onto one vocabulary', () => {
    expect(normalizeTaskState('TASK_STATE_INPUT_REQUIRED')).toBe('INPUT_REQUIRED');
    expect(normalizeTaskState(TaskState.TASK_STATE_AUTH_REQUIRED)).toBe('AUTH_REQUIRED');
    expect(['submitted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected'].map(normalizeTaskState)).toEqual([
      'SUBMITTED',
      'WORKING',
      'INPUT_REQUIRED',
      'AUTH_REQUIRED',
      'COMPLETED',
      'FAILED',
      'CANCELED',
      'REJECTED',
    ]);
    expect(normalizeTaskState('cancelled')).toBe('CANCELED');
  });

  it('leaves unknown states undefined rather than guessing', () => {
    expect(normalizeTaskState('unknown')).toBeUndefined();
    expect(normalizeTaskState(TaskState.TASK_STATE_UNSPECIFIED)).toBeUndefined();
    expect(normalizeTaskState(undefined)).toBeUndefined();
  });
});
