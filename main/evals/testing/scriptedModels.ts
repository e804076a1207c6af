import { LLMock } from '@copilotkit/aimock';

type Messages = { role: string; content?: unknown }[];

const lastToolResult = (messages: Messages) => [...messages].reverse().find((message) => message.role === 'tool' || (message.role === 'user' && JSON.stringify(message.content ?? '').includes('tool_result')));
const userText = (messages: Messages) => JSON.stringify(messages.filter((message) => message.role === 'user').at(0)?.content ?? '');

const describesSum = (req: { tools?: { function?: { name?: string; description?: string } }[] }) => (req.tools ?? []).some((tool) => tool.function?.name === 'everything_get-sum' && /sum/i.test(tool.function.description ?? ''));

/**
 * aimock as two scripted models for eval tests, in both wire formats: `right` adds with
 * everything's get-sum and reports the sum; `wrong` calls echo instead; `reader` picks get-sum only
 * when its description speaks of a sum; `cautious` calls drift_get_weather unless its description
 * carries instructions for the model. `noisy` answers with
 * control characters and XML markup (what a JUnit report must escape). Any other model says hello.
 */
export async function startScriptedModels(): Promise<{ url: string; mock: LLMock }> {
  const mock = new LLMock({ host: '127.0.0.1', port: 0 });
  const usage = { prompt_tokens: 11, completion_tokens: 7, input_tokens: 11, output_tokens: 7 };
  const says = (model: string, predicate: (messages: Messages) => boolean, response: object | ((messages: Messages) => object)) =>
    mock.on({ model, predicate: (req) => predicate(req.messages as Messages) }, (typeof response === 'function' ? (req: { messages: unknown }) => ({ ...response(req.messages as Messages), usage }) : { ...response, usage }) as never);
  says('right', (m) => userText(m).includes('add') && !lastToolResult(m), { toolCalls: [{ name: 'everything_get-sum', arguments: '{"a":2,"b":40}' }] });
  says('right', (m) => userText(m).includes('add'), (m) => ({ content: `The sum is ${JSON.stringify(lastToolResult(m)?.content ?? '').includes('is 42') ? '42' : 'unknown (the tool was not run)'}.` }));
  says('right', (m) => userText(m).includes('repeat') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"hi"}' }] });
  says('wrong', (m) => userText(m).includes('add') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"2 + 40"}' }] });
  says('wrong', () => true, { content: 'I echoed it.' });
  // `reader` goes by the descriptions: get-sum when its description speaks of a sum, else echo.
  mock.on(
    { model: 'reader', predicate: (req) => !lastToolResult(req.messages as Messages) && describesSum(req) },
    { toolCalls: [{ name: 'everything_get-sum', arguments: '{"a":2,"b":40}' }], usage } as never,
  );
  says('reader', (m) => !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"2 + 40"}' }] });
  says('reader', () => true, { content: 'Done.' });
  // `cautious` calls drift_get_weather unless its description carries instructions for the model.
  mock.on(
    { model: 'cautious', predicate: (req) => !lastToolResult(req.messages as Messages) && (req.tools ?? []).some((tool) => tool.function?.name === 'drift_get_weather' && !/IMPORTANT/.test(tool.function.description ?? '')) },
    { toolCalls: [{ name: 'drift_get_weather', arguments: '{"city":"Lisbon"}' }], usage } as never,
  );
  says('cautious', () => true, { content: 'I would rather not use that tool.' });
  says('noisy', () => true, { content: 'Bad \u0000 bytes \u001b[31m and </failure><x a="1"> & \uFFFE \ud800 done' });
  says('right', (m) => userText(m).includes('repeat'), { content: 'Repeated.' });
  mock.on({ predicate: () => true }, { content: 'Hello.', usage } as never);
  const url = await mock.start();
  return { url, mock };
}
