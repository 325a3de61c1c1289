/**
 * Which errors carry a stack: an expected answer (an ApiError of a declared client kind, a
 * 4xx) is built without one, since capturing it was most of what a 400 cost; an undeclared
 * kind (a defect) and a 5xx keep theirs, and the boundary logs the defect's stack.
 */
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { ApiError, type ErrorKind } from '../../src/errors.ts';
import { errorHandler, UNDECLARED_KIND } from '../../src/http/errors.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { createLogger } from '../../src/log.ts';

const frames = (err: Error): string[] => (err.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));

describe('ApiError stacks', () => {
  it('a declared 4xx has no stack frames, and stack capture is left as it was', () => {
    const limit = Error.stackTraceLimit;
    for (const kind of ['ValidationError', 'BadRequestError', 'AuthorizationError', 'NotFoundError', 'TooManyRequestsError'] as const) {
      const err = new ApiError(kind, `a ${kind}`);
      expect(frames(err)).toEqual([]);
      expect(err.stack).toBe(`ApiError: a ${kind}`);
      expect([err.kind, err.message, err.description, err.name]).toEqual([kind, `a ${kind}`, `a ${kind}`, 'ApiError']);
      expect(err.status).toBeLessThan(500);
      expect(Error.stackTraceLimit).toBe(limit);
    }
    expect(frames(new Error('plain'))).not.toEqual([]);
  });

  it('a 5xx kind and an undeclared kind keep their stack, and the boundary logs the undeclared one with it', async () => {
    expect(frames(new ApiError('InternalServerError', 'boom'))).not.toEqual([]);
    expect(frames(new ApiError('BadGatewayError', 'upstream'))).not.toEqual([]);
    const forgotten = 'ForgottenStackError' as string as ErrorKind;
    expect(frames(new ApiError(forgotten, 'defect'))).not.toEqual([]);

    const logs: string[] = [];
    const app = new Hono<AppEnv>();
    app.onError(errorHandler(createLogger((l) => logs.push(l))));
    app.get('/forgotten', () => {
      throw new ApiError(forgotten, 'defect');
    });
    app.get('/unhandled', () => {
      throw new TypeError('unexpected');
    });
    expect((await app.request('/forgotten')).status).toBe(500);
    expect((await app.request('/unhandled')).status).toBe(500);
    const logged = logs.map((l) => JSON.parse(l) as { msg: string; stack?: string });
    expect(logged.map((l) => l.msg)).toEqual([UNDECLARED_KIND, 'unhandled error']);
    for (const l of logged) expect(l.stack).toMatch(/\n\s+at /);
  });
});
