import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { GrpcMethodView } from '../../../../shared/grpc';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { GrpcMethodPanel } from './GrpcMethodPanel';
// The method view of explorer.v1.Explorer/Echo exactly as main/grpc/descriptorSchema.ts builds it
// from the reflected descriptor of the Python peer (e2e/peers/grpc/explorer_for_tests.proto):
// main/grpc/GrpcSources.test.ts checks that the real reflection still yields this file, so the form
// here is tested on the schema the app really shows, not on a hand-written look-alike.
import echoMethodJson from './testing/explorerEchoMethod.json?raw';

const echo = JSON.parse(echoMethodJson) as GrpcMethodView;

/** The oneof selector has no label of its own (rjsf hides it at the message level), so it is found by the id rjsf gives it. */
const contactSelector = () => screen.getAllByRole('combobox').find((element) => element.id === 'arguments__oneof_select')!;

describe('GrpcMethodPanel request form (a reflected descriptor)', () => {
  it('fills an enum, a repeated field, a oneof, a nested message and a Timestamp, and submits their proto3 JSON', async () => {
    // Pasting sets each field in one change: typing key by key re-validates the whole form per key,
    // which is slow in jsdom and proves nothing more.
    const user = userEvent.setup();
    const backend = new FakeBackend();
    renderWithBackend(<GrpcMethodPanel method={echo} />, backend);

    await user.click(screen.getByRole('textbox', { name: 'text' }));
    await user.paste('hi');

    // enum explorer.v1.Priority: chosen by value name, as proto3 JSON writes enums.
    await user.click(screen.getByRole('combobox', { name: 'priority' }));
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['PRIORITY_UNSPECIFIED', 'PRIORITY_LOW', 'PRIORITY_HIGH']);
    await user.click(screen.getByRole('option', { name: 'PRIORITY_HIGH' }));

    // repeated string tags: items added one by one, kept in order.
    const tags = screen.getByRole('group', { name: 'tags' });
    await user.click(within(tags).getByRole('button', { name: 'Add Item' }));
    await user.click(within(tags).getByRole('button', { name: 'Add Item' }));
    const [first, second] = within(tags).getAllByRole('textbox');
    await user.click(first!);
    await user.paste('a');
    await user.click(second!);
    await user.paste('b');

    // explorer.v1.Address, a nested message: its fields land under "address".
    await user.click(screen.getByRole('textbox', { name: 'street' }));
    await user.paste('Main');
    await user.click(screen.getByRole('textbox', { name: 'city' }));
    await user.paste('Oslo');

    // oneof contact: one member at a time. Switching from email to phone drops the email, since a
    // server rejects a message with two members of one oneof set.
    await user.click(contactSelector());
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['no contact', 'email', 'phone']);
    await user.click(screen.getByRole('option', { name: 'email' }));
    await user.click(screen.getByRole('textbox', { name: 'email' }));
    await user.paste('a@b.c');
    await user.click(contactSelector());
    await user.click(screen.getByRole('option', { name: 'phone' }));
    expect(screen.queryByRole('textbox', { name: 'email' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('textbox', { name: 'phone' }));
    await user.paste('+47 555 01 234');

    // google.protobuf.Timestamp: RFC 3339 text. A local "date time" without T and offset (what the
    // Mantine picker used to write) is flagged and blocks the call.
    const at = screen.getByRole('textbox', { name: 'at' });
    await user.click(at);
    await user.paste('2026-01-31 12:00:00');
    expect(screen.getByRole('button', { name: 'Call' })).toBeDisabled();
    await user.clear(at);
    await user.paste('2026-01-31T12:00:00.250+01:00');
    expect(at).toHaveValue('2026-01-31T12:00:00.250+01:00');

    const call = screen.getByRole('button', { name: 'Call' });
    expect(call).toBeEnabled();
    await user.click(call);
    const [subscription] = backend.subscriptionsTo('tools.invokeStream');
    expect(subscription!.input).toMatchObject({ name: 'grpc:peer.explorer.v1.Explorer/Echo' });
    // Exactly what was filled in, nothing else: what the pipeline validates and the server parses.
    expect((subscription!.input as { arguments: unknown }).arguments).toEqual({
      text: 'hi',
      priority: 'PRIORITY_HIGH',
      tags: ['a', 'b'],
      address: { street: 'Main', city: 'Oslo' },
      phone: '+47 555 01 234',
      at: '2026-01-31T12:00:00.250+01:00',
    });
    // Some 30 edits of a 16-field form, each re-validated live: several seconds in jsdom, more on a
    // busy machine, so this test gets twice the renderer project's 15 s.
  }, 30_000);
});
