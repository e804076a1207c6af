import { AppError } from '../../shared/errors';
import type { GatewayStatus } from '../../shared/gateway';
import { isLoopbackHost } from '../platform/requestGuard';
import type { Logger } from '../platform/Logger';
import type { SettingsStore } from '../settings/SettingsStore';
import type { Gateway } from './Gateway';

/**
 * The gateway as the console runs it (the Gateway section, the desktop app, `tooldeck serve`). Agents
 * are configured with its address, so once started from the console it stays on: the address it
 * bound is kept in the settings and started again whenever the console starts, until it is stopped
 * from the console. Loopback only — a gateway other machines reach is started from a terminal,
 * deliberately (`tooldeck gateway --dangerously-bind-all`), and is never kept.
 */
export interface ConsoleGatewayDeps {
  gateway: Gateway;
  settings: SettingsStore;
}

export async function startConsoleGateway({ gateway, settings }: ConsoleGatewayDeps, input: { port?: number; host?: string } = {}): Promise<GatewayStatus> {
  const host = input.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new AppError('InvalidInput', `The console starts the gateway on a loopback address only, not ${host}; to bind another, run tooldeck gateway --host ${host} --dangerously-bind-all.`);
  let status: GatewayStatus;
  try {
    status = await gateway.start({ port: input.port, host });
  } catch {
    throw new AppError('InvalidInput', gateway.status().error ?? `The gateway could not listen on ${host}:${input.port}.`);
  }
  // The port actually bound (port 0 picks one): the one agents were given.
  await settings.update((s) => ({ ...s, gateway: { enabled: true, host, ...(status.port ? { port: status.port } : {}) } }));
  return status;
}

export async function stopConsoleGateway({ gateway, settings }: ConsoleGatewayDeps): Promise<GatewayStatus> {
  await gateway.stop();
  await settings.update((s) => ({ ...s, gateway: { ...s.gateway, enabled: false } }));
  return gateway.status();
}

/**
 * At the console's start: the gateway again if it was on. A port now taken leaves it off with the
 * reason in its status (the Gateway section shows it) and in the log; the console starts anyway.
 */
export async function restoreConsoleGateway({ gateway, settings }: ConsoleGatewayDeps, logger: Logger): Promise<void> {
  const kept = settings.get().gateway;
  if (!kept.enabled || !isLoopbackHost(kept.host)) return;
  try {
    await gateway.start({ host: kept.host, ...(kept.port ? { port: kept.port } : {}) });
  } catch {
    logger.warn('The gateway started from the console could not start again', { host: kept.host, port: kept.port, error: gateway.status().error });
  }
}
