import { AppError } from '../../shared/errors';

/**
 * An AMQP URL as it may be shown: the password (and any query, which may carry TLS key passphrases)
 * replaced, so a URL with credentials can be printed, logged and shown in the console.
 */
export function maskAmqpUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: show only its scheme, since whatever follows may be a secret.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0];
    return scheme ? `${scheme}//***` : '***';
  }
  if (parsed.password) parsed.password = '***';
  if (parsed.search) parsed.search = '?***';
  return parsed.toString();
}

/** Refuses what is not an `amqp:` or `amqps:` URL, in one sentence that never repeats the URL's secrets. */
export function checkAmqpUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('InvalidInput', `${maskAmqpUrl(url)} is not a URL; give the broker as amqp://USER:PASSWORD@HOST:PORT/VHOST.`);
  }
  if (parsed.protocol !== 'amqp:' && parsed.protocol !== 'amqps:') throw new AppError('InvalidInput', `${maskAmqpUrl(url)} is not an AMQP URL; it must start with amqp:// or amqps://.`);
  if (!parsed.hostname) throw new AppError('InvalidInput', `${maskAmqpUrl(url)} names no host.`);
  return url;
}
