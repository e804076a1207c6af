import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issuesSentence, validationIssues } from './issuesSentence';

describe('validationIssues', () => {
  const refused = z.object({ limit: z.number().max(200) }).safeParse({ limit: 30000 }).error!;

  it('reads a schema error, and one a procedure called in process wraps as its cause', () => {
    expect(validationIssues(refused)).toHaveLength(1);
    const wrapped = Object.assign(new Error('[{"code":"too_big"}]'), { code: 'BAD_REQUEST', cause: refused });
    expect(issuesSentence(validationIssues(wrapped)!)).toContain('limit');
  });

  it('is undefined for anything else', () => {
    expect(validationIssues(new Error('boom'))).toBeUndefined();
    expect(validationIssues(null)).toBeUndefined();
    expect(validationIssues({ cause: { issues: 'not a list' } })).toBeUndefined();
  });
});
