import type { ToolReview } from '../../../../shared/lock';

/** One color per review state, wherever a tool's standing against tooldeck.lock is shown. */
export const REVIEW_COLOR: Record<ToolReview['state'], string> = { approved: 'teal', new: 'blue', changed: 'orange', renamed: 'violet', rejected: 'red' };
