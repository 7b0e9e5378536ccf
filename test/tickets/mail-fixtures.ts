import { buildTestApp, type TestApp } from '../helpers.js';
import { freePort, SmtpPeer } from '../smtp-peer.js';

export interface AppWithMailServer {
  t: TestApp;
  /** The mail server the app sends through, started; `received` holds what it took. */
  peer: SmtpPeer;
  /** Stops the mail server and closes the app. */
  close(): Promise<void>;
}

/**
 * The app sending its e-mail through a strict local mail server (it refuses what Postfix would,
 * test/smtp-peer.ts) from `mailFrom`.
 */
export async function appWithStrictMailServer(mailFrom = 'Taquilla <tickets@taquilla.test>'): Promise<AppWithMailServer> {
  const peer = new SmtpPeer(await freePort(), { strict: true });
  await peer.start();
  const t = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_FROM: mailFrom } });
  return {
    t,
    peer,
    async close() {
      await peer.stop();
      await t.close();
    },
  };
}
