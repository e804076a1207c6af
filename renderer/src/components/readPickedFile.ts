import { notifications } from '@mantine/notifications';
import { tooLargeMessage, type InputLimit } from '../../../shared/inputLimits';

/**
 * The text of a file the operator picked, if it is within the limit of its kind: a browser knows a
 * picked file's size before reading it, so a multi-gigabyte mistake is refused without being read.
 * A refusal shows as a notification naming the limit; the caller gets nothing.
 */
export async function readPickedFile(file: File | null, limit: InputLimit): Promise<string | undefined> {
  if (!file) return undefined;
  if (file.size > limit.maxBytes) {
    notifications.show({ color: 'red', title: 'File not loaded', message: tooLargeMessage(file.name, limit, file.size) });
    return undefined;
  }
  return file.text();
}
