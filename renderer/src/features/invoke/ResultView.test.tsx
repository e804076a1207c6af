import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ResultView } from './ResultView';
import { FakeBackend, renderWithBackend } from './testing/FakeBackend';
import { outcomeOf, toolView } from './testing/fixtures';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';

describe('ResultView', () => {
  it('renders text, images, audio, resource links and embedded resources', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend().answer('mcp.readResource', (input) => ({
      contents: [{ uri: (input as { uri: string }).uri, mimeType: 'text/plain', text: 'resource body text' }],
    }));
    const outcome = outcomeOf({
      content: [
        { type: 'text', text: '# Report\n\nAll **good**. [docs](https://example.com/docs) [bad](javascript:alert(1))' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'audio', data: WAV, mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///srv/readme.md', name: 'readme.md', title: 'The readme', mimeType: 'text/markdown' },
        { type: 'resource', resource: { uri: 'mem://notes/1', mimeType: 'text/plain', text: 'embedded note' } },
        { type: 'resource', resource: { uri: 'mem://blobs/archive.zip', mimeType: 'application/zip', blob: 'UEsDBA==' } },
      ],
    });
    renderWithBackend(<ResultView outcome={outcome} tool={toolView()} />, backend);

    const text = screen.getByRole('article', { name: 'Content 1: text' });
    expect(within(text).getByText(/# Report/)).toBeInTheDocument();
    await user.click(within(text).getByRole('radio', { name: 'Markdown' }));
    expect(within(text).getByRole('heading', { name: 'Report' })).toBeInTheDocument();
    expect(within(text).getByText('good').tagName).toBe('STRONG');
    expect(within(text).getByRole('link', { name: 'docs' })).toHaveAttribute('href', 'https://example.com/docs');
    expect(within(text).queryByRole('link', { name: 'bad' })).not.toBeInTheDocument();

    expect(screen.getByRole('img', { name: 'Image 2 (image/png)' })).toHaveAttribute('src', `data:image/png;base64,${PNG}`);
    expect(screen.getByLabelText('Audio 3 (audio/wav)')).toHaveAttribute('src', `data:audio/wav;base64,${WAV}`);

    const link = screen.getByRole('article', { name: 'Content 4: resource link' });
    expect(within(link).getByText('The readme')).toBeInTheDocument();
    expect(within(link).getByText('file:///srv/readme.md')).toBeInTheDocument();
    await user.click(within(link).getByRole('button', { name: 'Read readme.md' }));
    expect(await within(link).findByText('resource body text')).toBeInTheDocument();
    expect(backend.callsTo('mcp.readResource')).toEqual([{ server: 'demo', uri: 'file:///srv/readme.md' }]);

    expect(within(screen.getByRole('article', { name: 'Content 5: embedded resource' })).getByText('embedded note')).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Content 6: embedded resource' })).getByRole('button', { name: 'Download archive.zip' })).toBeInTheDocument();
  });

  it('offers no Read for resource links from a source that is not MCP', () => {
    const outcome = outcomeOf({ content: [{ type: 'resource_link', uri: 'https://x.test/a', name: 'a' }] });
    renderWithBackend(<ResultView outcome={outcome} tool={toolView({ source: { kind: 'http', name: 'api' } })} />, new FakeBackend());
    expect(screen.queryByRole('button', { name: /^Read/ })).not.toBeInTheDocument();
  });

  it('checks structuredContent against the outputSchema and lists the failing paths', async () => {
    const user = userEvent.setup();
    const outputSchema = {
      type: 'object',
      properties: { total: { type: 'number' }, items: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } },
      required: ['total', 'items'],
    };
    const outcome = outcomeOf({ content: [], structuredContent: { total: 'many', items: [{ id: 'a' }, { name: 'b' }] } });
    renderWithBackend(<ResultView outcome={outcome} tool={toolView({ outputSchema })} />, new FakeBackend());

    const problems = screen.getByRole('list', { name: 'Output schema problems' });
    expect(within(problems).getByText('total')).toBeInTheDocument();
    expect(within(problems).getByText('items[1].id')).toBeInTheDocument();
    expect(screen.getByRole('tree', { name: 'Structured content' })).toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: 'Raw' }));
    expect(screen.getByText(/"structuredContent"/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy result JSON' })).toBeInTheDocument();
  });

  it('says nothing is wrong when structuredContent matches', () => {
    const outputSchema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    renderWithBackend(<ResultView outcome={outcomeOf({ content: [], structuredContent: { total: 3 } })} tool={toolView({ outputSchema })} />, new FakeBackend());
    expect(screen.queryByRole('list', { name: 'Output schema problems' })).not.toBeInTheDocument();
    expect(screen.getByLabelText('matches the output schema')).toBeInTheDocument();
  });

  it('shows isError as a failure, not a success', () => {
    renderWithBackend(<ResultView outcome={outcomeOf({ content: [{ type: 'text', text: 'disk full' }], isError: true }, {}, { isError: true })} />, new FakeBackend());
    expect(screen.getByRole('status')).toHaveTextContent('Tool returned an error');
    expect(screen.queryByText('Success')).not.toBeInTheDocument();
    expect(screen.getByText('disk full')).toBeInTheDocument();
  });

  it('shows an error code, message and whether it is worth retrying', () => {
    const outcome = outcomeOf(undefined, { error: { code: 'Timeout', message: 'No answer within 60 s', retryable: true } }, { status: 'timeout', latencyMs: 60_000 });
    renderWithBackend(<ResultView outcome={outcome} />, new FakeBackend());
    expect(screen.getByRole('status')).toHaveTextContent('Timed out');
    expect(screen.getByText('Timeout')).toBeInTheDocument();
    expect(screen.getByText('No answer within 60 s')).toBeInTheDocument();
    expect(screen.getByText('Retryable')).toBeInTheDocument();
    expect(screen.getByText('1 min 00 s')).toBeInTheDocument();
  });

  it('shows a policy denial with its reasons', () => {
    const outcome = outcomeOf(
      undefined,
      { error: { code: 'PolicyDenied', message: 'make_thing is denied', retryable: false }, verdict: { verdict: 'deny', reasons: ['no-writes: write → deny'], rules: [{ name: 'no-writes', verdict: 'deny', operationClass: 'write' }] } },
      { status: 'denied' },
    );
    renderWithBackend(<ResultView outcome={outcome} />, new FakeBackend());
    expect(screen.getByRole('status')).toHaveTextContent('Denied by policy');
    expect(screen.getByText('no-writes: write → deny')).toBeInTheDocument();
    expect(screen.getByText('Not retryable')).toBeInTheDocument();
  });

  it('marks duplicates and truncated results, with latency and sizes', () => {
    const outcome = outcomeOf({ content: [{ type: 'text', text: 'partial' }], truncated: true }, { duplicate: true, truncated: true });
    renderWithBackend(<ResultView outcome={outcome} />, new FakeBackend());
    expect(screen.getByRole('status')).toHaveTextContent('Duplicate');
    expect(screen.getByText('Truncated')).toBeInTheDocument();
    expect(screen.getByText('42 ms')).toBeInTheDocument();
    expect(screen.getByText('2.0 KB')).toBeInTheDocument();
  });
});
