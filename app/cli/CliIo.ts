/** Where a command writes and reads: the process's streams, or a test's buffers. Its own module, so the terminal helpers need not import CliContext. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where questions are answered (default process.stdin); asked only when it is a terminal. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}
