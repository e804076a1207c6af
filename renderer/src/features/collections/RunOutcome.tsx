import { Alert, Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { InvocationRecord } from '../../../../shared/invocation';
import type { InvocationOutcome, ToolResult } from '../../../../shared/registry';
import { useTRPC } from '../../rpc/client';
import { ResultView } from '../invoke/ResultView';

/** History keeps a text preview of the result, not the result: shown as the one text block it is. */
function resultOf(record: InvocationRecord): ToolResult | undefined {
  if (!record.resultPreview) return undefined;
  return { content: [{ type: 'text', text: record.resultPreview }], ...(record.isError ? { isError: true } : {}) };
}

/** The outcome of a request's call as history recorded it: status, latency, sizes, error and the result preview. */
export function RunOutcome({ recordId }: { recordId: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.history.get.queryOptions({ id: recordId }));
  if (detail.isPending) {
    return (
      <Center py="sm">
        <Loader size="xs" aria-label="Loading the outcome" />
      </Center>
    );
  }
  if (detail.error) {
    return (
      <Alert color="red" variant="light" title="Could not load the outcome">
        {detail.error.message}
      </Alert>
    );
  }
  const record = detail.data.record;
  const outcome: InvocationOutcome = {
    record,
    result: resultOf(record),
    truncated: record.truncated,
    ...(record.errorCode ? { error: { code: record.errorCode, message: record.errorMessage ?? record.errorCode, retryable: false } } : {}),
  };
  return <ResultView outcome={outcome} />;
}
