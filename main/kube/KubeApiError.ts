/** A failed Kubernetes API request: the HTTP status (0 when the server could not be reached) and the Status reason. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'KubeApiError';
  }

  get unreachable(): boolean {
    return this.status === 0;
  }
}

export const isKubeApiError = (error: unknown): error is KubeApiError => error instanceof KubeApiError;
export const isNotFound = (error: unknown) => isKubeApiError(error) && error.status === 404;
export const isConflict = (error: unknown) => isKubeApiError(error) && error.status === 409;
export const isUnreachable = (error: unknown) => isKubeApiError(error) && error.status === 0;
