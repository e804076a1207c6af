import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../shared/errors';
import { parseGrpcAddress } from '../../shared/grpc';
import { appErrorFromStatus, statusName } from './grpcStatus';

describe('gRPC status mapping', () => {
  it('gives every status a contract code, ConnectionFailed only for UNAVAILABLE before a connection', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.string(), (code, details) => {
        const error = appErrorFromStatus({ code, details }, 'grpc:s.t');
        expect(ErrorCode.options).toContain(error.code);
        if (error.code === 'ConnectionFailed') expect(code).toBe(14);
        expect(error.message).toContain(statusName(code));
      }),
    );
  });

  it('maps the statuses a caller acts on', () => {
    const code = (status: number, details = 'x') => {
      const error = appErrorFromStatus({ code: status, details }, 'grpc:s.t');
      return [error.code, error.retryable];
    };
    expect(code(4)).toEqual(['Timeout', true]);
    expect(code(14)).toEqual(['ExecutionFailed', true]);
    expect(code(14, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1')).toEqual(['ConnectionFailed', true]);
    expect(code(3)).toEqual(['InvalidArguments', false]);
    expect(code(5)).toEqual(['ToolNotFound', false]);
    expect(code(16)).toEqual(['Unauthorized', false]);
    expect(code(7)).toEqual(['Unauthorized', false]);
    expect(code(12)).toEqual(['ToolNotFound', false]);
  });
});

describe('parseGrpcAddress', () => {
  it('takes host:port and [ipv6]:port, nothing else', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (host, port) => {
        expect(parseGrpcAddress(`${host}:${port}`)).toEqual({ host, port });
      }),
    );
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 65536, max: 999999 }), (host, port) => {
        expect(parseGrpcAddress(`${host}:${port}`)).toBeUndefined();
      }),
    );
    expect(parseGrpcAddress('[::1]:50051')).toEqual({ host: '::1', port: 50051 });
    for (const bad of ['', 'host', 'host:', ':80', 'http://host:80', 'host:0', 'a b:80', 'host:80/x']) expect(parseGrpcAddress(bad), bad).toBeUndefined();
  });
});
