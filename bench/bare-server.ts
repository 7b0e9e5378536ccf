// The bare baseline of bench:flash: what a minimal Fastify 5 service costs per request on this
// machine, the floor the real service is measured against (issue 27). One route, a validated JSON
// body, one query through a pg pool, pino logging one line per request at info (to stdout, which the
// bench sends to /dev/null), as the service logs. Run by the bench:
//   PORT=... DATABASE_URL=... DB_POOL_SIZE=10 node --import tsx bench/bare-server.ts
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE || 10) });
const app = Fastify({ logger: { level: 'info' }, disableRequestLogging: false });

app.post(
  '/bare/:slug/orders',
  {
    schema: {
      params: { type: 'object', properties: { slug: { type: 'string', maxLength: 64 } }, required: ['slug'] },
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { session_seat_id: { type: 'integer', minimum: 1 }, rate_id: { type: 'integer', minimum: 1 } },
        required: ['session_seat_id', 'rate_id'],
      },
    },
  },
  async (request) => {
    const body = request.body as { session_seat_id: number; rate_id: number };
    const { rows } = await pool.query<{ id: number }>('SELECT $1::int + $2::int AS id', [body.session_seat_id, body.rate_id]);
    return { status: 201, success: true, data: { id: rows[0]!.id, slug: (request.params as { slug: string }).slug } };
  },
);
app.get('/readyz', async () => ({ status: 'ready' }));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
