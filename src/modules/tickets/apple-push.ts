import http2 from 'node:http2';
import type { AppleWalletConfig } from '../../platform/wallet.config.js';

/**
 * Tells a device that passes it saved have changed (Apple's "PassKit web service" push: an empty
 * APNs notification to the device's push token, topic = the pass type identifier); the device
 * then asks the web service which serials changed and fetches them (apple-pass-service.ts).
 */
export interface PassPushSender {
  /** What the start-up log says about where pushes go. */
  describe: string;
  /** `gone`: APNs no longer knows the token (410): its registrations can go. Throws to be retried. */
  push(pushToken: string, passTypeId: string): Promise<'sent' | 'gone'>;
}

/** Without a configured certificate (the development signer) nothing can reach APNs: log the push. */
export function logPushSender(log: { info(obj: object, msg: string): void }): PassPushSender {
  return {
    describe: 'logged only (no Apple certificate configured)',
    async push(pushToken, passTypeId) {
      log.info({ passTypeId, pushToken: `${pushToken.slice(0, 8)}…` }, 'wallet pass update push (not sent: development signer)');
      return 'sent';
    },
  };
}

const PUSH_TIMEOUT_MS = 10_000;

/**
 * APNs over HTTP/2 with the pass type certificate as client certificate (token-less, as pass
 * updates require): `POST {APPLE_APNS_URL}/3/device/<token>`, header `apns-topic: <pass type id>`,
 * body `{}`. One connection per pass; pushes are rare (a refund or reissue).
 */
export function apnsPushSender(apnsUrl: string, apple: AppleWalletConfig): PassPushSender {
  return {
    describe: `APNs at ${apnsUrl}`,
    push(pushToken, passTypeId) {
      return new Promise((resolve, reject) => {
        const session = http2.connect(apnsUrl, { cert: apple.cert, key: apple.key, passphrase: apple.keyPassphrase });
        const fail = (err: Error) => {
          session.destroy();
          reject(err);
        };
        session.on('error', fail);
        session.setTimeout(PUSH_TIMEOUT_MS, () => fail(new Error('APNs did not answer in time')));
        const req = session.request({
          ':method': 'POST',
          ':path': `/3/device/${encodeURIComponent(pushToken)}`,
          'apns-topic': passTypeId,
          'content-type': 'application/json',
        });
        let status = 0;
        let body = '';
        req.setEncoding('utf8');
        req.on('response', (headers) => (status = Number(headers[':status'])));
        req.on('data', (chunk: string) => (body += chunk));
        req.on('error', fail);
        req.on('end', () => {
          session.close();
          if (status === 200) resolve('sent');
          else if (status === 410) resolve('gone');
          else reject(new Error(`APNs answered ${status}: ${body.slice(0, 200)}`));
        });
        req.end('{}');
      });
    },
  };
}
