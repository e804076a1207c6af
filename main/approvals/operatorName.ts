import { userInfo } from 'node:os';

/** Who decides, when the operator does not say: the account Tooldeck runs as (Orloj's `decided_by` is free text). */
export function operatorName(): string {
  try {
    return userInfo().username || 'operator';
  } catch {
    return 'operator';
  }
}
