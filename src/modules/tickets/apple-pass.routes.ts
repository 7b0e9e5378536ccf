import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { Text } from '../../http/schemas.js';
import { latestPass, registerDevice, unregisterDevice, updatedSerials } from './apple-pass-service.js';

// Apple's PassKit web service (D70), mounted at /api/wallet/apple: pass.json's webServiceURL, to
// which Wallet appends /v1/... . Successful answers follow Apple's protocol (raw JSON, a .pkpass,
// 304); errors keep the D4 envelope. docs/wallet.md "Passes already in a wallet".

const errors = { 401: Type.Ref('ErrorEnvelope'), 404: Type.Ref('ErrorEnvelope') };
const doc = (operationId: string, summary: string) => ({ tags: ['Wallet'], operationId, summary });
const Auth = Type.Object({ authorization: Type.Optional(Text(300, { description: 'ApplePass <authenticationToken of the pass>' })) });
const DeviceParams = {
  deviceLibraryIdentifier: Text(255, { minLength: 1, description: "The device's library identifier (Wallet's)" }),
  passTypeIdentifier: Text(255, { minLength: 1 }),
};
const PassParams = Type.Object({ ...DeviceParams, serialNumber: Text(64, { minLength: 1, description: 'ticket-<id>' }) });
const Done = Type.Object({ status: Type.Integer(), success: Type.Literal(true), message: Type.String(), data: Type.Null() });

const applePassRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.post(
    '/v1/devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier/:serialNumber',
    {
      schema: {
        ...doc('registerWalletDevice', "Apple Wallet: a device registers for a pass's updates (201 new, 200 already registered)"),
        params: PassParams,
        headers: Auth,
        body: Type.Object({ pushToken: Text(255, { minLength: 1 }) }),
        response: { 200: Done, 201: Done, ...errors },
      },
    },
    async (request, reply) => {
      const p = request.params;
      const { created } = await registerDevice(ctx, {
        device: p.deviceLibraryIdentifier,
        passTypeId: p.passTypeIdentifier,
        serial: p.serialNumber,
        pushToken: request.body.pushToken,
        authorization: request.headers.authorization,
      });
      const status = created ? 201 : 200;
      return reply.status(status).send(ok(null, created ? 'Registered' : 'Already registered', status));
    },
  );

  app.delete(
    '/v1/devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier/:serialNumber',
    {
      schema: {
        ...doc('unregisterWalletDevice', "Apple Wallet: a device stops receiving a pass's updates"),
        params: PassParams,
        headers: Auth,
        response: { 200: Done, ...errors },
      },
    },
    async (request) => {
      const p = request.params;
      await unregisterDevice(ctx, { device: p.deviceLibraryIdentifier, passTypeId: p.passTypeIdentifier, serial: p.serialNumber, authorization: request.headers.authorization });
      return ok(null, 'Unregistered');
    },
  );

  app.get(
    '/v1/devices/:deviceLibraryIdentifier/registrations/:passTypeIdentifier',
    {
      schema: {
        ...doc('listUpdatedWalletPasses', "Apple Wallet: the serial numbers of a device's passes updated since a tag (204 when none)"),
        params: Type.Object(DeviceParams),
        querystring: Type.Object({ passesUpdatedSince: Type.Optional(Text(40, { description: 'lastUpdated of the previous answer' })) }),
        response: {
          200: Type.Object({ serialNumbers: Type.Array(Type.String()), lastUpdated: Type.String() }, { description: "Apple's format, not the envelope" }),
          204: Type.Null({ description: 'No pass updated since the tag' }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const p = request.params;
      const answer = await updatedSerials(ctx, p.deviceLibraryIdentifier, p.passTypeIdentifier, request.query.passesUpdatedSince);
      reply.header('cache-control', 'no-store');
      if (!answer) return reply.status(204).send(null);
      return answer;
    },
  );

  app.get(
    '/v1/passes/:passTypeIdentifier/:serialNumber',
    {
      schema: {
        ...doc('getLatestWalletPass', 'Apple Wallet: the pass as it is now (voided once refunded, the new barcode once reissued); 304 when not modified'),
        params: Type.Object({ passTypeIdentifier: DeviceParams.passTypeIdentifier, serialNumber: Text(64, { minLength: 1 }) }),
        headers: Type.Object({ ...Auth.properties, 'if-modified-since': Type.Optional(Text(100)) }),
        response: { 200: Type.Any({ description: 'application/vnd.apple.pkpass' }), 304: Type.Null({ description: 'Not modified since If-Modified-Since' }), ...errors },
      },
    },
    async (request, reply) => {
      const p = request.params;
      const answer = await latestPass(ctx, {
        passTypeId: p.passTypeIdentifier,
        serial: p.serialNumber,
        authorization: request.headers.authorization,
        ifModifiedSince: request.headers['if-modified-since'],
      });
      reply.header('last-modified', answer.lastModified.toUTCString()).header('cache-control', 'no-cache');
      if (answer.notModified) return reply.status(304).send(null);
      return reply.type('application/vnd.apple.pkpass').send(answer.pass);
    },
  );

  app.post(
    '/v1/log',
    {
      schema: {
        ...doc('logWalletErrors', 'Apple Wallet: a device reports problems with the web service (written to the service log)'),
        body: Type.Object({ logs: Type.Array(Text(2000), { maxItems: 50 }) }),
        response: { 200: Done, 422: Type.Ref('ErrorEnvelope') },
      },
    },
    async (request) => {
      for (const line of request.body.logs) request.log.warn({ walletLog: line }, 'Apple Wallet device log');
      return ok(null, 'Logged');
    },
  );
};

export default applePassRoutes;
