import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import type { Actor } from '../platform/actor.js';
import { invalidData } from './errors.js';
import { IdParam, Int32, Text } from './schemas.js';

// The pieces every part of the admin API (/api/admin/v1) shares: the shell's routes
// (modules/admin/admin.routes.ts) and each module's own admin routes (<module>.admin.routes.ts),
// which the shell mounts behind its token hook. Amounts are decimal numbers of the deployment
// currency; percentages are percentages (10 = 10 %); timestamps ISO 8601 with an offset.

declare module 'fastify' {
  interface FastifyRequest {
    /** The user behind the admin API token (admin routes only). */
    adminActor: Actor | null;
  }
}

export const Lang = Text(2, { pattern: '^[a-z]{2}$' });

export const adminErrors = {
  401: Type.Ref('ErrorEnvelope'),
  403: Type.Ref('ErrorEnvelope'),
  404: Type.Ref('ErrorEnvelope'),
  409: Type.Ref('ErrorEnvelope'),
  422: Type.Ref('ErrorEnvelope'),
};

export const Params = {
  organiser: Type.Object({ organiserId: IdParam }),
  channel: Type.Object({ channelId: IdParam }),
  key: Type.Object({ channelId: IdParam, keyId: IdParam }),
  event: Type.Object({ eventId: IdParam }),
  session: Type.Object({ sessionId: IdParam }),
  rate: Type.Object({ rateId: IdParam }),
  user: Type.Object({ userId: IdParam }),
  fee: Type.Object({ feeId: IdParam }),
  voucher: Type.Object({ voucherId: IdParam }),
};

/**
 * A page of an admin list, newest first: the entries before `before_id` (the last id of the
 * previous page), at most `limit` (50 unless asked, 200 at most). Spread into the list's query.
 */
export const pageQuery = {
  before_id: Type.Optional(IdParam),
  limit: Type.Optional(Int32({ minimum: 1, maximum: 200, default: 50 })),
};

/** An order by its reference (the orders and the order actions of the admin API). */
export const ReferenceParam = Type.Object({ reference: Type.String({ minLength: 1, maxLength: 64 }) });

/** An admin API operation's tag (`Admin: <tag>`), operationId and summary. */
export const adminOperation = (tag: string, operationId: string, summary: string) => ({ tags: [`Admin: ${tag}`], operationId, summary });

/** The user behind the admin API token (set by the shell's token hook before any admin route runs). */
export const adminActorOf = (request: FastifyRequest) => request.adminActor!;

/** A preValidation hook: 422 `errors.<field>: is not allowed` for a body field the schema does not name. */
export const refuseUnknownFields = (schema: TObject) => async (request: FastifyRequest) => {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const unknown = Object.keys(body).filter((key) => !Object.hasOwn(schema.properties, key));
  if (unknown.length) throw invalidData(Object.fromEntries(unknown.map((key) => [key, ['is not allowed']])));
};
