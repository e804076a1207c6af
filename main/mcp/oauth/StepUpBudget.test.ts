import { describe, expect, it } from 'vitest';
import { OAuthFlowError } from './OAuthFlowError';
import { StepUpBudget } from './StepUpBudget';

describe('StepUpBudget', () => {
  it('allows two step-ups for the same scope, then refuses with the scope named', () => {
    const budget = new StepUpBudget();
    budget.take('notes:write mcp:tools');
    budget.take('mcp:tools notes:write');
    let refusal: unknown;
    try {
      budget.take('notes:write  mcp:tools');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(OAuthFlowError);
    expect(refusal).toMatchObject({ oauthStep: 'challenge', message: 'The server still refuses the request for insufficient scope ("mcp:tools notes:write") after 2 step-up authorizations; not trying again' });
  });

  it('counts each scope set on its own', () => {
    const budget = new StepUpBudget(1);
    budget.take('notes:read');
    budget.take('notes:write');
    expect(() => budget.take('notes:read')).toThrow(/"notes:read"\) after 1 step-up authorization;/);
    expect(budget.used('notes:write')).toBe(1);
  });
});
