import {
  IconBan,
  IconCircleCheck,
  IconCircleDashed,
  IconCircleX,
  IconHandStop,
  IconKey,
  IconMessageQuestion,
  IconPlayerPlay,
  type Icon,
} from '@tabler/icons-react';
import type { A2aTaskState } from '../../../../shared/a2a';

export interface TaskStateStyle {
  color: string;
  icon: Icon;
  /** What the state means for the person looking at it. */
  hint: string;
}

export const TASK_STATE_STYLE: Record<A2aTaskState, TaskStateStyle> = {
  SUBMITTED: { color: 'gray', icon: IconCircleDashed, hint: 'Accepted, not started yet' },
  WORKING: { color: 'blue', icon: IconPlayerPlay, hint: 'The agent is working on it' },
  INPUT_REQUIRED: { color: 'yellow', icon: IconMessageQuestion, hint: 'The agent waits for your answer' },
  AUTH_REQUIRED: { color: 'orange', icon: IconKey, hint: 'The agent waits for authorization' },
  COMPLETED: { color: 'teal', icon: IconCircleCheck, hint: 'Finished' },
  FAILED: { color: 'red', icon: IconCircleX, hint: 'The agent could not finish' },
  CANCELED: { color: 'dark', icon: IconBan, hint: 'Canceled' },
  REJECTED: { color: 'pink', icon: IconHandStop, hint: 'The agent refused the task' },
};
