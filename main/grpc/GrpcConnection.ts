import { AppError, reasonOf } from '../../shared/errors';
import { diagnoseConnection } from './GrpcConnectionDoctor';
import { GrpcCallError, GrpcChannel, type CallOptions, type ChannelSettings } from './GrpcChannel';
import { appErrorFromStatus, expiredBeforeConnecting, isConnectionFailure } from './grpcStatus';

/**
 * A source's channel with what every call needs: its metadata (read from the secret store per call,
 * so a changed token applies at once) and the translation of failures into Tooldeck's errors — a
 * connection failure names its step (DNS, TCP, TLS, HTTP/2) after asking the connection doctor.
 */
export class GrpcConnection {
  readonly channel: GrpcChannel;

  constructor(
    readonly settings: ChannelSettings,
    private readonly metadata: () => Promise<Record<string, string>>,
  ) {
    this.channel = new GrpcChannel(settings);
  }

  async options(timeoutMs: number | undefined, signal?: AbortSignal): Promise<CallOptions> {
    return {
      metadata: await this.metadata(),
      ...(timeoutMs !== undefined ? { deadline: new Date(Date.now() + timeoutMs) } : {}),
      ...(signal ? { signal } : {}),
    };
  }

  /** `what` names the call in the message (a registry name, or "ListTools on <address>"). */
  async failure(error: unknown, what: string, signal?: AbortSignal): Promise<AppError> {
    if (signal?.aborted) return new AppError('Canceled', `The call to ${what} was canceled.`, { cause: error });
    if (!(error instanceof GrpcCallError)) return error instanceof AppError ? error : new AppError('ExecutionFailed', `${what}: ${reasonOf(error)}`, { cause: error });
    if (isConnectionFailure(error) || expiredBeforeConnecting(error)) {
      const diagnosed = await diagnoseConnection(this.settings);
      if (diagnosed) return new AppError('ConnectionFailed', `${what}: ${diagnosed.message}`, { step: diagnosed.step, retryable: diagnosed.retryable, cause: error });
    }
    return appErrorFromStatus(error, what);
  }

  close(): void {
    this.channel.close();
  }
}
