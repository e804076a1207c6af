import { describe, expect, it } from 'vitest';
import { reasonInOrlojWords, verdictFor, verdictWord } from './verdictWords';

describe('verdictWords', () => {
  it("says Orloj's allow, approval_required and deny for the backend's allow, confirm and deny", () => {
    expect(verdictWord('allow')).toBe('allow');
    expect(verdictWord('confirm')).toBe('approval_required');
    expect(verdictWord('deny')).toBe('deny');
  });

  it('names who a verdict is for', () => {
    expect(verdictFor('allow', 'you')).toBe('for you: allow');
    expect(verdictFor('confirm', { agent: 'assistant' })).toBe('for assistant: approval_required');
  });

  it("rewrites a reason's confirm arrow and leaves every other word alone", () => {
    expect(reasonInOrlojWords('everything-changes-need-approval (permissions.yaml): read → confirm')).toBe('everything-changes-need-approval (permissions.yaml): read → approval_required');
    expect(reasonInOrlojWords('its server marks it destructive (annotations.destructiveHint) → confirm')).toBe('its server marks it destructive (annotations.destructiveHint) → approval_required');
    expect(reasonInOrlojWords('no-echo (deny-echo.yaml): read → deny')).toBe('no-echo (deny-echo.yaml): read → deny');
    expect(reasonInOrlojWords('confirm-writes (p.yaml): write → confirmation')).toBe('confirm-writes (p.yaml): write → confirmation');
  });
});
