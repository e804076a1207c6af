import { describe, expect, it } from 'vitest';
import { IconFetcher, isPublicAddress } from './IconFetcher';

describe('IconFetcher', () => {
  it('passes a data:image icon through and refuses every other non-https source without a request', async () => {
    const icons = new IconFetcher();
    expect(await icons.fetch('data:image/png;base64,iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    for (const src of ['javascript:alert(1)', 'http://example.com/i.png', 'file:///etc/passwd', 'data:text/html;base64,PHNjcmlwdD4=']) expect(await icons.fetch(src)).toBeUndefined();
  });

  it('never fetches from this machine or a private network, by address or by name', async () => {
    const icons = new IconFetcher();
    for (const src of ['https://127.0.0.1/i.png', 'https://localhost/i.png', 'https://[::1]/i.png', 'https://10.0.0.5/i.png', 'https://169.254.169.254/latest/meta-data', 'https://192.168.1.1/i.png', 'https://[fd00::1]/i.png'])
      expect(await icons.fetch(src), src).toBeUndefined();
  });

  it('tells public addresses from the others', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '100.64.0.1', '169.254.1.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', 'not an ip'])
      expect(isPublicAddress(address), address).toBe(false);
  });
});
