import type { Condition } from '../../shared/kube';

export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/**
 * Returns the conditions with `update` set. lastTransitionTime moves only when the status changes,
 * so rewriting the same observation leaves the object byte-for-byte equal (and so unwritten).
 */
export function setCondition(conditions: readonly Condition[] | undefined, update: ConditionUpdate, now: () => Date = () => new Date()): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === update.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime = previous && previous.status === update.status ? previous.lastTransitionTime : rfc3339(now());
  const next: Condition = { ...update, lastTransitionTime };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** Kubernetes serialises metav1.Time with second precision. */
function rfc3339(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
