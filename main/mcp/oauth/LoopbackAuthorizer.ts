import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Authorizer } from './Authorizer';
import { OAuthFlowError } from './OAuthFlowError';

export const CALLBACK_PATH = '/oauth/callback';

export interface LoopbackOptions {
  /** Told the URL to open as soon as it exists (the UI opens it; the CLI opens the system browser). */
  onAuthorizationUrl?: (url: URL) => void;
  /** How long to wait for the browser to come back. */
  timeoutMs?: number;
  /** 0 (the default) takes any free port. */
  port?: number;
}

/**
 * The redirect target of a browser sign-in (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 on a
 * free port, for one callback. The browser's page waits until the flow has settled, so it can say
 * whether sign-in worked, then the listener closes.
 */
export class LoopbackAuthorizer implements Authorizer {
  private callback?: { resolve: (params: URLSearchParams) => void; reject: (error: Error) => void };
  private pendingResponse?: ServerResponse;
  private received?: URLSearchParams;
  private timer?: NodeJS.Timeout;
  private closed = false;

  private constructor(
    private readonly server: Server,
    readonly redirectUrl: string,
    private readonly options: LoopbackOptions,
  ) {}

  static async start(options: LoopbackOptions = {}): Promise<LoopbackAuthorizer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const instance = new LoopbackAuthorizer(server, `http://127.0.0.1:${port}${CALLBACK_PATH}`, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => instance.handle(req, res));
    return instance;
  }

  authorize(authorizationUrl: URL): Promise<URLSearchParams> {
    const waiting = new Promise<URLSearchParams>((resolve, reject) => {
      if (this.received) return resolve(this.received);
      this.callback = { resolve, reject };
    });
    const timeoutMs = this.options.timeoutMs ?? 5 * 60_000;
    this.timer = setTimeout(() => this.fail(OAuthFlowError.atStep('callback', `the browser did not come back to ${this.redirectUrl} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    this.timer.unref();
    this.options.onAuthorizationUrl?.(authorizationUrl);
    return waiting;
  }

  /** A callback URL pasted by the user (the browser could not reach the loopback listener). */
  deliver(callbackUrl: string) {
    const url = new URL(callbackUrl);
    this.accept(url.searchParams);
  }

  /** Answers the browser once the flow has an outcome, and stops listening. */
  settle(outcome: { ok: boolean; message: string }) {
    const res = this.pendingResponse;
    this.pendingResponse = undefined;
    if (res && !res.headersSent) {
      res.writeHead(outcome.ok ? 200 : 400, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(page(outcome.ok ? 'Signed in' : 'Sign-in failed', outcome.message));
    }
    this.dispose();
  }

  dispose() {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.fail(OAuthFlowError.atStep('callback', 'the sign-in was cancelled'));
    this.pendingResponse?.end();
    this.server.close();
    this.server.closeAllConnections();
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.redirectUrl);
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    if (this.received || this.closed) {
      res.writeHead(409, { 'Content-Type': 'text/html; charset=utf-8' }).end(page('Already handled', 'This sign-in has already received its response. Return to Tooldeck.'));
      return;
    }
    this.pendingResponse = res;
    this.accept(url.searchParams);
  }

  private accept(params: URLSearchParams) {
    if (this.received) return;
    this.received = params;
    if (this.timer) clearTimeout(this.timer);
    const callback = this.callback;
    this.callback = undefined;
    callback?.resolve(params);
  }

  private fail(error: Error) {
    const callback = this.callback;
    this.callback = undefined;
    callback?.reject(error);
  }
}

function page(title: string, message: string): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tooldeck — ${escape(title)}</title></head><body style="font-family:system-ui,sans-serif;margin:3rem"><h1>${escape(title)}</h1><p>${escape(message)}</p><p>You can close this tab and return to Tooldeck.</p></body></html>`;
}
