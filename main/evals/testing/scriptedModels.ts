import { LLMock } from '@copilotkit/aimock';

type Messages = { role: string; content?: unknown }[];

const lastToolResult = (messages: Messages) => [...messages].reverse().find((message) => message.role === 'tool' || (message.role === 'user' && JSON.stringify(message.content ?? '').includes('tool_result')));
const userText = (messages: Messages) => JSON.stringify(messages.filter((message) => message.role === 'user').at(0)?.content ?? '');

/**
 * aimock as two scripted models for eval tests, in both wire formats: `right` adds with
 * everything's get-sum and reports the sum; `wrong` calls echo instead. `noisy` answers with
 * control characters and XML markup (what a JUnit report must escape). Any other model says hello.
 */
export async function startScriptedModels(): Promise<{ url: string; mock: LLMock }> {
  const mock = new LLMock({ host: '127.0.0.1', port: 0 });
  const usage = { prompt_tokens: 11, completion_tokens: 7, input_tokens: 11, output_tokens: 7 };
  const says = (model: string, predicate: (messages: Messages) => boolean, response: object | ((messages: Messages) => object)) =>
    mock.on({ model, predicate: (req) => predicate(req.messages as Messages) }, (typeof response === 'function' ? (req: { messages: unknown }) => ({ ...response(req.messages as Messages), usage }) : { ...response, usage }) as never);
  says('right', (m) => userText(m).includes('add') && !lastToolResult(m), { toolCalls: [{ name: 'everything_get-sum', arguments: '{"a":2,"b":40}' }] });
  says('right', (m) => userText(m).includes('add'), (m) => ({ content: `The sum is ${JSON.stringify(lastToolResult(m)?.content ?? '').includes('42') ? '42' : 'unknown (the tool was not run)'}.` }));
  says('right', (m) => userText(m).includes('repeat') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"hi"}' }] });
  says('wrong', (m) => userText(m).includes('add') && !lastToolResult(m), { toolCalls: [{ name: 'everything_echo', arguments: '{"message":"2 + 40"}' }] });
  says('wrong', () => true, { content: 'I echoed it.' });
  says('noisy', () => true, { content: 'Bad \u0000 bytes \u001b[31m and </failure><x a="1"> & \uFFFE \ud800 done' });
  says('right', (m) => userText(m).includes('repeat'), { content: 'Repeated.' });
  mock.on({ predicate: () => true }, { content: 'Hello.', usage } as never);
  const url = await mock.start();
  return { url, mock };
}
