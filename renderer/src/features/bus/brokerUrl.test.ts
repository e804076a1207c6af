import { describe, expect, it } from 'vitest';
import { brokerUrlCarriesSecret } from './BusView';

describe('brokerUrlCarriesSecret', () => {
  it("shows RabbitMQ's guest default and a URL without a password as they are, and masks any other password", () => {
    expect(brokerUrlCarriesSecret('amqp://guest:guest@127.0.0.1:5672')).toBe(false);
    expect(brokerUrlCarriesSecret('amqp://127.0.0.1:5672')).toBe(false);
    expect(brokerUrlCarriesSecret('amqps://rockbot@broker.example:5671/agents')).toBe(false);
    expect(brokerUrlCarriesSecret('amqp://rockbot:s3cr3t@broker.example:5672')).toBe(true);
    expect(brokerUrlCarriesSecret('amqp://guest:other@127.0.0.1:5672')).toBe(true);
    // Not a URL yet (being typed): masked as soon as it may carry credentials.
    expect(brokerUrlCarriesSecret('amqp://user:pa ss@')).toBe(true);
  });
});
