import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lockWaitRanOut } from '../db/advisory-locks.js';
import { unreachableCause } from '../db/unreachable.js';
import { countConflict } from '../platform/metrics.js';
import { AppError, SPEC_MESSAGES, type ErrorCode, type FieldErrors } from './errors.js';
import type { ErrorEnvelope } from './envelope.js';
import { errorLanguage, localiseError } from './error-texts.js';

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Ajv's issues, keyed by field name ("session_seat_id", "items.0.rate_id", "event_ids[]"). */
function fieldErrors(issues: AjvIssue[]): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    let field = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
      field = field ? `${field}.${issue.params.missingProperty}` : issue.params.missingProperty;
    }
    if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string') {
      field = field ? `${field}.${issue.params.additionalProperty}` : issue.params.additionalProperty;
    }
    const key = field || 'body';
    const text = issue.keyword === 'additionalProperties' ? 'is not allowed' : (issue.message ?? 'is invalid');
    const list = (out[key] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return out;
}

function envelope(status: number, code: string, message: string, errors?: FieldErrors, data?: unknown): ErrorEnvelope {
  const body: ErrorEnvelope = errors ? { status, success: false, message, code, errors } : { status, success: false, message, code };
  if (data !== undefined) body.data = data;
  return body;
}

/** Maps Fastify's own errors (parsing, limits, validation) to a code of our catalogue. */
function fastifyErrorCode(err: FastifyError): { status: number; code: ErrorCode; message: string } | null {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'bad_request', message: 'The request body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'payload_too_large', message: 'The request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: 'Unsupported content type; send application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'bad_request', message: 'Content-Length does not match the body' };
    default:
      return null;
  }
}

/**
 * Seconds a client should wait before retrying while the database is unreachable: the service
 * reconnects by itself within 2 s of the database returning (D46).
 */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * When `err` says the database is unreachable (D46), or that a lock wait ran out of its bound
 * (src/db/advisory-locks.ts): logs it, sets Retry-After on the reply and returns the 503 to answer
 * with; otherwise null. Shared by every error handler (the envelope's and the dashboard's HTML pages).
 */
export function databaseUnavailable(err: unknown, request: FastifyRequest, reply: FastifyReply): AppError | null {
  if (lockWaitRanOut(err)) {
    // Another transaction held the lock longer than the bound: nothing was written (the
    // transaction rolled back); a retry shortly finds it free.
    request.log.warn({ err }, 'lock wait ran out');
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return new AppError('service_unavailable', 'The service is temporarily unavailable; retry shortly');
  }
  const cause = unreachableCause(err);
  if (!cause) return null;
  // Nothing was wrong with the request and nothing was half written (the transaction, if any, is
  // gone with its connection): tell the client to retry shortly.
  request.log.warn({ cause }, 'database unreachable');
  reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  return new AppError('service_unavailable', 'The service is temporarily unavailable; retry shortly');
}

/**
 * Errors the router meets before any route runs (Fastify's `frameworkErrors` option): a URL whose
 * percent-encoding is broken, a path parameter longer than `maxParamLength`.
 */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.status(414).send(envelope(414, 'uri_too_long', 'A path segment of the URL is too long'));
  } else if (err.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send(envelope(400, 'bad_request', 'The URL is not valid (malformed percent-encoding)'));
  } else {
    reply.status(400).send(envelope(400, 'bad_request', 'The request could not be routed'));
  }
}

/**
 * Errors of Node's HTTP parser, before Fastify has a request (Fastify's `clientErrorHandler`): the
 * answer is written to the socket by hand, still in the envelope, and the connection is closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request line and headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive']
        : [400, 'bad_request', 'The request is not valid HTTP'];
  const body = JSON.stringify(envelope(status, code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** The one error handler: every error, ours or Fastify's, leaves as the envelope of D4. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    // The buyer's language where the request has one (error-texts.ts); the code never changes.
    const send = (status: number, code: ErrorCode, message: string, errors?: FieldErrors, data?: unknown, spanish?: string) => {
      const local = localiseError(code, message, errors, errorLanguage(request), spanish);
      return reply.status(status).send(envelope(status, code, local.message, local.fields, data));
    };
    if (err instanceof AppError) {
      if (err.status === 401) reply.header('www-authenticate', 'Bearer');
      // Counted here, where every 409 of every service (and of the SQL functions) is answered.
      if (err.status === 409) countConflict(err.code);
      return send(err.status, err.code, err.message, err.fields, err.data, err.spanish);
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const errors = fieldErrors(fe.validation as AjvIssue[]);
      return send(422, 'validation_failed', SPEC_MESSAGES.invalidData, errors);
    }
    const known = fastifyErrorCode(fe);
    if (known) return send(known.status, known.code, known.message);
    if (fe.statusCode === 429) {
      return send(429, 'rate_limited', 'Too many requests; slow down and retry later');
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply.status(fe.statusCode).send(envelope(fe.statusCode, 'bad_request', fe.message));
    }
    const unavailable = databaseUnavailable(err, request, reply);
    if (unavailable) return send(unavailable.status, unavailable.code, unavailable.message);
    request.log.error({ err }, 'unhandled error');
    return send(500, 'internal_error', 'Internal server error');
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(envelope(404, 'route_not_found', `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}
